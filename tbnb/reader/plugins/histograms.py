"""Histograms for display: TensorBoard's rebinning to equal bins and its distribution compressor.

Both work on one run's sampled steps of a histogram tag, each step a float64 ``[k, 3]`` array of
(left, right, count) buckets (TensorBoard's tensor form; ``k`` may differ between steps, and
``k = 0`` is an empty histogram). The ragged steps are concatenated into flat bucket arrays with
each bucket's step, so that the work is numpy calls over all buckets at once (the compressor
keeps one small call per step where TensorBoard's per-step arithmetic must be matched exactly).

* ``rebin``: the histogram dashboard's view (``histogram_util.ts``): ``bins`` equal bins over the
  min/max of the non-empty steps' edges, each bucket's count spread over the bins in proportion
  to overlap; a zero-width bucket goes wholly into the bin containing it (bins are ``[l, r)``,
  the last ``[l, r]``). Unlike TensorBoard, steps with no count (TF2's empty histogram: zero
  buckets at 0) do not widen the range.
* ``compress``: the distribution dashboard's view (``plugins/distribution/compressor.py``): the
  value at each basis point of the cumulative count, linearly interpolated within a bucket;
  equal to ``compress_histogram``'s bit for bit.

Non-finite counts are read as 0; non-finite edges are left out of the range and clamped to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

#: TensorBoard's bins for the histogram dashboard (``DEFAULT_BIN_COUNT``).
BIN_COUNT = 30
#: TensorBoard's compression points, in basis points of the total count: the normal CDF at
#: -inf, -1.5, -1, -0.5, 0, 0.5, 1, 1.5 and +inf standard deviations.
BASIS_POINTS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)


class Rebinned(NamedTuple):
    """Histograms on common bins: ``edges`` ``[bins + 1]`` and ``counts`` ``[steps, bins]``."""

    edges: np.ndarray
    counts: np.ndarray


class _Flat(NamedTuple):
    """Every step's buckets one after another, and which step each belongs to."""

    left: np.ndarray  # [N]
    right: np.ndarray  # [N]
    counts: np.ndarray  # [N], non-finite -> 0
    row: np.ndarray  # [N] the step of each bucket
    start: np.ndarray  # [S] the step's first bucket
    length: np.ndarray  # [S] the step's number of buckets


