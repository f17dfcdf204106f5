"""The scalars dashboard (and the time series dashboard's scalar cards): a card's points,
min/max-downsampled to its width, the CSV/JSON downloads and the data table under each card
(protocol.md, ``series``, ``csv``, ``json``, ``step_table``); and the settings of step
selection and tooltips (``Traits``).

Scalars are never sampled in the kernel: every point is held and the page gets about one point
per pixel, asking again for the exact points when it zooms.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from traitlets import Bool, Dict, Enum, Int, List, TraitError, validate

from ...reader.runs.series import ScalarSeries
from ..codec import encode
from ..downsample import minmax_downsample
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import shown_runs
from .run_groups import GroupTraits, group_entries, group_table, parse_grouping, split_runs
from .scalar_axes import bucket_x, check_tag_axis, parse_axis, series_x
from .scalar_best import CompareTraits, best_fields, best_point, parse_best
from .step_table import compute, parse_request, reply, to_frame

#: Widest card the kernel downsamples for; a larger ``width`` is clamped (bounds reply size).
MAX_WIDTH = 10_000


def scalar_runs(source: MultiLogdir, tag: str, runs: Sequence[str]) -> list[str]:
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
        raise RequestError(f"tag {tag!r} is a {'/'.join(sorted(found))} tag; series, downloads and step tables serve scalars")
    return [r for r in runs if plugins.get(r) == "scalars"]


def read(source: MultiLogdir, run: str, tag: str) -> tuple[ScalarSeries, float | None] | None:
    """A run's scalar series of ``tag`` and the run's start time; None if the run went away."""
    try:
        return source.scalars(run, tag), source.run_start_time(run)
    except KeyError:
        return None


def in_range(x: np.ndarray, bounds: Sequence[float] | None) -> np.ndarray | None:
    """Indices of x within the closed range (either order), or None for no range."""
    if bounds is None:
        return None
    lo, hi = sorted(bounds)
    return np.flatnonzero((x >= lo) & (x <= hi))


def series_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str,
                   bounds: Sequence[float] | None, width: int, best: str | None = None) -> list[dict[str, Any]]:
    """One card's data: per run, the points of ``tag`` in range, min/max-downsampled to width.

    The range is closed (x0 <= x <= x1, either order). ``total`` counts the points in range;
    ``exact`` is True when all of them are sent (``total <= width``, or a little over). Each entry also carries
    the points' ``wall_time`` (for tooltips whatever the x axis), the run's ``best`` point over
    all its points (scalar_best.py) and ``dropped``, the points with no x on this axis
    (scalar_axes.py). A run without an x tag it needs is left out (``absent_runs`` names it).
    """
    width = min(int(width), MAX_WIDTH)
    entries = []
    for run in scalar_runs(source, tag, runs):
        found = read(source, run, tag)
        if found is None:
            continue
        series, start = found
        placed = series_x(source, run, series, axis, start)
        if placed is None:
            continue
        x, drawable = placed
        best_entry = best_fields(series, best, x, drawable)
        y, step, wall = series.value, series.step, series.wall_time
        if drawable is not None:
            x, y, step, wall = x[drawable], y[drawable], step[drawable], wall[drawable]
        inside = in_range(x, bounds)
        if inside is not None:
            x, y, step, wall = x[inside], y[inside], step[inside], wall[inside]
        total = len(x)
        # A bucket of two pixel columns keeps its min and max: about one point per pixel.
        keep = minmax_downsample(bucket_x(x, axis), y, max(1, width // 2))
        exact = len(keep) == len(x)
        if not exact:
            x, y, step, wall = x[keep], y[keep], step[keep], wall[keep]
        entries.append({"run": run, "total": total,
                        "sent": len(x), "exact": exact, "x": x.astype(np.float64),
                        "y": y.astype(np.float64), "step": step.astype(np.int64),
                        "wall_time": wall.astype(np.float64),
                        "dropped": 0 if drawable is None else len(series) - len(drawable), **best_entry})
    return entries


def absent_runs(source: MultiLogdir, tag: str, runs: Sequence[str], entries: Sequence[dict[str, Any]]) -> list[str]:
    """The requested runs holding ``tag`` that have no entry (no x on a tag axis)."""
    have = {e["run"] for e in entries}
    return [r for r in scalar_runs(source, tag, runs) if r not in have]


def _json_number(v: float) -> float | str:
    """TensorBoard's JSON downloads write non-finite values as "NaN", "Infinity", "-Infinity"."""
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


