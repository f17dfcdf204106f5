"""TensorBoard's smoothing in the kernel: the same debiased exponential moving average the page
draws with (js/src/smoothing.js), so that the step table's "smoothed" column is the value the
smoothed line has at that point, computed over the full-resolution series.

The rules, as the page's: the weight is clamped to [0, 1] (non-finite -> 0); points are taken in
index order (x spacing is ignored); non-finite values pass through and do not enter the average;
a series whose values all equal the first is returned unchanged (TensorBoard issue #786).
"""

from __future__ import annotations

import math

import numpy as np


def clamp_weight(weight: float) -> float:
    """The weight TensorBoard uses: non-finite -> 0, then clamped to [0, 1]."""
    w = float(weight) if math.isfinite(weight) else 0.0
    return min(1.0, max(0.0, w))


#: Points per block of the blocked recurrence (``_ema``): one B x B matrix product covers every
#: block's inner sums, and a Python step per block carries the average across blocks.
BLOCK = 64


def _ema(ys: np.ndarray, w: float) -> np.ndarray:
    """The running average ``last_k = w * last_{k-1} + (1 - w) * y_k`` (``last_{-1} = 0``) of
    finite ``ys``, without a Python step per point (a step table over a 20,000-point series took
    ~15 ms a run that way, and held the kernel while the first cards were drawn).

    Blocked: inside a block of B points, ``last`` is the carry from the block before times
    ``w^(j+1)`` plus ``(1 - w)`` times a weighted sum of the block's points, and those sums of
    every block are one matrix product. Sums in another order than the page's loop: the result
    differs from it by rounding only (a few ulps of the series' magnitude)."""
    n = len(ys)
    blocks = -(-n // BLOCK)
    padded = np.zeros(blocks * BLOCK, dtype=np.float64)
    padded[:n] = ys
    j = np.arange(BLOCK)
    # M[i, j] = w^(j - i) for i <= j: how point i of a block weighs in the block's sum at j.
    with np.errstate(under="ignore"):
        gap = j[None, :] - j[:, None]
        weights = np.where(gap >= 0, np.float64(w) ** np.maximum(gap, 0), 0.0)
        # einsum, not a BLAS product: BLAS threads spinning on a small machine held up the page
        # drawing the first cards beside the kernel (~50-100 ms a table), for no gain at this size.
        inner = np.einsum("bi,ij->bj", padded.reshape(blocks, BLOCK), weights)
        carry_weight = np.float64(w) ** (j + 1)
    carries = np.empty(blocks, dtype=np.float64)
    carry, step, ends = 0.0, float(carry_weight[-1]), ((1 - w) * inner[:, -1]).tolist()
    for b, end in enumerate(ends):
        carries[b] = carry
        carry = carry * step + end
    last = (1 - w) * inner + carries[:, None] * carry_weight[None, :]
    return last.reshape(-1)[:n]


def smooth(values: np.ndarray, weight: float, upto: int | None = None) -> np.ndarray:
    """Smoothed copy of ``values`` (float64); with ``upto``, only its first ``upto`` points.

    A smoothed point depends on the points before it only, so a caller that needs the value
    at index i asks for ``upto=i + 1`` and skips the rest of a long series.
    """
    ys = np.asarray(values, dtype=np.float64)
    n = len(ys) if upto is None else max(0, min(int(upto), len(ys)))
    if n == 0:
        return np.empty(0, dtype=np.float64)
    # "Constant" looks at the whole series, as the page does, not just the prefix.
    if bool(np.all(ys == ys[0])):
        return ys[:n].copy()
    w = clamp_weight(weight)
    out = ys[:n].copy()
    finite = np.isfinite(out)  # the others pass through and do not count
    kept = out[finite]
    if not len(kept):
        return out
    if w == 1:
        out[finite] = 0.0  # the average never moves from its start, and is not debiased
        return out
    last = _ema(kept, w)
    count = np.arange(1, len(kept) + 1, dtype=np.float64)
    with np.errstate(under="ignore"):
        out[finite] = last / (1 - np.float64(w) ** count)
    return out


def smoothed_at(values: np.ndarray, weight: float, index: int) -> float:
    """``smooth(values, weight)[index]`` without the points after it or the averages before it:
    a step table asks for one point of each run (the last, by default), and its value is one
    weighted sum, ``(1 - w) * sum_k w^(n-1-k) * y_k`` over the finite points up to ``index``,
    debiased, of the points whose weight is not 0. A 20,000-point run: ~0.1 ms at the default
    weight against ~2 ms for the whole running average (a table of 8 runs is answered before the
    first lines are drawn). Rounding differs from the page's loop as ``smooth``'s does."""
    ys = np.asarray(values, dtype=np.float64)
    i = int(index)
    if not 0 <= i < len(ys):
        raise IndexError(f"index {i} outside a series of {len(ys)} points")
    y = float(ys[i])
    if not math.isfinite(y) or bool(np.all(ys == ys[0])):
        return y  # (passes through; a constant series is itself, as in smooth)
    w = clamp_weight(weight)
    kept = ys[: i + 1]
    kept = kept[np.isfinite(kept)]
    if w == 1:
        return 0.0
    n = len(kept)
    # Only the points whose weight is not 0 in float64 enter the sum: the others add exact zeros
    # (the default weight, 0.6, leaves ~1,500 points of a 20,000-point run; computing the powers
    # of every point was ~1.7 ms a run, answered while the page waits for its first cards).
    recent = kept[-_nonzero_weights(w, n):]
    with np.errstate(under="ignore"):
        powers = np.float64(w) ** np.arange(len(recent) - 1, -1, -1, dtype=np.float64)
        # (einsum, not np.dot: a BLAS dot product of this length runs on BLAS's threads, whose
        # spinning held the kernel ~60 ms a table while the page drew the first cards)
        return float((1 - w) * np.einsum("i,i->", powers, recent) / (1 - np.float64(w) ** n))


#: log2 of a power below which ``w ** k`` is 0 in float64 (the smallest subnormal is 2**-1074)
#: by a margin no ``pow`` error can cross.
_ZERO_LOG2 = -1100


def _nonzero_weights(w: float, n: int) -> int:
    """How many of the last points of ``n`` may have a weight ``w ** k`` other than 0 (at most n,
    at least 1): powers from ``k = 1100 / -log2(w)`` on are below ``2 ** -1100``, 0 in float64."""
    if w <= 0:
        return 1  # 0 ** 0 = 1 for the last point, 0 for the others
    if w >= 1:
        return n
    return max(1, min(n, math.ceil(_ZERO_LOG2 / math.log2(w))))
