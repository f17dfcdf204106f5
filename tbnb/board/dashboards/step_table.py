"""The data table under a scalar card: every run's point at the selected step, or its summary
over a selected range of steps (TensorBoard 2.x's step selection and range selection).

Computed from the kernel's full-resolution series, never from the points a chart draws: the
page's lines are min/max-downsampled, the table's values are exact. Smoothed values use the
page's smoothing (smoothing.py, TensorBoard's debiased EMA) over the whole series.

The closest point (TensorBoard's ``findClosestIndex`` in
``tensorboard/webapp/widgets/line_chart_v2/sub_view/line_chart_interactive_utils.ts``, used by
``scalar_card_data_table.ts``): over the points sorted by step, ``right`` is the insertion point
after every step <= the target (d3's ``bisectRight``), clamped to the last point, ``left`` the
point before it; ``left`` wins when it is at least as close. So: the point at the target step
(the last of several at that step), else the closest step, a tie going to the earlier step, and
a target beyond either end giving the end point. The reader's series are in step order; should
one not be (a restart read without purging), the same rule is applied by distance: the closest
step, ties to the earlier step, the last point written among equal steps.

Range columns (TensorBoard's choices; "start"/"end" are the closest points to the range's
bounds by the rule above): ``start``, ``end``, ``change`` (= end - start), ``percent_change``,
``min``, ``max``, ``step_at_min``, ``step_at_max`` are of the smoothed values, as TensorBoard's
table shows them; ``mean`` and ``raw_change`` of the raw values. Unlike TensorBoard, which takes
the points between the two closest points, ``min``/``max``/``mean`` use every point whose step
lies in ``[lo, hi]`` (``points`` counts them; none: NaN), NaN values left out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...reader.runs.series import ScalarSeries
from ..codec import encode
from ..request import Fields, Reply, RequestError
from ..smoothing import clamp_weight, smooth, smoothed_at

if TYPE_CHECKING:
    import pandas as pd

#: The columns of a table at one step, and over a range (the DataFrame's, after "run").
STEP_COLUMNS = ("step", "value", "smoothed", "relative", "wall")
RANGE_COLUMNS = ("start_step", "end_step", "start", "end", "change", "percent_change", "raw_change",
                 "min", "max", "mean", "step_at_min", "step_at_max", "points",
                 "start_relative", "end_relative", "start_wall", "end_wall")
_INT_COLUMNS = {"step", "start_step", "end_step", "step_at_min", "step_at_max", "points"}


class ScalarSource(Protocol):
    """What the table reads: a MultiLogdir or a reader Logdir."""

    def runs(self) -> list[str]: ...
    def tags(self, run: str) -> dict[str, str]: ...
    def scalars(self, run: str, tag: str) -> ScalarSeries: ...
    def run_start_time(self, run: str) -> float | None: ...


def closest_index(steps: np.ndarray, target: int) -> int:
    """The index of the point shown for ``target`` (module docstring); -1 for no points."""
    n = len(steps)
    if n == 0:
        return -1
    if n == 1 or bool(np.all(steps[1:] >= steps[:-1])):
        right = min(int(np.searchsorted(steps, target, side="right")), n - 1)
        left = max(0, right - 1)
        return left if abs(int(steps[left]) - target) <= abs(int(steps[right]) - target) else right
    distance = np.abs(steps.astype(np.int64) - target)
    best = np.flatnonzero(distance == distance.min())
    earliest = steps[best].min()
    return int(best[steps[best] == earliest][-1])


def _series(source: ScalarSource, tag: str, runs: Sequence[str]) -> list[tuple[str, ScalarSeries, float]]:
    """(run, series, start time) of ``runs`` (which hold ``tag`` as scalars) with points of it (a
    run removed meanwhile, or with no points, is left out)."""
    out = []
    for run in runs:
        try:
            s, start = source.scalars(run, tag), source.run_start_time(run)
        except KeyError:
            continue
        if len(s):
            out.append((run, s, float(start) if start is not None else float(s.wall_time.min())))
    return out


def default_step(all_series: Iterable[tuple[str, ScalarSeries, float]]) -> int | None:
    """Where TensorBoard puts a card's marker before the user moves it: its largest step."""
    steps = [int(s.step.max()) for _, s, _ in all_series]
    return max(steps) if steps else None


def default_range(all_series: Sequence[tuple[str, ScalarSeries, float]]) -> list[int] | None:
    """A range selection's start before the user moves it: the card's first to last step."""
    if not all_series:
        return None
    return [min(int(s.step.min()) for _, s, _ in all_series), max(int(s.step.max()) for _, s, _ in all_series)]


def _empty(names: Sequence[str]) -> dict[str, Any]:
    return {"run": [], **{c: [] for c in names}}


def at_step(all_series: Sequence[tuple[str, ScalarSeries, float]], step: int, weight: float) -> dict[str, Any]:
    """Columns of the table at ``step``: per run, its closest point."""
    table = _empty(STEP_COLUMNS)
    for run, s, start in all_series:
        i = closest_index(s.step, step)
        wall = float(s.wall_time[i])
        table["run"].append(run)
        table["step"].append(int(s.step[i]))
        table["value"].append(float(s.value[i]))
        table["smoothed"].append(smoothed_at(s.value, weight, i))
        table["relative"].append(wall - start)
        table["wall"].append(wall)
    return table


def _nan_extreme(values: np.ndarray, steps: np.ndarray, pick: Any) -> tuple[float, int | None]:
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan, None
    i = int(pick(np.where(keep, values, np.nan)))
    return float(values[i]), int(steps[i])


