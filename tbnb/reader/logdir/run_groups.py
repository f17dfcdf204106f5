"""Run groups: runs that differ only by their seed drawn as one line with a spread band.

Pure numpy (no widget code): the Board's scalar cards, its step table and
``Logdir.to_pandas(groups=...)`` all aggregate with these functions, so the page, the table
and the DataFrame give the same numbers.

Which runs form a group (``group_runs``): a regular expression with a named group ``group``
that matches a run's *whole* name (a full match, as the Board's ``runs`` patterns; RE2's syntax
and linear time: user_regex.py);
runs with the same text in ``group`` form one group, and a run the pattern does not match
stays alone. Or a list of hparam names: runs with equal values of all of them form a group
(``hparam_groups``), a run without hparams stays alone.

The common step grid (``on_grid``, ``aggregate``): the union of every member's steps. At a
grid step a member counts when the step lies inside its own range of steps (first to last
finite point); its value there is its own point's value at one of its steps, else the linear
interpolation between its two neighbouring points. Outside its range a member does not count
(no extrapolation), so ``n`` varies along the line. A member with a gap of steps is bridged by
interpolation across it. Where a member logged one step twice, the last point written counts.

Non-finite values (NaN, +inf, -inf) never enter the statistics: such a point is left out of
its member's series before interpolation, as if not logged (the smoothed lines also leave them
out). A grid step is a step some member has a finite value at, so ``n >= 1`` everywhere.

Statistics at each grid step over the members that count: mean, median, min, max, ``std``
(the sample standard deviation, ``ddof=1``, as pandas; NaN where ``n == 1``) and ``n``.
Bands: ``minmax`` spans min to max; ``std``, ``stderr`` (= std / sqrt(n)) and ``ci95``
(Student's t 97.5 % quantile with n - 1 degrees of freedom times the standard error) are
centred on the group line (whichever statistic it is), and collapse onto the line where
``n == 1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..user_regex import PatternError, Regex, compile_regex

#: What a group line can be, and what its band can show.
LINES = ("mean", "median", "min", "max")
BANDS = ("none", "minmax", "std", "stderr", "ci95")

#: Student's t 97.5 % quantiles for 1..30 degrees of freedom (beyond: the Cornish-Fisher
#: expansion below, within 1e-4 of the exact quantile from 30 degrees of freedom on).
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
         2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
         2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)
_Z975 = 1.959963984540054


def t975(df: np.ndarray) -> np.ndarray:
    """Student's t 97.5 % quantile for each number of degrees of freedom (NaN for df < 1)."""
    df = np.asarray(df, dtype=np.float64)
    out = np.full(df.shape, np.nan)
    table = np.asarray(_T975)
    small = (df >= 1) & (df <= len(_T975))
    out[small] = table[df[small].astype(np.int64) - 1]
    big = df > len(_T975)
    z, d = _Z975, df[big]
    out[big] = z + (z ** 3 + z) / (4 * d) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * d ** 2)
    return out


# -- which runs form a group -------------------------------------------------------------------------

def compile_pattern(pattern: str) -> Regex:
    """The grouping regex, checked: ValueError if RE2 does not compile it or it has no group ``group``."""
    try:
        compiled = compile_regex(pattern)
    except PatternError as err:
        raise ValueError(f"run_groups: {err}") from None
    if "group" not in compiled.groupindex:
        raise ValueError(f"run_groups: {pattern!r} has no named group 'group' (write (?P<group>...))")
    return compiled


def group_runs(runs: Iterable[str], pattern: str | None) -> tuple[dict[str, list[str]], list[str]]:
    """``({group: [member runs]}, [runs alone])`` by the regex ``pattern`` (module docstring).

    Groups in the order of their first member, members in ``runs`` order. A run whose match
    leaves ``group`` unset (an optional group) stays alone. None or "" groups nothing.
    """
    runs = list(runs)
    if not pattern:
        return {}, runs
    compiled = compile_pattern(pattern)
    groups: dict[str, list[str]] = {}
    alone: list[str] = []
    for run in runs:
        match = compiled.fullmatch(run)
        name = match.group("group") if match else None
        if name is None:
            alone.append(run)
        else:
            groups.setdefault(name, []).append(run)
    return groups, alone


