"""What the page asks and sees, computed in the kernel: request fields, the index, card series,
downloads, ``changed`` messages, which requests to push again, and ``Board.view``.

Pure functions of a source (``MultiLogdir``) and the board's settings, so that the message
handlers in widget.py stay thin and everything here is testable without a widget. A run may be
removed by the poller between two calls; such a run is skipped, never an error.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..reader.series import ScalarSeries, TensorSeries
from .downsample import minmax_downsample
from .sources import MultiLogdir

if TYPE_CHECKING:
    import pandas as pd

    from ..reader.logdir import ReloadResult

#: Problems listed in an index reply (``status`` counts them all).
MAX_PROBLEMS = 100
#: Widest card the kernel downsamples for; a larger ``width`` is clamped (bounds reply size).
MAX_WIDTH = 10_000


class RequestError(ValueError):
    """A page request the kernel cannot answer; the page gets it as an ``error`` reply."""


class Fields:
    """Typed access to a request's fields; a missing or mistyped field is a RequestError."""

    def __init__(self, content: dict[str, Any]) -> None:
        self.content = content

    def _get(self, name: str) -> Any:
        if name not in self.content:
            raise RequestError(f"{self.content.get('type')!r} request needs {name!r}")
        return self.content[name]

    def integer(self, name: str) -> int:
        value = self._get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RequestError(f"{name!r} must be an integer, got {value!r}")
        return value

    def string(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise RequestError(f"{name!r} must be a string, got {value!r}")
        return value

    def strings(self, name: str) -> list[str]:
        value = self._get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RequestError(f"{name!r} must be a list of strings, got {value!r}")
        return value

    def choice(self, name: str, options: tuple[str, ...], default: str) -> str:
        value = self.content.get(name, default)
        if value not in options:
            raise RequestError(f"{name!r} must be one of {list(options)}, got {value!r}")
        return value

    def bounds(self, name: str) -> list[float] | None:
        value = self.content.get(name)
        if value is None:
            return None
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                           for v in value)):
            raise RequestError(f"{name!r} must be null or [x0, x1] with finite numbers, got {value!r}")
        return [float(v) for v in value]

    def width(self, name: str) -> int:
        """Pixels: any positive number (a measured width is fractional), rounded up."""
        value = self._get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
            raise RequestError(f"{name!r} must be a positive number of pixels, got {value!r}")
        return math.ceil(value)


# -- filters (the same rules as TensorBoard's and the page's) --------------------------------------

def shown_runs(runs: Iterable[str], patterns: Sequence[str], hidden: Iterable[str]) -> list[str]:
    """Runs that fully match one of ``patterns`` and are not switched off in ``hidden``."""
    compiled = [re.compile(p) for p in patterns]
    off = set(hidden)
    return [r for r in runs if r not in off and any(c.fullmatch(r) for c in compiled)]


def tag_passes(tag: str, tag_filter: str) -> bool:
    """TensorBoard's tag filter: a case-insensitive search; an invalid regex filters nothing."""
    if not tag_filter:
        return True
    try:
        return re.search(tag_filter, tag, re.IGNORECASE) is not None
    except re.error:
        return True


def x_values(series: ScalarSeries | TensorSeries, axis: str, start_time: float | None) -> np.ndarray:
    """x of each point (or sampled step): the step, seconds since the run's first event, or
    epoch seconds."""
    if axis == "step":
        return series.step.astype(np.float64)
    if axis == "relative":
        if start_time is None:
            start_time = float(series.wall_time[0]) if len(series) else 0.0
        return series.wall_time - start_time
    if axis == "wall":
        return series.wall_time.copy()
    raise RequestError(f"unknown x_axis {axis!r}")


def _scalar_runs(source: MultiLogdir, tag: str, runs: Sequence[str]) -> list[str]:
    """The requested runs that hold ``tag`` as a scalar series; RequestError if none could.

    A tag unknown to the whole logdir, or never a scalar, is an error (the page asked for
    something that does not exist); a tag missing from some requested runs is normal.
    """
    plugins: dict[str, str] = {}
    for run in source.runs():
        try:
            plugins[run] = source.tags(run).get(tag, "")
        except KeyError:
            continue
    found = {p for p in plugins.values() if p}
    if not found:
        raise RequestError(f"unknown tag {tag!r}")
    if "scalars" not in found:
        raise RequestError(f"tag {tag!r} is a {'/'.join(sorted(found))} tag; series and downloads serve scalars")
    return [r for r in runs if plugins.get(r) == "scalars"]


def _read(source: MultiLogdir, run: str, tag: str) -> tuple[ScalarSeries, float | None] | None:
    try:
        return source.scalars(run, tag), source.run_start_time(run)
    except KeyError:
        return None


