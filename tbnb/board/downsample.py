"""Min/max downsampling: at most a few points per pixel column, without losing a spike.

The kernel keeps every scalar point; the page gets about one bucket per pixel of the card's width
and, per bucket, the points with the smallest and the largest value. Drawn as a line, that is
indistinguishable from the full series at that width (every peak and trough is there), and a
zoom asks for the exact points of the smaller range again.

Buckets have equal *x width*, not equal point counts: a bucket is then a pixel column, whatever
the spacing of the points. With irregular x (wall time across a pause, evaluation steps every
1000 training steps, a logdir written by two jobs) equal-count buckets would spend the pixels on
the dense part and merge points that lie far apart on screen.

Non-finite values are never dropped silently: NaN is a gap in a line and ±inf a marker at the
edge, so each bucket keeps its first NaN, first +inf and first -inf.
"""

from __future__ import annotations

import numpy as np


def _buckets(x: np.ndarray, width: int) -> np.ndarray:
    """Bucket number in [0, width) of each point, by equal x width over the finite x range."""
    finite = np.isfinite(x)
    if not finite.any():
        return np.zeros(len(x), dtype=np.int64)
    lo, hi = float(x[finite].min()), float(x[finite].max())
    if hi <= lo:
        return np.zeros(len(x), dtype=np.int64)
    scaled = np.where(finite, (x - lo) * (width / (hi - lo)), np.where(x > 0, width, 0.0))
    return np.clip(scaled, 0, width - 1).astype(np.int64)


def _first_per_bucket(positions: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """The first of ``positions`` (ascending) in each bucket they fall in."""
    if positions.size == 0:
        return positions
    _, first = np.unique(buckets[positions], return_index=True)
    return positions[first]


def _finite_extremes(y: np.ndarray, buckets: np.ndarray, finite: np.ndarray) -> np.ndarray:
    """Per bucket, the first index of the minimum and of the maximum finite value.

    O(n): segment reductions over the points sorted by bucket (a stable sort only when x was
    not already in order, which the step axis always is).
    """
    pos = np.flatnonzero(finite)
    if pos.size == 0:
        return pos
    b = buckets[pos]
    if b.size > 1 and np.any(b[1:] < b[:-1]):
        order = np.argsort(b, kind="stable")
        pos, b = pos[order], b[order]
    values = y[pos]
    starts = np.flatnonzero(np.concatenate(([True], b[1:] != b[:-1])))
    segment = np.repeat(np.arange(starts.size), np.diff(np.append(starts, b.size)))
    picks = []
    for reduce in (np.minimum, np.maximum):
        extreme = reduce.reduceat(values, starts)
        hits = np.flatnonzero(values == extreme[segment])
        _, first = np.unique(segment[hits], return_index=True)
        picks.append(pos[hits[first]])
    return np.concatenate(picks)


def minmax_downsample(x: np.ndarray, y: np.ndarray, width: int) -> np.ndarray:
    """Indices (ascending, int64) of the points to draw ``y`` over ``x`` at ``width`` buckets.

    All indices when ``len(y) <= 2 * width`` (the exact series). Otherwise, per bucket of equal x
    width: the minimum and maximum finite ``y``, the first NaN, +inf and -inf; plus always the
    first and the last point. So at most ``2 * width + 2`` indices, plus up to three per bucket
    that holds non-finite values.
    """
    return minmax_downsample_many(x, [y], width)


def minmax_downsample_many(x: np.ndarray, ys: list[np.ndarray], width: int) -> np.ndarray:
    """``minmax_downsample`` of several series over one x (a line and its band's edges): the
    union of the indices each would keep, with the buckets computed once."""
    x = np.asarray(x, dtype=np.float64)
    ys = [np.asarray(y, dtype=np.float64) for y in ys]
    if x.ndim != 1 or any(y.shape != x.shape for y in ys):
        raise ValueError(f"x and y must be 1-D of equal length, got {x.shape} and {[y.shape for y in ys]}")
    width = int(width)
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    n = x.size
    if n <= 2 * width:
        return np.arange(n, dtype=np.int64)
    buckets = _buckets(x, width)
    keep = [np.array([0, n - 1])]
    for y in ys:
        finite = np.isfinite(y)
        keep.append(_finite_extremes(y, buckets, finite))
        if not finite.all():
            for mask in (np.isnan(y), y == np.inf, y == -np.inf):
                keep.append(_first_per_bucket(np.flatnonzero(mask), buckets))
    kept = np.sort(np.concatenate(keep)).astype(np.int64)
    # (not np.unique: its plain form imports numpy.ma on first use, slow in a fresh kernel)
    return kept[np.concatenate(([True], kept[1:] != kept[:-1]))]
