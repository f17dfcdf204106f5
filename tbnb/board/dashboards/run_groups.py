"""Run groups on the scalar cards: the settings (``run_groups``, ``group_line``, ``group_band``),
each group's line and band for a card, and the group rows of the data table under it.

A card's ``series`` and ``step_table`` requests carry the grouping in a ``groups`` field
(protocol.md); the scalars module answers the runs left alone as before and hands the groups
to this module. The statistics are computed over every point of every member, on the group's
common step grid (``tbnb.reader.logdir.run_groups`` has the rules), then cut to the requested range and
min/max-downsampled like any line: the line's, the band's lower and upper edges' extremes are
all kept, and a zoom gets the exact grid points of its range.

On the ``relative`` and ``wall`` axes a group point's x is the mean, over the members counted
at that step, of their (interpolated) time at that step.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import traitlets
from traitlets import Enum, TraitError, Unicode, Union, validate

from ...reader.logdir.group_frame import GroupSpec, resolve
from ...reader.logdir.run_groups import BANDS, LINES, GroupStats, aggregate, compile_pattern
from ...reader.runs.series import ScalarSeries
from ..downsample import minmax_downsample_many
from ..request import RequestError
from ..sources import MultiLogdir
from .common import start_time
from .step_table import at_step, compute, over_range


@dataclass(frozen=True)
class Grouping:
    """How a request groups its runs: by a regex or hparam names, with a line and a band."""

    by: GroupSpec
    line: str = "mean"
    band: str = "std"


def parse_grouping(content: Mapping[str, Any]) -> Grouping | None:
    """The request's ``groups`` field ({"by", "line", "band"}), checked; None when absent or
    grouping nothing."""
    field = content.get("groups")
    if field is None:
        return None
    if not isinstance(field, dict):
        raise RequestError(f"'groups' must be an object {{by, line, band}}, got {field!r}")
    by, line, band = field.get("by"), field.get("line", "mean"), field.get("band", "std")
    if line not in LINES:
        raise RequestError(f"groups.line must be one of {list(LINES)}, got {line!r}")
    if band not in BANDS:
        raise RequestError(f"groups.band must be one of {list(BANDS)}, got {band!r}")
    if isinstance(by, str):
        try:
            compile_pattern(by) if by else None
        except ValueError as err:
            raise RequestError(str(err)) from None
    elif not (by is None or (isinstance(by, list) and all(isinstance(n, str) for n in by))):
        raise RequestError(f"groups.by must be a regex or a list of hparam names, got {by!r}")
    if not by:
        return None
    return Grouping(by, line, band)


def split_runs(source: MultiLogdir, runs: Sequence[str], grouping: Grouping | None) -> tuple[list[str], dict[str, list[str]]]:
    """``(runs alone, {group: members})``; every run alone without a grouping."""
    if grouping is None:
        return list(runs), {}
    groups, alone = resolve(source, runs, grouping.by)
    return alone, groups


#: The x axes a group line is drawn on: its grid is the members' steps, so a step axis (linear or
#: log) places it exactly and a time axis by its members' interpolated times. A per-run shift
#: ("relative_step") or another tag's values have no one value per grid step across members.
GROUP_AXES = ("step", "log_step", "relative", "wall")


def group_stats(source: MultiLogdir, tag: str, members: Sequence[str], axis: str,
                median: bool = True) -> tuple[GroupStats, np.ndarray] | None:
    """A group's statistics of ``tag`` and its x on ``axis``; None if no member has points.
    ``median`` False leaves the median out (NaN): it costs a sort per grid step.
    RequestError for an axis a group line cannot be drawn on (``GROUP_AXES``)."""
    if axis not in GROUP_AXES:
        raise RequestError(f"run groups are drawn on the {', '.join(GROUP_AXES)} axes, not on {axis!r}")
    found, times = [], []
    for run, s in _member_series(source, tag, members):
        found.append((s.step, s.value))
        times.append(_member_x(source, run, s, "relative" if axis == "relative" else "wall"))
    if not found:
        return None
    stats, x = aggregate(found, median=median, extra=None if axis in ("step", "log_step") else times)
    if stats.step.size == 0:
        return None
    return stats, (stats.step.astype(np.float64) if x is None else x)


def _member_series(source: MultiLogdir, tag: str, members: Sequence[str]) -> list[tuple[str, ScalarSeries]]:
    """The members holding points of ``tag``, with their series."""
    out = []
    for run in members:
        try:
            s = source.scalars(run, tag)
        except KeyError:
            continue
        if len(s):
            out.append((run, s))
    return out


def _member_x(source: MultiLogdir, run: str, s: ScalarSeries, axis: str) -> np.ndarray:
    """A member's own x on ``axis`` (one of ``GROUP_AXES``): its steps, or its wall times, less
    its start time on ``relative`` (its first point's when the start is unknown)."""
    if axis in ("step", "log_step"):
        return s.step.astype(np.float64)
    start = start_time(source, run) if axis == "relative" else 0.0
    return s.wall_time - (start if start is not None else float(s.wall_time.min()))


def member_points(source: MultiLogdir, tag: str, members: Sequence[str], axis: str,
                  bounds: Sequence[float] | None) -> int:
    """How many of its members' points a group's line and band are computed from (those in
    ``bounds`` on ``axis`` when given): what a card counts as the points it draws from, as it
    counts a run's. The line itself has one point per grid step, far fewer."""
    count = 0
    for run, s in _member_series(source, tag, members):
        if bounds is None:
            count += len(s)
            continue
        lo, hi = sorted(bounds)
        x = _member_x(source, run, s, axis)
        count += int(np.count_nonzero((x >= lo) & (x <= hi)))
    return count


def group_entry(name: str, members: Sequence[str], stats: GroupStats, x: np.ndarray, grouping: Grouping,
                bounds: Sequence[float] | None, width: int, points: int = 0) -> dict[str, Any]:
    """One group of a ``series`` reply: its line, band edges, n and steps in range, downsampled;
    ``points``: its members' points in range (``member_points``)."""
    line = stats.line(grouping.line)
    band = stats.band(grouping.line, grouping.band)
    columns = {"x": x, "y": line, "step": stats.step, "n": stats.n}
    if band is not None:
        columns["lower"], columns["upper"] = band
    if bounds is not None:
        lo, hi = sorted(bounds)
        inside = np.flatnonzero((x >= lo) & (x <= hi))
        columns = {k: v[inside] for k, v in columns.items()}
    total = len(columns["x"])
    keep = minmax_downsample_many(columns["x"], [columns[k] for k in ("y", "lower", "upper") if k in columns],
                                  max(1, int(width) // 2))
    exact = len(keep) == total
    if not exact:
        columns = {k: v[keep] for k, v in columns.items()}
    out: dict[str, Any] = {"group": name, "members": list(members), "line": grouping.line, "band": grouping.band,
                           "total": total, "sent": len(columns["x"]), "exact": exact, "points": int(points)}
    for key, values in columns.items():
        out[key] = values.astype(np.int64 if key in ("step", "n") else np.float64)
    return out


def group_entries(source: MultiLogdir, tag: str, groups: Mapping[str, Sequence[str]], grouping: Grouping,
                  axis: str, bounds: Sequence[float] | None, width: int) -> list[dict[str, Any]]:
    """The ``groups`` of a ``series`` reply: one entry per group with points of ``tag``."""
    entries = []
    for name, members in groups.items():
        found = group_stats(source, tag, members, axis, median=grouping.line == "median")
        if found is not None:
            points = member_points(source, tag, members, axis, bounds)
            entries.append(group_entry(name, members, found[0], found[1], grouping, bounds, width, points))
    return entries


# -- the data table ----------------------------------------------------------------------------------

#: Columns the table gains with groups (NaN, n = 1, for a run alone): members counted, the
#: band's edges and its half-width (``none`` and ``minmax``: the standard deviation and half of
#: max - min), at the row's step, or their mean over the range's grid steps.
GROUP_COLUMNS = ("n", "lower", "upper", "spread")


def _spread(stats: GroupStats, grouping: Grouping) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    line = stats.line(grouping.line)
    if grouping.band == "minmax":
        return stats.min, stats.max, (stats.max - stats.min) / 2
    spread = stats.spread("std" if grouping.band == "none" else grouping.band)
    assert spread is not None
    return line - spread, line + spread, spread


def _group_rows(source: MultiLogdir, tag: str, groups: Mapping[str, Sequence[str]], grouping: Grouping
                ) -> list[tuple[str, ScalarSeries, float, GroupStats]]:
    """Per group with points: its line read as one run's series (x: mean wall time), its start
    time (the earliest member's) and its statistics."""
    rows = []
    for name, members in groups.items():
        found = group_stats(source, tag, members, "wall", median=grouping.line == "median")
        if found is None:
            continue
        stats, wall = found
        starts = [t for t in (start_time(source, r) for r in members) if t is not None]
        series = ScalarSeries(step=stats.step, wall_time=wall, value=stats.line(grouping.line))
        rows.append((name, series, min(starts) if starts else float(wall.min()), stats))
    return rows


def group_table(source: MultiLogdir, tag: str, alone: Sequence[str], groups: Mapping[str, Sequence[str]],
                grouping: Grouping, step: int | None, bounds: Sequence[int] | None, weight: float,
                ranged: bool) -> dict[str, Any]:
    """``step_table.compute``'s result for the runs alone with a row per group after them, and
    ``"groups"``: {group: members}.

    A group's row is its line read as one run's series (the closest grid step to the selected
    step, smoothed like a line; over a range the same summary columns as a run's), plus
    ``GROUP_COLUMNS``. With no step or range selected yet, the defaults span runs and groups.
    """
    rows = _group_rows(source, tag, groups, grouping)
    result = compute(source, tag, alone, step, bounds, weight, ranged)
    if not rows:
        return {**result, "groups": {}}
    first = min(int(s.step.min()) for _, s, _, _ in rows)
    last = max(int(s.step.max()) for _, s, _, _ in rows)
    if ranged and bounds is None:
        own = result["range"]
        bounds = [first, last] if own is None else [min(own[0], first), max(own[1], last)]
        if own != bounds:
            result = compute(source, tag, alone, None, bounds, weight, ranged)
    if not ranged and step is None:
        step = last if result["step"] is None else max(result["step"], last)
        if result["step"] != step:
            result = compute(source, tag, alone, step, None, weight, ranged)
    table = result["table"]
    series = [r[:3] for r in rows]
    assert bounds is not None or not ranged
    part = over_range(series, bounds, weight) if ranged else at_step(series, step, weight)  # type: ignore[arg-type]
    for name in GROUP_COLUMNS:
        table[name] = [1 if name == "n" else math.nan] * len(table["run"])
    for i, (_, _, _, stats) in enumerate(rows):
        lower, upper, spread = _spread(stats, grouping)
        if ranged:
            pick = np.flatnonzero((stats.step >= bounds[0]) & (stats.step <= bounds[1]))  # type: ignore[index]
            values = {"n": float(stats.n[pick].mean()) if pick.size else math.nan}
            for key, column in (("lower", lower), ("upper", upper), ("spread", spread)):
                values[key] = float(np.nanmean(column[pick])) if pick.size else math.nan
        else:
            at = int(np.flatnonzero(stats.step == part["step"][i])[-1])
            values = {"n": int(stats.n[at]), "lower": float(lower[at]), "upper": float(upper[at]),
                      "spread": float(spread[at])}
        for key, column in part.items():
            table[key].append(column[i])
        for key in GROUP_COLUMNS:
            table[key].append(values[key])
    return {**result, "step": None if ranged else step, "range": bounds if ranged else None, "table": table,
            "groups": {name: list(groups[name]) for name, *_ in rows}}


# -- settings ----------------------------------------------------------------------------------------

class GroupTraits(traitlets.HasTraits):
    """Run groups, synced with the page (``tbnb.reader.logdir.run_groups`` for the statistics).

    ``run_groups``: a regex with a named group ``group`` matched against whole run names
    (runs with the same ``group`` text are one line, runs it does not match stay alone), or a
    list of hparam names (runs with equal values form a group); None or "" groups nothing.
    ``group_line``: the group's line, one of ``mean``/``median``/``min``/``max``;
    ``group_band``: its band, ``none``/``minmax``/``std``/``stderr``/``ci95``.
    A base of the scalars dashboard's ``Traits``, so the Board's traits.
    """

    run_groups = Union([Unicode(), traitlets.List(Unicode())], default_value=None, allow_none=True).tag(sync=True)
    group_line = Enum(LINES, default_value="mean").tag(sync=True)
    group_band = Enum(BANDS, default_value="std").tag(sync=True)

    @validate("run_groups")
    def _check_run_groups(self, proposal: dict[str, Any]) -> str | list[str] | None:
        value = proposal["value"]
        if isinstance(value, str) and value:
            try:
                compile_pattern(value)
            except ValueError as err:
                raise TraitError(str(err)) from None
        return value

    def grouping(self) -> Grouping | None:
        """The current grouping, or None when off."""
        return Grouping(self.run_groups, self.group_line, self.group_band) if self.run_groups else None
