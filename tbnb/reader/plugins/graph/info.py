"""A node's info panel: everything known about one op, scope or series, as plain JSON values.

Reply::

    {"what": "info", "name": str, "error": str | None,    # error: no such node
     "node": {"id", "label", "kind": "op" | "scope" | "series",
              # ops:
              "name", "op", "device", "attrs": {...}, "output_shapes": [[...] | None],
              "inputs":  [{"name", "op", "output", "shape", "control"}],   # the first MAX_EDGES
              "outputs": [{"name", "op", "output", "shape", "control"}],
              "inputs_total", "outputs_total",
              "compute_time", "memory",          # µs, bytes, or None
              "series", "series_grouped",         # the series it belongs to, if any
              "annotation_of", "annotations",     # the node a constant/summary is drawn beside
              # scopes and series:
              "count", "children", "ops": {op: n}, "devices": {device: n},
              "compute_time", "memory", "series_grouped" (series only)}}

Attribute values are JSON (numbers, strings, lists, dicts); bytes that are not text are shown as
Python writes them; strings longer than ``MAX_TEXT`` are cut, as TensorBoard drops attributes
over its size limit. Names are data: the page shows them as text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from .display import children, display
from .hierarchy import OP, SCOPE, Hierarchy

MAX_TEXT = 1024
MAX_EDGES = 500


def jsonable(value: Any) -> Any:
    """A decoded attribute value as JSON-safe data."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + f"… ({len(value)} characters)"
    if isinstance(value, (bytes, bytearray)):
        return jsonable(repr(bytes(value)))
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist()) if value.dtype.kind in "biufUSO" else str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return jsonable(str(value))


def _figure(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _edges(h: Hierarchy, i: int, incoming: bool) -> list[dict[str, Any]]:
    g = h.graph
    mine = np.flatnonzero((g.edge_dst if incoming else g.edge_src) == i)[:MAX_EDGES]
    other = g.edge_src if incoming else g.edge_dst
    out = []
    for e in mine.tolist():
        j = int(other[e])
        shape = g.edge_shape(e)
        out.append({"name": g.names[j], "op": g.ops[j], "output": int(g.edge_output[e]),
                    "shape": list(shape) if shape is not None else None, "control": bool(g.edge_control[e])})
    return out


def _op_info(h: Hierarchy, i: int, series: Mapping[str, bool] | None) -> dict[str, Any]:
    g = h.graph
    d = display(h, series)
    s = int(h.op_series[i])
    host = int(h.host[i])
    return {
        "id": h.names[i], "label": h.label(i), "kind": "op", "name": g.names[i], "op": g.ops[i],
        "device": g.devices[i], "attrs": jsonable(g.attrs(i)),
        "output_shapes": jsonable(g.output_shapes[i]),
        "inputs": _edges(h, i, True), "outputs": _edges(h, i, False),
        "inputs_total": int((g.edge_dst == i).sum()), "outputs_total": int((g.edge_src == i).sum()),
        "compute_time": _figure(g.compute_time[i]), "memory": _figure(g.memory[i]),
        "series": h.names[s] if s >= 0 else None,
        "series_grouped": bool(d.present(s)) if s >= 0 else None,
        "annotation_of": g.names[host] if host >= 0 else None,
        "annotations": [g.names[e] for e, _ in h.annotations(i)],
    }


def _group_info(h: Hierarchy, item: int, series: Mapping[str, bool] | None) -> dict[str, Any]:
    d = display(h, series)
    ops = h.ops_in(item)
    ops = ops[~h.embedded[ops]]
    arr = np.array([item])
    info = {
        "id": h.names[item], "label": h.label(item), "kind": "scope" if h.kind[item] == SCOPE else "series",
        "count": len(ops), "children": len(children(d, item)) if d.present(item) else 0,
        "ops": dict(Counter(h.graph.ops[k] for k in ops.tolist()).most_common()),
        "devices": dict(Counter(h.graph.devices[k] for k in ops.tolist()).most_common()),
        "compute_time": _figure(h.total("compute_time", arr)[0]), "memory": _figure(h.total("memory", arr)[0]),
    }
    if h.kind[item] != SCOPE:
        info["series_grouped"] = d.present(item)
    return info


def node_info(h: Hierarchy, name: str, series: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """The info panel of the node with id (or op name) ``name``."""
    reply: dict[str, Any] = {"what": "info", "name": name, "error": None, "node": None}
    try:
        item = h.item(name)
    except KeyError:
        try:
            item = h.graph.index(name)
        except KeyError:
            reply["error"] = "no node of that name"
            return reply
    reply["node"] = _op_info(h, item, series) if h.kind[item] == OP else _group_info(h, item, series)
    return reply
