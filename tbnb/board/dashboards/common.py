"""What several dashboards need from a source: the x of a series, the runs that hold a tag of a
given plugin, one run's sampled series and the index of a step in it.

A run may be removed by the poller between two calls; such a run is skipped (None here), never
an error. A run or tag unknown to the whole source, or a tag of another plugin, is a
RequestError: the page asked for something that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...reader.runs.series import ScalarSeries, TensorSeries
from ...reader.user_regex import PatternError, compile_excepting, compile_regex
from ..request import RequestError
from ..sources import MultiLogdir


def x_values(series: ScalarSeries | TensorSeries, axis: str, start_time: float | None) -> np.ndarray:
    """x of each point (or sampled step): the step, seconds since the run's first event, or
    epoch seconds; for ``log_step`` the step (drawn on a log axis), for ``relative_step`` the
    step minus the series' first step."""
    if axis in ("step", "log_step"):
        return series.step.astype(np.float64)
    if axis == "relative_step":
        steps = series.step.astype(np.float64)
        return steps - steps[0] if len(steps) else steps
    if axis == "relative":
        if start_time is None:
            start_time = float(series.wall_time[0]) if len(series) else 0.0
        return series.wall_time - start_time
    if axis == "wall":
        return series.wall_time.copy()
    raise RequestError(f"unknown x_axis {axis!r}")


def check_runs(source: MultiLogdir, runs: Sequence[str]) -> None:
    """RequestError naming the requested runs the source does not have."""
    known = set(source.runs())
    unknown = [r for r in runs if r not in known]
    if unknown:
        raise RequestError(f"unknown run(s) {unknown}")


def tag_runs(source: MultiLogdir, tag: str, runs: Sequence[str], plugins: Sequence[str]) -> tuple[str, list[str]]:
    """The plugin of ``tag`` and the requested runs that hold it (in request order).

    RequestError if a run is unknown, the tag is in no run, or it is not of one of ``plugins``.
    """
    check_runs(source, runs)
    found: dict[str, str] = {}
    for run in source.runs():
        try:
            plugin = source.tags(run).get(tag)
        except KeyError:
            continue
        if plugin:
            found[run] = plugin
    kinds = set(found.values())
    if not kinds:
        raise RequestError(f"unknown tag {tag!r}")
    allowed = sorted(kinds & set(plugins))
    if not allowed:
        raise RequestError(f"tag {tag!r} is a {'/'.join(sorted(kinds))} tag; this request serves "
                           f"{'/'.join(plugins)}")
    plugin = allowed[0]
    return plugin, [r for r in runs if found.get(r) == plugin]


def tensor_series(source: MultiLogdir, run: str, tag: str, as_written: bool = False) -> TensorSeries | None:
    """The run's sampled series of ``tag``, or None if the run went away meanwhile; with
    ``as_written``, as the file holds it (audio with its labels: ``Logdir.tensors``)."""
    try:
        return source.tensors(run, tag, as_written=True) if as_written else source.tensors(run, tag)
    except KeyError:
        return None


def start_time(source: MultiLogdir, run: str) -> float | None:
    """The run's first event time, or None if the run went away meanwhile."""
    try:
        return source.run_start_time(run)
    except KeyError:
        return None


def one_series(source: MultiLogdir, tag: str, run: str, plugins: Sequence[str],
               as_written: bool = False) -> tuple[str, TensorSeries]:
    """The plugin and sampled series of ``tag`` in one run (``as_written``: see
    ``tensor_series``); RequestError if the run lacks it."""
    plugin, holding = tag_runs(source, tag, [run], plugins)
    series = tensor_series(source, run, tag, as_written) if holding else None
    if series is None:
        raise RequestError(f"run {run!r} has no tag {tag!r}")
    return plugin, series


def step_index(series: TensorSeries, run: str, tag: str, step: int) -> int:
    """The position of sampled ``step`` in ``series`` (the last one if repeated)."""
    hits = np.flatnonzero(series.step == step)
    if not hits.size:
        raise RequestError(f"run {run!r} has no sampled step {step} of tag {tag!r}")
    return int(hits[-1])



def key_by_runs(request: Mapping[str, Any]) -> tuple[Any, ...]:
    """The push key of a per-run card's request (histograms, distributions): a newer request
    replaces the one of the same kind, tag and run list (protocol.md, "Pushed replies")."""
    return (request["type"], request["tag"], tuple(request["runs"]))


def shown_runs(runs: Iterable[str], patterns: Sequence[str], hidden: Iterable[str],
               hidden_patterns: Iterable[str] = ()) -> list[str]:
    """Runs that fully match one of ``patterns`` and are not switched off, by name in ``hidden``
    or by fully matching one of ``hidden_patterns`` (run_visibility.py).

    Matched with RE2 (reader/user_regex.py), in time linear in each run name; a pattern RE2
    refuses is a RequestError (the traits refuse it before it gets here).
    """
    try:
        compiled = [compile_regex(p) for p in patterns]
        hide = [compile_excepting(p) for p in hidden_patterns]
    except PatternError as err:
        raise RequestError(str(err)) from None
    off = set(hidden)
    return [r for r in runs if r not in off and any(c.fullmatch(r) for c in compiled)
            and not any(h.fullmatch(r) for h in hide)]
