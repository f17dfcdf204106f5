"""The first read of many small runs of TF1 scalars, their series built all at once.

``batch_reload`` frames and decodes a sweep's files together but applied each run's rows one
run and one series at a time (``BulkBatch``, then ``RunData.flush``): a few dozen numpy calls
on arrays of a few dozen points per series, which was most of the load of a sweep. For the
common first read — a run not read before, one event file of ``simple_value`` scalars and a
``file_version`` record — the rows of all such runs are sorted into their series by one sort;
whether each series' steps increase, and with which stride, is found for all at once; and each
series' columns are then made as ``ScalarColumns`` makes them (``set_compact_first``). A series
whose steps do not increase, a run with any other record, or one whose record cannot be parsed
is left to the general path, before anything of that run is applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..events.scalars_bulk import BulkScalars
from ..files.problems import Problem
from ..runs.bulk_apply import parse_uncovered, see_start_time
from ..runs.columns import ScalarColumns
from ..runs.run_data import RunData, RunDelta

_LIMIT = 1 << 62  # a progression's start and stride stay below this (``columns._own_stride``)
#: ``ColdSeries.stride`` of a series whose steps increase but are no progression, and of one whose
#: steps do not increase (a stride itself is 0 for one point, else positive).
IRREGULAR, FALLING = -1, -2


class ColdSeries(NamedTuple):
    """One series of a cold run: its tag, its rows in the sorted arrays, its stride (0: one
    point), or IRREGULAR or FALLING. (A tuple: a sweep's batch makes a hundred thousand.)"""

    tag: str
    lo: int
    hi: int
    stride: int


@dataclass
class Sorted:
    """The rows of every cold run's series, series after series, each in record order. The
    series' columns hold views of ``wall`` and ``value`` (made for them: the rows of a run left to
    the general path, or of a series whose steps fall, are all they hold besides)."""

    step: np.ndarray
    wall: np.ndarray
    value: np.ndarray


def eligible(data: RunData, part: BulkScalars, n_values: int) -> bool:
    """Whether a run's one piece can take this path (before its records are parsed)."""
    return (n_values == 0 and len(part.rows) > 0 and part.value.dtype == np.float32 and not part.tf2.any()
            and data.is_fresh())


def series_of(parts: Sequence[BulkScalars]) -> tuple[Sorted, list[list[ColdSeries]]]:
    """The rows of ``parts`` sorted into their series, and each part's series (in the order of
    its tag numbers, the general path's order)."""
    widths = [len(p.tags) for p in parts]
    offsets = np.cumsum([0, *widths])
    sid = np.concatenate([p.tag.astype(np.int64) + off for p, off in zip(parts, offsets[:-1].tolist())])
    order = np.argsort(sid, kind="stable")  # rows of a series keep their record order
    step = np.concatenate([p.step for p in parts])[order]
    wall = np.concatenate([p.wall for p in parts])[order]
    value = np.concatenate([p.value for p in parts])[order]
    q = sid[order]
    total = int(offsets[-1])
    counts = np.bincount(q, minlength=total)
    ends = np.cumsum(counts)
    begins = ends - counts
    same = q[1:] == q[:-1]
    pair_series = q[:-1]
    d = step[1:] - step[:-1]
    many = counts >= 2
    stride = np.zeros(total, dtype=np.int64)
    stride[many] = d[begins[many]]
    falls = np.bincount(pair_series[same & ~(step[1:] > step[:-1])], minlength=total) > 0
    uneven = np.bincount(pair_series[same & (d != stride[pair_series])], minlength=total) > 0
    first = step[np.minimum(begins, max(len(step) - 1, 0))]
    fits = (stride > 0) & (stride < _LIMIT) & (first > -_LIMIT) & (first < _LIMIT)
    kind = np.where(~many, 0, np.where(falls, FALLING, np.where(uneven | ~fits, IRREGULAR, stride)))
    kinds, lo, hi = kind.tolist(), begins.tolist(), ends.tolist()
    out: list[list[ColdSeries]] = []
    for p, off in zip(parts, offsets[:-1].tolist()):
        out.append([ColdSeries(tag, lo[off + t], hi[off + t], kinds[off + t]) for t, tag in enumerate(p.tags)])
    return Sorted(step, wall, value), out


def apply_cold(data: RunData, buf: memoryview, starts: np.ndarray, lengths: np.ndarray, path: str, base: int,
               delta: RunDelta, part: BulkScalars, series: list[ColdSeries], rows: Sorted) -> bool:
    """Apply a cold run's one piece (its records ``starts``/``lengths``, its decoded scalar rows
    ``part``, its series in ``rows``) as ``BulkBatch`` and ``flush`` would; False, with nothing
    applied, when a record other than the scalars is not a readable ``file_version``."""
    problems: list[Problem] = []  # (a record that is no Event: the general path reports it)
    events = parse_uncovered(buf, starts, lengths, (part.rows,), path, base, problems)
    if problems or any(e is None or e.WhichOneof("what") != "file_version" for _, e in events):
        return False
    see_start_time(data, events, [(part.rows, part.wall)])
    for i, event in events:
        data.apply_event(event, buf, int(starts[i]), int(lengths[i]), path, base, delta)
    for s in series:
        step, wall, value = rows.step[s.lo:s.hi], rows.wall[s.lo:s.hi], rows.value[s.lo:s.hi]
        if s.stride >= 0:
            cols = ScalarColumns.compact_first(step, s.stride, wall, value)
        elif s.stride == IRREGULAR:
            cols = ScalarColumns.compact_first(step, None, wall, value)
        else:  # FALLING: the general append, which preempts
            cols = ScalarColumns()
            cols.extend(step, wall, value, data.purge_orphaned_data)
        data.adopt_simple_values(s.tag, cols, s.hi - s.lo, delta)
    return True