# -- replies ----------------------------------------------------------------------------------

def index_reply(source: MultiLogdir, colors: Mapping[str, str]) -> dict[str, Any]:
    """Runs (name, colour, start time) and tags (plugin, runs, points per run), sorted."""
    runs: list[dict[str, Any]] = []
    tags: dict[tuple[str, str], dict[str, Any]] = {}
    for run in source.runs():
        try:
            run_tags = source.tags(run)
            start = source.run_start_time(run)
            counts = {tag: source.point_count(run, tag) for tag in run_tags}
        except KeyError:
            continue
        runs.append({"name": run, "color": colors.get(run), "start_time": start})
        for tag, plugin in run_tags.items():
            entry = tags.setdefault((tag, plugin), {"tag": tag, "plugin": plugin, "runs": [], "points": {}})
            entry["runs"].append(run)
            entry["points"][run] = counts[tag]
    problems = source.problems
    listed = [f"{p.path} @ {p.offset}: {p.reason}" for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        listed.append(f"... and {len(problems) - MAX_PROBLEMS} more")
    return {"type": "index", "runs": runs, "tags": [tags[k] for k in sorted(tags)], "problems": listed}


def _in_range(x: np.ndarray, bounds: Sequence[float] | None) -> np.ndarray | None:
    """Indices of x within the closed range (either order), or None for no range."""
    if bounds is None:
        return None
    lo, hi = sorted(bounds)
    return np.flatnonzero((x >= lo) & (x <= hi))


def series_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str,
                   bounds: Sequence[float] | None, width: int) -> list[dict[str, Any]]:
    """One card's data: per run, the points of ``tag`` in range, min/max-downsampled to width.

    The range is closed (x0 <= x <= x1, either order). ``total`` counts the points in range;
    ``exact`` is True when all of them are sent (``total <= width``, or a little over). Each entry also carries
    the points' ``wall_time`` (for tooltips whatever the x axis).
    """
    width = min(int(width), MAX_WIDTH)
    entries = []
    for run in _scalar_runs(source, tag, runs):
        read = _read(source, run, tag)
        if read is None:
            continue
        series, start = read
        x = x_values(series, axis, start)
        y, step, wall = series.value, series.step, series.wall_time
        inside = _in_range(x, bounds)
        if inside is not None:
            x, y, step, wall = x[inside], y[inside], step[inside], wall[inside]
        # A bucket of two pixel columns keeps its min and max: about one point per pixel.
        keep = minmax_downsample(x, y, max(1, width // 2))
        exact = len(keep) == len(x)
        if not exact:
            x, y, step, wall = x[keep], y[keep], step[keep], wall[keep]
        entries.append({"run": run, "total": int(len(inside) if inside is not None else len(series)),
                        "sent": len(x), "exact": exact, "x": x.astype(np.float64),
                        "y": y.astype(np.float64), "step": step.astype(np.int64),
                        "wall_time": wall.astype(np.float64)})
    return entries


def _json_number(v: float) -> float | str:
    """TensorBoard's JSON downloads write non-finite values as "NaN", "Infinity", "-Infinity"."""
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


def download_text(source: MultiLogdir, tag: str, runs: Sequence[str], fmt: str) -> str:
    """Every point of ``tag`` for ``runs``, as TensorBoard's downloads plus a run column/key.

    CSV: ``Run,Wall time,Step,Value`` rows (TensorBoard's columns with the run first). JSON:
    ``{run: [[wall_time, step, value], ...]}`` (TensorBoard's per-run arrays, keyed by run).
    """
    data = {}
    for run in _scalar_runs(source, tag, runs):
        read = _read(source, run, tag)
        if read is not None:
            data[run] = read[0]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["Run", "Wall time", "Step", "Value"])
        for run, s in data.items():
            writer.writerows(zip([run] * len(s), map(repr, s.wall_time.tolist()), s.step.tolist(),
                                 map(repr, s.value.tolist())))
        return out.getvalue()
    if fmt == "json":
        return json.dumps({run: [[w, st, _json_number(v)] for w, st, v in
                                 zip(s.wall_time.tolist(), s.step.tolist(), s.value.tolist())]
                           for run, s in data.items()}, allow_nan=False)
    raise RequestError(f"unknown download format {fmt!r}")


def changed_reply(source: MultiLogdir, result: ReloadResult) -> dict[str, Any]:
    """The ``changed`` message for one reload.

    ``runs``: runs with new points, new tags or purged data (not removed runs); ``tags[run]``:
    the tags whose data changed (all of a purged run's tags); ``new_tags``: tags that appeared
    in some run, even if another run had them already (a tag's run list changed either way).
    """
    tags: dict[str, set[str]] = {}
    for run, tag in result.points:
        tags.setdefault(run, set()).add(tag)
    for run, new in result.new_tags.items():
        tags.setdefault(run, set()).update(new)
    for run in result.purged_runs:
        try:
            tags.setdefault(run, set()).update(source.tags(run))
        except KeyError:
            continue
    removed = set(result.removed_runs)
    runs = sorted((set(tags) | set(result.new_runs)) - removed)
    return {"type": "changed", "runs": runs, "tags": {r: sorted(tags.get(r, ())) for r in runs},
            "new_runs": sorted(set(result.new_runs) - removed),
            "new_tags": sorted({t for new in result.new_tags.values() for t in new}),
            "removed_runs": sorted(removed)}


# -- pushed replies ------------------------------------------------------------------------------

#: Requests the kernel answers again, from the poll thread, when their data changes.
PUSHED_TYPES = ("series", "histograms", "distributions")


def push_key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    """Which remembered request a newer one replaces (protocol.py, "Pushed replies").

    A series request replaces the one of the same tag and kind (whole range, or zoomed): runs and
    x axis are settings every card shares, and the width changes with every resize. Histogram
    and distribution cards are per run, so their requests are remembered per run list too.
    """
    kind, tag = content["type"], content["tag"]
    if kind == "series":
        return (kind, tag, content.get("range") is not None)
    return (kind, tag, tuple(content["runs"]))


def push_due(content: Mapping[str, Any], changed: Mapping[str, Any]) -> bool:
    """Whether the answer to a remembered request changed with a ``changed`` message: one of its
    runs has new data for its tag, or was removed."""
    tag, removed, tags = content["tag"], changed["removed_runs"], changed["tags"]
    return any(run in removed or tag in tags.get(run, ()) for run in content["runs"])


# -- totals and Board.view ------------------------------------------------------------------------

def totals(source: MultiLogdir) -> dict[str, int]:
    """Counts for the ``status`` trait: runs, distinct tags, points held, problems."""
    tags: set[str] = set()
    points = 0
    runs = source.runs()
    for run in runs:
        try:
            run_tags = source.tags(run)
            points += sum(source.point_count(run, tag) for tag in run_tags)
        except KeyError:
            continue
        tags.update(run_tags)
    return {"runs": len(runs), "tags": len(tags), "points": points, "problems": len(source.problems)}


def zoom_of(view_state: Mapping[str, Any], tag: str) -> list[float] | None:
    """The x range the page says the card of ``tag`` is zoomed to, or None (also if malformed)."""
    try:
        bounds = view_state["tags"][tag]["x"]
        lo, hi = (float(b) for b in bounds)
    except (KeyError, TypeError, ValueError):
        return None
    return [lo, hi] if math.isfinite(lo) and math.isfinite(hi) else None


def view_frame(source: MultiLogdir, *, patterns: Sequence[str], hidden: Iterable[str], tag_filter: str,
               view_state: Mapping[str, Any], x_axis: str) -> pd.DataFrame:
    """The scalar points on screen: shown runs, tags passing the filter, zoomed cards' ranges.

    Columns run, tag, step, wall_time, value (``Logdir.to_pandas``'s). A zoom range is on the
    axis the page recorded in ``view_state["x_axis"]``, else on the board's ``x_axis``.
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("Board.view returns a pandas DataFrame: install pandas "
                          "(`pip install pandas` or `pip install tbnb[pandas]`)") from None
    axis = view_state.get("x_axis") if isinstance(view_state, Mapping) else None
    axis = axis if axis in ("step", "relative", "wall") else x_axis
    frames = []
    for run in shown_runs(source.runs(), patterns, hidden):
        try:
            tags = [t for t, p in source.tags(run).items() if p == "scalars" and tag_passes(t, tag_filter)]
        except KeyError:
            continue
        for tag in tags:
            read = _read(source, run, tag)
            if read is None:
                continue
            s, start = read
            inside = _in_range(x_values(s, axis, start), zoom_of(view_state, tag))
            step, wall, value = (s.step, s.wall_time, s.value) if inside is None else (
                s.step[inside], s.wall_time[inside], s.value[inside])
            frames.append(pd.DataFrame({"run": run, "tag": tag, "step": step, "wall_time": wall, "value": value}))
    if not frames:
        return pd.DataFrame({"run": pd.Series(dtype=str), "tag": pd.Series(dtype=str),
                             "step": pd.Series(dtype=np.int64), "wall_time": pd.Series(dtype=float),
                             "value": pd.Series(dtype=float)})
    return pd.concat(frames, ignore_index=True)