def _buckets(histogram: np.ndarray, i: int) -> np.ndarray:
    arr = np.asarray(histogram, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        if arr.size == 0:
            return np.zeros((0, 3), dtype=np.float64)
        raise ValueError(f"histogram {i} has shape {list(arr.shape)}; expected [k, 3] (left, right, count)")
    if not np.isfinite(arr[:, 2]).all():
        arr = arr.copy()
        arr[~np.isfinite(arr[:, 2]), 2] = 0.0
    return arr


def _flatten(histograms: Sequence[np.ndarray]) -> _Flat:
    arrays = [_buckets(h, i) for i, h in enumerate(histograms)]
    length = np.array([len(a) for a in arrays], dtype=np.int64)
    start = np.cumsum(length) - length
    flat = np.concatenate(arrays).T.copy() if arrays else np.zeros((3, 0), dtype=np.float64)
    row = np.repeat(np.arange(len(arrays)), length)
    return _Flat(flat[0], flat[1], flat[2], row, start, length)


def value_range(histograms: Sequence[np.ndarray]) -> tuple[float, float] | None:
    """The min and max of every finite edge of the non-empty steps; None if all are empty.

    A step is empty when it has no buckets or no nonzero count (TensorBoard's TF2 writer stores
    empty data as zero-count buckets at 0, which would otherwise pull the range to 0).
    """
    return _range(_flatten(histograms))


def _range(fl: _Flat) -> tuple[float, float] | None:
    nonempty = np.bincount(fl.row[fl.counts != 0], minlength=len(fl.length)) > 0
    keep = nonempty[fl.row]
    edges = np.concatenate((fl.left[keep], fl.right[keep]))
    edges = edges[np.isfinite(edges)]
    if not edges.size:
        return None
    return float(edges.min()), float(edges.max())


def bin_edges(lo: float, hi: float, bins: int = BIN_COUNT) -> np.ndarray:
    """``bins + 1`` equal-width edges from lo to hi; a zero-width range becomes
    ``[lo / 1.1 - 1, hi * 1.1 + 1]`` (TensorBoard's rule, so that it is never empty)."""
    if lo == hi:
        lo, hi = lo / 1.1 - 1.0, hi * 1.1 + 1.0
    edges = lo + np.arange(bins + 1, dtype=np.float64) * ((hi - lo) / bins)
    edges[-1] = hi  # exact, so that a bucket ending at the max is counted whole
    return edges


def rebin(histograms: Sequence[np.ndarray], bins: int = BIN_COUNT) -> Rebinned:
    """The steps' counts on ``bins`` equal bins over their common range (see the module doc).

    Empty steps get zero counts. When every step is empty there is no range; the edges are then
    those of an all-equal histogram at 0: ``[-1, 1]``.
    """
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    fl = _flatten(histograms)
    found = _range(fl)
    edges = bin_edges(*(found if found is not None else (0.0, 0.0)), bins)
    lo, hi = float(edges[0]), float(edges[-1])
    n_steps = len(fl.length)
    counts = np.zeros((n_steps, bins), dtype=np.float64)
    real = fl.counts != 0
    rows, count = fl.row[real], fl.counts[real]
    left = np.clip(np.nan_to_num(fl.left[real], nan=lo), lo, hi)
    right = np.clip(np.nan_to_num(fl.right[real], nan=hi), lo, hi)
    left, right = np.minimum(left, right), np.maximum(left, right)  # an inverted bucket, read as is
    size = right - left
    # The bins holding each bucket's ends: e[first] <= left < e[first+1] (the last bin closed),
    # e[last] < right <= e[last+1].
    first = np.clip(np.searchsorted(edges, left, side="right") - 1, 0, bins - 1)
    last = np.clip(np.searchsorted(edges, right, side="left") - 1, 0, bins - 1)
    whole = (size == 0) | (last <= first)  # a point, or a bucket inside one bin: all of it there
    spans = ~whole
    widths = np.diff(edges)
    # A bucket over several bins: count * overlap / size in each (TensorBoard's proportion),
    # the partial first and last bins plus every bin in between.
    s_rows, s_count, s_size = rows[spans], count[spans], size[spans]
    s_first, s_last = first[spans], last[spans]
    inner = s_last - s_first - 1
    in_first = np.repeat(s_first + 1, inner)
    in_bin = in_first + np.arange(inner.sum()) - np.repeat(np.cumsum(inner) - inner, inner)
    index = np.concatenate((rows[whole] * bins + first[whole], s_rows * bins + s_first,
                            s_rows * bins + s_last, np.repeat(s_rows, inner) * bins + in_bin))
    amount = np.concatenate((count[whole], s_count * (edges[s_first + 1] - left[spans]) / s_size,
                             s_count * (right[spans] - edges[s_last]) / s_size,
                             np.repeat(s_count, inner) * widths[in_bin] / np.repeat(s_size, inner)))
    counts += np.bincount(index, weights=amount, minlength=n_steps * bins).reshape(n_steps, bins)
    return Rebinned(edges, counts)


def compress(histograms: Sequence[np.ndarray], bps: Sequence[int] = BASIS_POINTS) -> np.ndarray:
    """TensorBoard's distribution compressor, ``[steps, len(bps)]``: for each basis point ``bp``
    the value where the cumulative count reaches ``bp / 10000`` of the total.

    As ``compress_histogram``: the cumulative weights ``w`` (scaled to 10000) are searched with
    ``searchsorted(w, bp, "right")``; inside bucket ``i`` the value is interpolated between its
    left (the first bucket's left edge when nothing precedes it, else ``max(right[i-1], min)``)
    and ``min(right[i], max)``; basis points past the last weight get the last right edge. A step
    with no buckets gives zeros.
    """
    fl = _flatten(histograms)
    n_steps, width = len(fl.length), int(fl.length.max(initial=0))
    points = np.asarray(bps, dtype=np.float64)
    out = np.zeros((n_steps, len(points)), dtype=np.float64)
    if not width:
        return out
    # Per step, as TensorBoard does it on one step (bit for bit): the sum, the cumulative weights
    # and the search. Each is one numpy call on the step's own buckets.
    weights = np.empty(len(fl.counts), dtype=np.float64)
    index = np.zeros((n_steps, len(points)), dtype=np.int64)
    for s, (a, k) in enumerate(zip(fl.start.tolist(), fl.length.tolist())):
        if k:
            count = fl.counts[a:a + k]
            w = np.cumsum(count * points[-1] / (count.sum() or 1.0))
            weights[a:a + k] = w
            index[s] = np.searchsorted(w, points, side="right")
    length = fl.length[:, None]
    inside = index < length
    base = fl.start[:, None]
    # flat index of bucket i (clamped: an empty last step starts past the end)
    i = np.minimum(base + np.minimum(index, np.maximum(length - 1, 0)), len(weights) - 1)
    before = np.maximum(i - 1, 0)
    first = index == 0
    minmin = fl.left[np.minimum(fl.start, max(len(fl.left) - 1, 0))][:, None]
    maxmax = fl.right[np.maximum(fl.start + fl.length - 1, 0)][:, None]
    cur = weights[i]
    prev = np.where(first, 0.0, weights[before])
    lhs = np.where(first | (prev == 0), minmin, np.maximum(fl.right[before], minmin))
    rhs = np.minimum(fl.right[i], maxmax)
    with np.errstate(divide="ignore", invalid="ignore"):  # cur > prev wherever ``inside``
        lerp = lhs + (points[None, :] - prev) * (rhs - lhs) / (cur - prev)
    out[:] = np.where(inside, lerp, maxmax)
    out[fl.length == 0] = 0.0
    return out
