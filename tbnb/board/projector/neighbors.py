"""Exact k nearest neighbours of one row in the original space (cosine or euclidean).

TensorBoard computes neighbours on the GPU of the browser over its 100,000-point sample; the
kernel has the whole tensor, so it scans every row exactly (one matrix-vector product).
"""

from __future__ import annotations

import numpy as np

from .blas import single_blas_thread

METRICS = ("cosine", "euclidean")


def neighbors(x: np.ndarray, index: int, k: int = 10, metric: str = "cosine") -> tuple[np.ndarray, np.ndarray]:
    """(indices, distances) of the ``k`` rows nearest to row ``index``, itself excluded, nearest
    first (ties by index). Cosine distance is 1 − cos; a zero row is at distance 1 from all."""
    n = len(x)
    if not 0 <= index < n:
        raise ValueError(f"row {index} is out of range for {n} rows")
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    data = np.asarray(x, dtype=np.float32)
    query = data[index].astype(np.float64)
    if metric == "cosine":
        norms = np.linalg.norm(data, axis=1).astype(np.float64)
        qn = float(np.linalg.norm(query))
        with single_blas_thread():
            dots = data @ query.astype(np.float32)
        denom = norms * qn
        cos = np.divide(dots, denom, out=np.zeros(n), where=denom > 0)
        dist = 1.0 - cos
    else:
        diff = data - data[index]
        dist = np.sqrt(np.einsum("ij,ij->i", diff, diff, dtype=np.float64))
    dist[index] = np.inf
    k = min(k, n - 1)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    part = np.argpartition(dist, k - 1)[:k] if k < n - 1 else np.flatnonzero(np.isfinite(dist))
    # ties at the k-th distance: take every row at that distance, then sort by (distance, index)
    cut = dist[part].max()
    candidates = np.flatnonzero(dist <= cut)
    order = np.lexsort((candidates, dist[candidates]))[:k]
    chosen = candidates[order]
    return chosen.astype(np.int64), dist[chosen]