#: First characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(text: str) -> str:
    """A text cell of a CSV download (a run name) that a spreadsheet shows as text: a leading
    apostrophe where it would start a formula. Only text cells: numbers, negative ones
    included, are written as numbers."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def download_text(source: MultiLogdir, tag: str, runs: Sequence[str], fmt: str, best: str | None = None) -> str:
    """Every point of ``tag`` for ``runs``, as TensorBoard's downloads plus a run column/key.

    CSV: ``Run,Wall time,Step,Value`` rows (TensorBoard's columns with the run first), and with
    ``best`` ("min"/"max") two more, ``Best,Best step``: the run's best point (scalar_best.py). JSON:
    ``{run: [[wall_time, step, value], ...]}`` (TensorBoard's per-run arrays, keyed by run).
    """
    data = {}
    for run in scalar_runs(source, tag, runs):
        found = read(source, run, tag)
        if found is not None:
            data[run] = found[0]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["Run", "Wall time", "Step", "Value"] + (["Best", "Best step"] if best else []))
        for run, s in data.items():
            rows = zip([text_cell(run)] * len(s), map(repr, s.wall_time.tolist()), s.step.tolist(),
                       map(repr, s.value.tolist()))
            if best:
                point = best_point(s, best)
                extra = [repr(point.value), point.step] if point else ["", ""]
                rows = (row + tuple(extra) for row in rows)
            writer.writerows(rows)
        return out.getvalue()
    if fmt == "json":
        return json.dumps({run: [[w, st, _json_number(v)] for w, st, v in
                                 zip(s.wall_time.tolist(), s.step.tolist(), s.value.tolist())]
                           for run, s in data.items()}, allow_nan=False)
    raise RequestError(f"unknown download format {fmt!r}")


# -- requests ----------------------------------------------------------------------------------------

def answer_series(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``series``: one card's points (protocol.md)."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    axis, best = parse_axis(content, settings.x_axis), parse_best(content)
    check_tag_axis(source, axis)
    bounds, width = req.bounds("range"), req.width("width")
    grouping = parse_grouping(content)
    alone, groups = split_runs(source, scalar_runs(source, tag, runs) if grouping else runs, grouping)
    entries = series_entries(source, tag, alone, axis, bounds, width, best)
    reply = {"type": "series", "id": request_id, "tag": tag, "x_axis": axis, "best": best,
             "range": content.get("range"), "series": entries,
             "absent": absent_runs(source, tag, alone, entries)}
    if grouping is not None:
        reply["groups"] = group_entries(source, tag, groups, grouping, axis, bounds, width)
    return encode(reply)


def answer_download(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``csv`` / ``json``: a card's every point as download text."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    fmt = content["type"]
    text = download_text(source, tag, runs, fmt, parse_best(content))
    return {"type": "download", "id": request_id, "tag": tag, "format": fmt, "text": text}, []


def push_key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    """A series request replaces the one of the same tag and kind (whole range, or zoomed): runs
    and x axis are settings every card shares, and the width changes with every resize."""
    return (content["type"], content["tag"], content.get("range") is not None)


def answer_step_table(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``step_table``: the data table under one card (protocol.md, dashboards/step_table.py)."""
    req = parse_request(content)
    grouping = parse_grouping(content)
    alone, groups = split_runs(source, scalar_runs(source, req["tag"], req["runs"]), grouping)
    if grouping is None:
        return reply(req, compute(source, req["tag"], alone, req["step"], req["range"], req["smoothing"], req["ranged"]))
    result = group_table(source, req["tag"], alone, groups, grouping, req["step"], req["range"], req["smoothing"],
                         req["ranged"])
    message, buffers = reply(req, result)
    return {**message, "groups": result["groups"]}, buffers


def table_key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    """A card's step table replaces its previous one (any step, range or smoothing)."""
    return (content["type"], content["tag"])


REQUESTS: dict[str, Handler] = {"series": answer_series, "csv": answer_download, "json": answer_download,
                                "step_table": answer_step_table}
PUSHED: dict[str, PushKey] = {"series": push_key, "step_table": table_key}

#: TensorBoard's tooltip sorting methods ("nearest": nearest pixel first).
TOOLTIP_SORTS = ("default", "ascending", "descending", "nearest")


class Traits(GroupTraits, CompareTraits):
    """Step selection, range selection and tooltips: TensorBoard's scalar settings, synced.

    ``selected_step`` None puts each card's marker at its largest step (TensorBoard's start);
    ``selected_range`` None, with ``range_selection`` on, spans each card's steps. With
    ``link_step`` off, a marker dragged on one card moves that card only: its selection is
    kept in ``card_steps`` ({tag: {"step": int | None, "range": [lo, hi] | None}}).
    """

    step_selection = Bool(True).tag(sync=True)
    selected_step = Int(None, allow_none=True).tag(sync=True)
    range_selection = Bool(False).tag(sync=True)
    selected_range = List(Int(), default_value=None, allow_none=True, minlen=2, maxlen=2).tag(sync=True)
    link_step = Bool(True).tag(sync=True)
    card_steps = Dict().tag(sync=True)
    tooltip_sort = Enum(TOOLTIP_SORTS, default_value="default").tag(sync=True)
    tooltip_rows = Int(0, min=0).tag(sync=True)

    @validate("selected_range")
    def _order_range(self, proposal: dict[str, Any]) -> list[int] | None:
        value = proposal["value"]
        return None if value is None else sorted(int(v) for v in value)

    @validate("card_steps")
    def _check_card_steps(self, proposal: dict[str, Any]) -> dict[str, Any]:
        value = dict(proposal["value"])
        for tag, entry in value.items():
            step = entry.get("step") if isinstance(entry, dict) else "?"
            bounds = entry.get("range") if isinstance(entry, dict) else "?"
            good_step = step is None or (isinstance(step, int) and not isinstance(step, bool))
            good_range = bounds is None or (isinstance(bounds, list) and len(bounds) == 2
                                            and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds))
            if not (good_step and good_range):
                raise TraitError(f"card_steps[{tag!r}] must be {{'step': int | None, 'range': [lo, hi] | None}}, "
                                 f"got {entry!r}")
        return value

    def card_selection(self, tag: str) -> tuple[int | None, list[int] | None]:
        """The step and range the card of ``tag`` uses: its own when unlinked, else the board's."""
        own = self.card_steps.get(tag) if not self.link_step else None
        if own is not None:
            return own.get("step"), own.get("range")
        return self.selected_step, self.selected_range

    def step_table(self, tag: str) -> Any:
        """The data table under the scalar card of ``tag``, as a pandas DataFrame.

        One row per shown run holding the tag (``runs`` regexes, minus ``hidden_runs`` and ``hidden_patterns``). At the
        selected step: run, step, value, smoothed, relative (seconds since the run's first
        event), wall (epoch seconds) of each run's closest point. With ``range_selection``:
        run, start_step, end_step, start, end, change, percent_change, raw_change, min, max,
        mean, step_at_min, step_at_max, points (and the start/end points' times). Exact values
        from the full series; the closest-point rule and the columns' meanings are in
        ``tbnb.board.dashboards.step_table``. With ``run_groups`` on, a row per group (its
        line as one run's series) with n, lower, upper and spread (``dashboards.run_groups``).
        ValueError for a tag that is not a scalar tag.
        """
        source: Any = self.logdir
        runs = scalar_runs(source, tag, shown_runs(source.runs(), self.runs, self.hidden_runs, self.hidden_patterns))
        step, bounds = self.card_selection(tag)
        grouping = self.grouping()
        alone, groups = split_runs(source, runs, grouping)
        weight, ranged = float(self.smoothing), self.range_selection
        result = (compute(source, tag, alone, step, bounds, weight, ranged) if grouping is None
                  else group_table(source, tag, alone, groups, grouping, step, bounds, weight, ranged))
        return to_frame(result["table"])