def hparam_groups(runs: Iterable[str], values: Mapping[str, Mapping[str, object]],
                  names: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Groups of ``runs`` with equal values of the hparams ``names`` (``values``: run -> its
    hparams). The group is named ``"lr=0.1, depth=3"``; a run missing any of them stays alone."""
    groups: dict[str, list[str]] = {}
    alone: list[str] = []
    for run in runs:
        mine = values.get(run, {})
        if not names or any(n not in mine for n in names):
            alone.append(run)
            continue
        groups.setdefault(", ".join(f"{n}={mine[n]}" for n in names), []).append(run)
    return groups, alone


# -- one group's statistics --------------------------------------------------------------------------

@dataclass(frozen=True)
class GroupStats:
    """A group's statistics on its step grid (module docstring); every array has one entry per step."""

    step: np.ndarray  # int64, ascending
    n: np.ndarray  # int64, members counted at each step
    mean: np.ndarray
    std: np.ndarray
    min: np.ndarray
    max: np.ndarray
    median: np.ndarray

    def line(self, kind: str) -> np.ndarray:
        """The group line: one of ``LINES``."""
        if kind not in LINES:
            raise ValueError(f"group_line must be one of {list(LINES)}, got {kind!r}")
        return getattr(self, kind)

    def spread(self, band: str) -> np.ndarray | None:
        """Half the width of a band centred on the line (0 where n == 1); None for
        ``none``/``minmax``, which are not centred."""
        if band not in BANDS:
            raise ValueError(f"group_band must be one of {list(BANDS)}, got {band!r}")
        if band in ("none", "minmax"):
            return None
        std = np.where(self.n > 1, self.std, 0.0)
        if band == "std":
            return std
        stderr = std / np.sqrt(np.maximum(self.n, 1))
        return stderr if band == "stderr" else np.where(self.n > 1, t975(self.n - 1), 0.0) * stderr

    def band(self, line: str, band: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(lower, upper)`` of the band around the line ``line``; None for ``none``."""
        if band == "minmax":
            return self.min, self.max
        spread = self.spread(band)
        if spread is None:
            return None
        centre = self.line(line)
        return centre - spread, centre + spread


def _clean(step: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A member's finite points in step order, the last written of a repeated step."""
    step = np.asarray(step, dtype=np.int64)
    value = np.asarray(value, dtype=np.float64)
    if step.size > 1 and np.any(step[1:] <= step[:-1]):
        order = np.argsort(step, kind="stable")
        step, value = step[order], value[order]
        last = np.append(step[1:] != step[:-1], True)
        step, value = step[last], value[last]
    finite = np.isfinite(value)
    if not finite.all():
        step, value = step[finite], value[finite]
    return step, value


def common_grid(members: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The union of the members' steps (each ``(step, value)`` as ``_clean`` left it)."""
    steps = [s for s, _ in members]
    if not steps:
        return np.empty(0, dtype=np.int64)
    first = steps[0]
    if all(s.shape == first.shape and np.array_equal(s, first) for s in steps[1:]):
        return first
    return np.unique(np.concatenate(steps))


def on_grid(grid: np.ndarray, step: np.ndarray, value: np.ndarray) -> np.ndarray:
    """A member's values at ``grid`` (finite points in step order): its own, interpolated
    inside its range, NaN outside it."""
    if step.size == 0:
        return np.full(grid.shape, np.nan)
    if step.shape == grid.shape and np.array_equal(step, grid):
        return value
    return np.interp(grid.astype(np.float64), step.astype(np.float64), value, left=np.nan, right=np.nan)


def _stats(grid: np.ndarray, matrix: np.ndarray, median: bool) -> GroupStats:
    """Statistics over the rows of ``matrix`` (members x grid; NaN: member not counted)."""
    present = ~np.isnan(matrix)
    if present.all():
        n = np.full(grid.shape, matrix.shape[0], dtype=np.int64)
        total = matrix.sum(axis=0)
        lo, hi = matrix.min(axis=0), matrix.max(axis=0)
        mid = np.median(matrix, axis=0) if median else np.full(grid.shape, np.nan)
    else:
        n = present.sum(axis=0).astype(np.int64)
        filled = np.where(present, matrix, 0.0)
        total = filled.sum(axis=0)
        lo = np.where(present, matrix, np.inf).min(axis=0)
        hi = np.where(present, matrix, -np.inf).max(axis=0)
        mid = np.nanmedian(matrix, axis=0) if median else np.full(grid.shape, np.nan)
    mean = total / n
    deviation = matrix - mean if n.min() == matrix.shape[0] else np.where(present, matrix - mean, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        std = np.where(n > 1, np.sqrt((deviation ** 2).sum(axis=0) / np.maximum(n - 1, 1)), np.nan)
    return GroupStats(step=grid, n=n, mean=mean, std=std, min=lo, max=hi, median=mid)


def aggregate(members: Sequence[tuple[np.ndarray, np.ndarray]], median: bool = True,
              extra: Sequence[np.ndarray] | None = None) -> tuple[GroupStats, np.ndarray | None]:
    """A group's statistics from its members' ``(step, value)`` series (module docstring).

    ``median`` False skips the median (NaN), the one costly statistic. ``extra``, one array
    per member aligned with its points (e.g. wall times), is interpolated like the values and
    averaged over the members counted at each grid step: the group's x on a time axis.
    """
    cleaned, extras = [], []
    for i, (step, value) in enumerate(members):
        step = np.asarray(step, dtype=np.int64)
        value = np.asarray(value, dtype=np.float64)
        if extra is not None:
            # The extra rides along: mark non-finite values so both drop the same points.
            order_step, order_extra = _clean(step, np.where(np.isfinite(value), np.asarray(extra[i], np.float64), np.nan))
            extras.append((order_step, order_extra))
        cleaned.append(_clean(step, value))
    grid = common_grid(cleaned)
    if grid.size == 0:
        empty = np.empty(0)
        return GroupStats(grid, np.empty(0, np.int64), empty, empty, empty, empty, empty), (empty if extra is not None else None)
    matrix = np.vstack([on_grid(grid, s, v) for s, v in cleaned])
    stats = _stats(grid, matrix, median)
    if extra is None:
        return stats, None
    xs = np.vstack([on_grid(grid, s, v) for s, v in extras])
    present = ~np.isnan(xs)
    x = np.where(present, xs, 0.0).sum(axis=0) / np.maximum(present.sum(axis=0), 1)
    return stats, x

