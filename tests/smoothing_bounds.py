"""How far two correct computations of TensorBoard's smoothing may differ: error bounds, so that a
test's tolerance follows from the algorithms and holds on any CPU (BLAS, einsum's SIMD width and
numpy's vectorised ``pow`` all change rounding from one machine to another; a tolerance read off
one machine's result does not).

The exact value at the k-th finite point (k = 0, 1, ...) is the debiased average

    D_k = S_k / a_k,   S_k = (1 - w) * sum_{i <= k} w^(k-i) y_i,   a_k = 1 - w^(k+1),

a weighted mean of y_0..y_k, so |D_k| <= Y_k = max_{i <= k} |y_i|. Every bound below is first
order in the unit roundoff u = eps / 2, written as a multiple of Y_k (the rounding of each
operation is at most u times its result, and every partial result is a weighted sum of the
|y_i| with weights of total at most a_k), and it is divided by a_k where the computation divides.

* ``loop_error``: TensorBoard's loop ``last = last * w + (1 - w) * y; out = last / (1 - w ** n)``
  (the page's js/src/smoothing.js and the tests' oracles). Step i rounds ``1 - w``, the two
  products and the sum: at most u*w*|last_{i-1}| + 2u*(1-w)*|y_i| + u*|last_i|, carried to k with
  weight w^(k-i). Summed: 2u * a_k * Y_k * (sum_{r <= k} w^r + 1), and sum_{r <= k} w^r =
  a_k / (1 - w) <= min(k + 1, 1 / (1 - w)): the 1 / (1 - w) growth of a long average. Then the
  debias: ``w ** n`` within POW (relative) makes a_k off by POW * w^(k+1), relatively
  POW * w^(k+1) / a_k (large for the first points of a heavy average: a_0 = 1 - w), and the
  division adds u.
* ``blocked_error``: the kernel's ``tbnb.board.smoothing._ema``: blocks of B = BLOCK points, the
  block sums ``inner[b, j] = sum_{i <= j} y_{bB+i} w^(j-i)`` as one product (einsum or BLAS: any
  summation order), the weights ``w ** gap`` within POW. A dot product of at most B terms in any
  order is within B*u*sum|x_i w_i| (the standard bound, gamma_B), the weights add POW: every
  point enters its output with its exact weight, so these errors total (B*u + POW + 3u) * a_k * Y_k
  (the 3u: ``1 - w``, the product by it, the final sum). The carry between blocks is rounded
  (times ``w^B``, within POW + 2u of |carry| <= a_k * Y_k) once per block and carried with weight
  w^(B*r) to the r-th block after: in all (POW + 2u) * min(b, 1 / (1 - w^B)) * a_k * Y_k at block
  b. Then the debias as in the loop (numpy's ``w ** count``).
* ``dot_error``: ``smoothed_at``, one dot product of the n finite points with ``w^(n-1-i)``: n*u
  + POW of the weighted sum, 2u more for ``1 - w`` and the product, then the debias.

A difference of two results is within the sum of their bounds. The bounds are worst cases (every
rounding the same way); real differences are far smaller, but any mistake in the algorithm (a
weight off by one power, a block's carry dropped, the debias of the wrong count) is off by a
fraction of (1 - w) * Y_k or more, orders of magnitude above them.
"""

from __future__ import annotations

import numpy as np

from tbnb.board.smoothing import BLOCK

EPS = float(np.finfo(np.float64).eps)
#: Unit roundoff: a correctly rounded operation is within U of its result, relatively.
U = EPS / 2
#: Relative error of one ``x ** k``: glibc's pow and numpy's vectorised (AVX-512 SVML) pow are
#: within 1 ulp (<= EPS relatively; numpy's validation data holds its float64 SVML functions to
#: 1 ulp); V8's Math.pow to a few ulps. 4 ulps covers each.
POW = 4 * EPS


def _prefix(kept: np.ndarray, w: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index k among the finite points, Y_k, and w^(k+1) / a_k (the debias's amplification)."""
    k = np.arange(len(kept), dtype=np.float64)
    scale = np.maximum.accumulate(np.abs(kept)) if len(kept) else np.zeros(0)
    with np.errstate(under="ignore"):
        power = np.float64(w) ** (k + 1)
    return k, scale, power / (1 - power)


def loop_error(kept: np.ndarray, w: float) -> np.ndarray:
    """Bound on |loop - exact| at each finite point of ``kept`` (finite values only), 0 <= w < 1."""
    k, scale, debias = _prefix(kept, w)
    growth = np.minimum(k + 1, 1 / (1 - w))
    return scale * (2 * U * (growth + 1) + POW * debias + U)


def blocked_error(kept: np.ndarray, w: float) -> np.ndarray:
    """Bound on |kernel's smooth - exact| at each finite point, 0 <= w < 1."""
    k, scale, debias = _prefix(kept, w)
    blocks_before = k // BLOCK
    carries = np.minimum(blocks_before, 1 / (1 - np.float64(w) ** BLOCK))
    return scale * (BLOCK * U + POW + 3 * U + (POW + 2 * U) * carries + POW * debias + U)


def dot_error(kept: np.ndarray, w: float) -> float:
    """Bound on |smoothed_at - exact| at the last of ``kept`` (the finite points up to it)."""
    n = len(kept)
    _, scale, debias = _prefix(kept, w)
    return float(scale[-1] * (n * U + POW + 2 * U + POW * debias[-1] + U))


def kernel_vs_loop(ys: np.ndarray, w: float) -> np.ndarray:
    """Bound on |smooth(ys, w) - loop(ys, w)| at every point of ``ys`` (0 where a value is not
    finite: it passes through). ``w`` is already clamped to [0, 1]; at 1 both are exactly 0."""
    ys = np.asarray(ys, dtype=np.float64)
    out = np.zeros(len(ys))
    finite = np.isfinite(ys)
    if w < 1 and finite.any():
        kept = ys[finite]
        out[finite] = blocked_error(kept, w) + loop_error(kept, w)
    return out


def loops_apart(ys: np.ndarray, w: float) -> np.ndarray:
    """Bound on the difference of two runs of the same loop whose only difference is their
    ``pow`` (the page's Math.pow against Python's): both debias within POW, nothing else differs."""
    ys = np.asarray(ys, dtype=np.float64)
    out = np.zeros(len(ys))
    finite = np.isfinite(ys)
    if w < 1 and finite.any():
        _, scale, debias = _prefix(ys[finite], w)
        out[finite] = scale * (2 * POW * debias + 2 * U)
    return out
