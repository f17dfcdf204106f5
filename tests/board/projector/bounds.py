"""Error bounds for the projector's float32 arithmetic, so that its tests' tolerances follow from
the algorithms and hold on any CPU: BLAS sums a product in an order (and with FMA or not) it
chooses by CPU and thread count, so a tolerance read off one machine's result does not carry.

Standard bounds (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3), first order in
the unit roundoff u (2^-24 in float32, 2^-53 in float64):

* a product ``a @ b`` with inner dimension k, summed in any order: elementwise within
  gamma_k * (|a| @ |b|), gamma_k = k*u / (1 - k*u);
* a symmetric matrix's eigenvalues move by at most ||dG||_2 <= ||dG||_F under a perturbation dG
  (Weyl), and a unit eigenvector by an angle theta with sin(theta) <= ||dG||_2 / (gap - ||dG||_2),
  gap the distance of its eigenvalue to the others (Davis-Kahan); aligned in sign, the vectors
  then differ by 2 sin(theta / 2) <= sqrt(2) sin(theta);
* numpy's float64 ``eigh`` and ``svd`` are backward stable: as if done exactly on a matrix within
  a small multiple of D*u64*||G||; ``BACKWARD`` = 10 is that multiple, taken generously.
"""

from __future__ import annotations

import math

import numpy as np

U32 = float(np.finfo(np.float32).eps) / 2
U64 = float(np.finfo(np.float64).eps) / 2
#: The multiple of D * u64 * ||G|| within which float64 eigh / svd are exact on a nearby matrix.
BACKWARD = 10


def gamma(k: int, u: float) -> float:
    """gamma_k: the relative error bound of a k-term dot product, any summation order."""
    assert k * u < 1
    return k * u / (1 - k * u)


def product_error(a: np.ndarray, b: np.ndarray, u: float = U32) -> np.ndarray:
    """Elementwise bound on |fl(a @ b) - a @ b| for a product summed in any order."""
    a64, b64 = np.abs(np.asarray(a, np.float64)), np.abs(np.asarray(b, np.float64))
    return gamma(a64.shape[-1], u) * (a64 @ b64)


def gram_perturbation(x: np.ndarray) -> tuple[float, float]:
    """For the projector's ``XᵀX/n`` of float32 ``x`` (a float32 product, then float64):
    ``(||dG||_F, |trace(dG)|)`` bounds, with float64 eigh's backward error folded into the first."""
    n, d = x.shape
    error = product_error(x.T, x) / n
    exact = np.asarray(x, np.float64).T @ np.asarray(x, np.float64) / n
    # twice: the kernel's eigh and the reference's float64 decomposition each have their own
    backward = 2 * BACKWARD * d * U64 * float(np.linalg.norm(exact, 2))
    return float(np.linalg.norm(error)) + backward, float(np.trace(error)) + backward


def share_error(values: np.ndarray, delta: float, trace_error: float) -> np.ndarray:
    """Bound on |computed share - share| of each eigenvalue (``values``: the exact eigenvalues,
    decreasing): each moves by at most ``delta``, their sum (the trace) by ``trace_error``."""
    total = float(values.sum())
    assert trace_error < total
    return (delta + (values / total) * trace_error) / (total - trace_error) + 4 * U64


def axis_error(values: np.ndarray, k: int, delta: float) -> float:
    """Bound on ||computed axis k - axis k||_2 (aligned in sign), from Davis-Kahan; inf when the
    eigenvalue is not separated from the others by more than ``delta``."""
    others = np.delete(values, k)
    gap = float(np.min(np.abs(others - values[k]))) if others.size else math.inf
    if gap <= 2 * delta:
        return math.inf
    return math.sqrt(2) * delta / (gap - delta)


def distance_error(metric: str, want: np.ndarray, d: int) -> np.ndarray:
    """Bound on |kernel's distance - exact| (bounds.py's rules). Cosine: a float32 product of D
    terms (gamma_D of |x|.|q| <= ||x|| ||q||) over float32 norms (D squares and a square root:
    (D/2 + 1) u32 each), so an absolute error. Euclidean: the float32 difference (u32 of each
    term), squared and summed exactly enough in float64: relative."""
    if metric == "cosine":
        return np.full(len(want), gamma(d, U32) + (d / 2 + 1) * U32 + 4 * d * U64)
    return (U32 + 4 * d * U64) * want