def over_range(all_series: Sequence[tuple[str, ScalarSeries, float]], bounds: Sequence[int],
               weight: float) -> dict[str, Any]:
    """Columns of the table over the steps ``[lo, hi]`` (either order): per run, see the
    module docstring."""
    lo, hi = sorted(int(b) for b in bounds)
    table = _empty(RANGE_COLUMNS)
    for run, s, start in all_series:
        a, b = closest_index(s.step, lo), closest_index(s.step, hi)
        inside = np.flatnonzero((s.step >= lo) & (s.step <= hi))
        last = max(a, b, int(inside[-1]) if inside.size else 0)
        smoothed = smooth(s.value, weight, upto=last + 1)
        first_y, last_y = float(smoothed[a]), float(smoothed[b])
        lo_y, lo_step = _nan_extreme(smoothed[inside], s.step[inside], np.nanargmin)
        hi_y, hi_step = _nan_extreme(smoothed[inside], s.step[inside], np.nanargmax)
        raw = s.value[inside]
        raw = raw[~np.isnan(raw)]
        change = last_y - first_y
        row = {"start_step": int(s.step[a]), "end_step": int(s.step[b]), "start": first_y, "end": last_y,
               "change": change, "percent_change": change / first_y if first_y != 0 else math.nan,
               "raw_change": float(s.value[b]) - float(s.value[a]), "min": lo_y, "max": hi_y,
               "mean": float(raw.mean()) if raw.size else math.nan, "step_at_min": lo_step,
               "step_at_max": hi_step, "points": int(inside.size),
               "start_relative": float(s.wall_time[a]) - start, "end_relative": float(s.wall_time[b]) - start,
               "start_wall": float(s.wall_time[a]), "end_wall": float(s.wall_time[b])}
        table["run"].append(run)
        for name in RANGE_COLUMNS:
            table[name].append(row[name])
    return table


def compute(source: ScalarSource, tag: str, runs: Sequence[str], step: int | None,
            bounds: Sequence[int] | None, weight: float, ranged: bool) -> dict[str, Any]:
    """The table of ``tag`` for ``runs`` (those holding it as scalars, the caller checked):
    ``{"mode", "step", "range", "table"}``.

    ``step`` None: the card's largest step (TensorBoard's first place for the marker);
    ``ranged`` with ``bounds`` None: the card's whole range of steps.
    """
    all_series = _series(source, tag, runs)
    weight = clamp_weight(weight)
    if ranged:
        bounds = sorted(int(b) for b in bounds) if bounds is not None else default_range(all_series)
        table = over_range(all_series, bounds, weight) if bounds is not None else _empty(RANGE_COLUMNS)
        return {"mode": "range", "step": None, "range": bounds, "table": table}
    step = int(step) if step is not None else default_step(all_series)
    table = at_step(all_series, step, weight) if step is not None else _empty(STEP_COLUMNS)
    return {"mode": "step", "step": step, "range": None, "table": table}


def to_arrays(table: dict[str, Any]) -> dict[str, Any]:
    """The table's columns as arrays for the wire (int64 steps; a missing step is -1 with the
    value column NaN beside it, so the page knows)."""
    out: dict[str, Any] = {"run": list(table["run"])}
    for name, values in table.items():
        if name == "run":
            continue
        if name in _INT_COLUMNS:
            out[name] = np.asarray([-1 if v is None else v for v in values], dtype=np.int64)
        else:
            out[name] = np.asarray(values, dtype=np.float64)
    return out


def to_frame(table: dict[str, Any]) -> pd.DataFrame:
    """The table as a pandas DataFrame (a missing step is <NA>)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("Board.step_table returns a pandas DataFrame: install pandas "
                          "(`pip install pandas` or `pip install tbnb[pandas]`)") from None
    columns: dict[str, Any] = {"run": pd.Series(table["run"], dtype=str)}
    for name, values in table.items():
        if name != "run":
            columns[name] = pd.Series(values, dtype="Int64" if name in _INT_COLUMNS else float)
    return pd.DataFrame(columns)


# -- the request -------------------------------------------------------------------------------------

def _optional_int(content: dict[str, Any], name: str) -> int | None:
    value = content.get(name)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RequestError(f"{name!r} must be null or an integer step, got {value!r}")
    return value


def _optional_steps(content: dict[str, Any], name: str) -> list[int] | None:
    value = content.get(name)
    if value is None:
        return None
    steps = [_optional_int({name: v}, name) for v in value] if isinstance(value, list) and len(value) == 2 else None
    if steps is None or None in steps:
        raise RequestError(f"{name!r} must be null or [lo, hi] steps, got {value!r}")
    return sorted(steps)


def parse_request(content: dict[str, Any]) -> dict[str, Any]:
    """A ``step_table`` request's fields, checked (protocol.md); RequestError if malformed."""
    req = Fields(content)
    parsed = {"id": req.integer("id"), "tag": req.string("tag"), "runs": req.strings("runs"),
              "step": _optional_int(content, "step"), "range": _optional_steps(content, "range")}
    ranged = content.get("ranged", parsed["range"] is not None)
    if not isinstance(ranged, bool):
        raise RequestError(f"'ranged' must be true or false, got {ranged!r}")
    weight = content.get("smoothing", 0.0)
    if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not math.isfinite(weight):
        raise RequestError(f"'smoothing' must be a number, got {weight!r}")
    return {**parsed, "ranged": ranged, "smoothing": clamp_weight(float(weight))}


def reply(request: dict[str, Any], result: dict[str, Any]) -> Reply:
    """The ``step_table`` reply to a parsed request, from ``compute``'s result."""
    return encode({"type": "step_table", "id": request["id"], "tag": request["tag"], "mode": result["mode"],
                   "step": result["step"], "range": result["range"], "smoothing": request["smoothing"],
                   "columns": to_arrays(result["table"])})
