"""PCA and custom projections as TensorBoard's projector computes them, with numpy.

TensorBoard's PCA is the eigendecomposition of XᵀX/n with no centring step: the data is centred
only when "spherize" is on (centroid shifted to the origin, then every row scaled to unit norm).
We follow that, so that layouts match what TensorBoard users know. Unlike TensorBoard, which
samples 50,000 rows and randomly projects past 200 dimensions to fit a browser, the kernel uses
every row and every dimension: the result is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...reader.user_regex import PatternError, compile_regex
from .blas import single_blas_thread


def spherize(x: np.ndarray) -> np.ndarray:
    """Centre on the centroid, then scale each non-zero row to unit norm (TensorBoard's rule)."""
    centred = x - x.mean(axis=0, dtype=np.float64).astype(x.dtype)
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    return np.divide(centred, norms, out=centred, where=norms > 0)


@dataclass(frozen=True)
class Pca:
    """The first ``components`` principal axes of a data set and its projection on them."""

    #: [N, components] float32: each row's coordinates on the axes.
    coords: np.ndarray
    #: [D] float64: each component's share of the total variance, in decreasing order.
    variance: np.ndarray
    #: [D, components] float64: the axes (unit columns), sign fixed so the largest entry is positive.
    axes: np.ndarray


def pca(x: np.ndarray, components: int = 10, *, spherized: bool = False) -> Pca:
    """PCA of ``x`` [N, D] from the eigenvectors of XᵀX/n (TensorBoard's definition): a D×D
    eigendecomposition rather than an SVD of the N×D data, on one BLAS thread (blas.py)."""
    if x.ndim != 2 or not len(x):
        raise ValueError(f"PCA needs a non-empty [N, D] array, got shape {x.shape}")
    with single_blas_thread():
        return _pca(x, components, spherized)


def _pca(x: np.ndarray, components: int, spherized: bool) -> Pca:
    data = spherize(np.asarray(x, dtype=np.float32)) if spherized else np.asarray(x, dtype=np.float32)
    gram = (data.T @ data).astype(np.float64) / len(data)
    values, vectors = np.linalg.eigh(gram)
    order = np.argsort(values)[::-1]
    values = np.clip(values[order], 0, None)
    vectors = vectors[:, order]
    flip = np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(vectors.shape[1])])
    vectors = vectors * np.where(flip == 0, 1, flip)
    k = min(components, data.shape[1])
    total = values.sum()
    share = values / total if total > 0 else np.zeros_like(values)
    axes = vectors[:, :k]
    return Pca((data @ axes.astype(np.float32)).astype(np.float32), share, axes)


def query_rows(labels: list[str], pattern: str, regex: bool = True) -> np.ndarray:
    """Indices of the rows whose label matches, case-insensitively (TensorBoard's search):
    a regular expression (RE2's, linear time: reader/user_regex.py; one it refuses is a
    ValueError), or a substring when ``regex`` is false. An empty pattern matches none."""
    if not pattern:
        return np.zeros(0, dtype=np.int64)
    if regex:
        try:
            compiled = compile_regex(pattern, ignore_case=True)
        except PatternError as err:
            raise ValueError(f"bad regular expression: {err}") from None
        hits = [i for i, label in enumerate(labels) if compiled.search(label)]
    else:
        needle = pattern.lower()
        hits = [i for i, label in enumerate(labels) if needle in label.lower()]
    return np.array(hits, dtype=np.int64)


def custom_axes(x: np.ndarray, left: np.ndarray, right: np.ndarray, up: np.ndarray, down: np.ndarray,
                seed: int = 0) -> np.ndarray:
    """TensorBoard's custom projection: x = centroid(right) − centroid(left), y = centroid(up) −
    centroid(down), every point placed by its dot product with each axis. A query matching no row
    contributes a random vector (seeded, so the layout is reproducible). Returns [N, 2] float32."""
    rng = np.random.default_rng(seed)

    def centroid(rows: np.ndarray) -> np.ndarray:
        if not len(rows):
            return rng.normal(size=x.shape[1])
        return x[rows].mean(axis=0, dtype=np.float64)

    x_dir = centroid(right) - centroid(left)
    y_dir = centroid(up) - centroid(down)
    with single_blas_thread():
        return (x.astype(np.float64) @ np.stack([x_dir, y_dir], axis=1)).astype(np.float32)
