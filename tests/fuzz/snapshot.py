"""Everything a reader exposes about a logdir, as plain comparable data, and the comparisons.

A snapshot walks the public API only (runs, tags, scalars, tensors and every value, graph,
projector) and records each exception instead of letting it escape, so that one input yields all
its failures at once and the bulk and general readers can be compared field by field.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .oracle import NAN_BITS


@dataclass
class Raised:
    """An exception that escaped one public call."""

    where: str
    run: str
    tag: str
    kind: str
    message: str


@dataclass
class Snapshot:
    runs: list[str] = field(default_factory=list)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)
    #: {(run, tag): (steps bytes, wall bytes, value bytes)} — bit-exact, NaN payloads included.
    scalars: dict[tuple[str, str], tuple[bytes, bytes, bytes]] = field(default_factory=dict)
    #: {(run, tag): Counter of oracle point keys}
    points: dict[tuple[str, str], Counter] = field(default_factory=dict)
    #: {(run, tag): (steps bytes, [value fingerprints])}
    tensors: dict[tuple[str, str], tuple[bytes, list[Any]]] = field(default_factory=dict)
    graphs: dict[str, bytes | None] = field(default_factory=dict)
    raised: list[Raised] = field(default_factory=list)


def _fingerprint(arr: Any) -> Any:
    a = np.asarray(arr)
    if a.dtype == object:
        return ("object", a.shape, tuple(bytes(x) if isinstance(x, (bytes, bytearray)) else repr(x) for x in a.ravel()))
    return (a.dtype.str, a.shape, a.tobytes())


def _bits(x: np.ndarray) -> list[int]:
    """``oracle.float_bits`` of every element, at once."""
    bits = x.view(np.int64).copy()
    bits[np.isnan(x)] = NAN_BITS
    return bits.tolist()


def _note(snap: Snapshot, where: str, run: str, tag: str, err: BaseException) -> None:
    snap.raised.append(Raised(where, run, tag, type(err).__name__, str(err)[:200]))


def take(lg: Any) -> Snapshot:
    """Read everything ``lg`` holds through its public API."""
    snap = Snapshot()
    try:
        snap.runs = lg.runs()
    except Exception as err:  # noqa: BLE001 - every escape is a finding
        _note(snap, "runs", "", "", err)
        return snap
    for run in snap.runs:
        try:
            tags = lg.tags(run)
        except Exception as err:  # noqa: BLE001
            _note(snap, "tags", run, "", err)
            continue
        snap.tags[run] = tags
        for tag, plugin in tags.items():
            if plugin == "scalars":
                try:
                    s = lg.scalars(run, tag)
                    step = np.asarray(s.step, dtype=np.int64)
                    wall = np.asarray(s.wall_time, dtype=np.float64)
                    value = np.asarray(s.value, dtype=np.float64)
                except Exception as err:  # noqa: BLE001
                    _note(snap, "scalars", run, tag, err)
                    continue
                snap.scalars[(run, tag)] = (step.tobytes(), wall.tobytes(), value.tobytes())
                snap.points[(run, tag)] = Counter(zip(step.tolist(), _bits(wall), _bits(value)))
                continue
            try:
                t = lg.tensors(run, tag)
                steps = np.asarray(t.step, dtype=np.int64).tobytes()
                n = len(t.values)
            except KeyError:
                continue  # a tag with no tensor series (the run graph, run metadata)
            except Exception as err:  # noqa: BLE001
                _note(snap, "tensors", run, tag, err)
                continue
            prints = []
            for i in range(n):
                try:
                    prints.append(_fingerprint(t.values[i]))
                except Exception as err:  # noqa: BLE001
                    _note(snap, "values", run, tag, err)
                    prints.append(("raised", type(err).__name__))
            snap.tensors[(run, tag)] = (steps, prints)
        try:
            graph = lg.graph(run)  # a Graph (numpy columns, a callable): compared by what it read
            snap.graphs[run] = None if graph is None else repr(
                (graph.kind, graph.graph_def, graph.names, graph.ops, graph.edge_src.tolist(),
                 graph.edge_dst.tolist(), graph.problems)).encode()
        except Exception as err:  # noqa: BLE001
            _note(snap, "graph", run, "", err)
        try:
            lg.projector(run)
        except Exception as err:  # noqa: BLE001
            _note(snap, "projector", run, "", err)
    return snap


def differences(bulk: Snapshot, general: Snapshot) -> list[tuple[str, str, str]]:
    """(what, run, tag) for every way the two snapshots differ."""
    out: list[tuple[str, str, str]] = []
    if bulk.runs != general.runs:
        out.append(("runs", "", ""))
    for run in sorted(set(bulk.tags) | set(general.tags)):
        a, b = bulk.tags.get(run, {}), general.tags.get(run, {})
        for tag in sorted(set(a) | set(b)):
            if a.get(tag) != b.get(tag):
                out.append(("tags", run, tag))
    for key in sorted(set(bulk.scalars) | set(general.scalars)):
        if bulk.scalars.get(key) != general.scalars.get(key):
            out.append(("scalars", *key))
    for key in sorted(set(bulk.tensors) | set(general.tensors)):
        if bulk.tensors.get(key) != general.tensors.get(key):
            out.append(("tensors", *key))
    for run in sorted(set(bulk.graphs) | set(general.graphs)):
        if bulk.graphs.get(run) != general.graphs.get(run):
            out.append(("graph", run, ""))
    return out


def lost_points(snap: Snapshot, run: str, tag: str, expected: Counter) -> int:
    """How many expected points the snapshot lacks (multiset difference)."""
    got = snap.points.get((run, tag), Counter())
    return sum((expected - got).values())

