"""PCA against numpy's SVD, spherize, queries and the custom projection against TensorBoard's rule."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.board.projector.linear import custom_axes, pca, query_rows, spherize


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    basis = rng.normal(size=(6, 20))
    return (rng.normal(size=(500, 6)) * [9, 5, 3, 2, 1, 0.5]) @ basis + rng.normal(size=20) * 3 + rng.normal(size=(500, 20)) * 0.3


def test_pca_matches_numpy_svd(data):
    x = data.astype(np.float32)
    got = pca(x, 4)
    # TensorBoard's PCA: eigenvectors of XᵀX/n, no centring -> the right singular vectors of X
    _, s, vt = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    np.testing.assert_allclose(got.variance[:20], s**2 / (s**2).sum(), rtol=1e-4, atol=1e-7)
    for c in range(4):
        sign = np.sign(got.axes[:, c] @ vt[c])
        np.testing.assert_allclose(got.axes[:, c], sign * vt[c], atol=1e-6)
        np.testing.assert_allclose(got.coords[:, c], sign * (x.astype(np.float64) @ vt[c]), rtol=1e-4, atol=1e-3)
    assert got.coords.dtype == np.float32 and got.coords.shape == (500, 4)
    assert np.all(np.diff(got.variance) <= 1e-12)


def test_spherize_then_pca_is_centred_svd(data):
    x = data.astype(np.float32)
    s = spherize(x)
    np.testing.assert_allclose(np.linalg.norm(s, axis=1), 1, atol=1e-5)
    centred = x - x.mean(axis=0)
    np.testing.assert_allclose(s, centred / np.linalg.norm(centred, axis=1, keepdims=True), atol=1e-5)
    got = pca(x, 3, spherized=True)
    _, sv, vt = np.linalg.svd(s.astype(np.float64), full_matrices=False)
    np.testing.assert_allclose(got.variance[:3], (sv**2 / (sv**2).sum())[:3], rtol=1e-5)
    for c in range(3):
        assert abs(abs(got.axes[:, c] @ vt[c]) - 1) < 1e-5


def test_pca_bad_input():
    with pytest.raises(ValueError, match="non-empty"):
        pca(np.zeros((0, 3), np.float32))
    zero = pca(np.zeros((4, 3), np.float32), 2)
    assert zero.coords.shape == (4, 2) and not zero.variance.any()


def test_query_rows():
    labels = ["Cat", "dog", "cat food", "bird"]
    assert query_rows(labels, "^cat").tolist() == [0, 2]
    assert query_rows(labels, "o", regex=False).tolist() == [1, 2]
    assert query_rows(labels, "").tolist() == []
    with pytest.raises(ValueError, match="bad regular expression"):
        query_rows(labels, "(")


def test_custom_projection_is_tensorboards_rule(data):
    x = data.astype(np.float32)
    left, right = np.arange(0, 10), np.arange(10, 30)
    up, down = np.arange(100, 150), np.array([7])
    got = custom_axes(x, left, right, up, down)
    xd = x[right].astype(np.float64).mean(0) - x[left].astype(np.float64).mean(0)
    yd = x[up].astype(np.float64).mean(0) - x[down].astype(np.float64).mean(0)
    want = np.stack([x.astype(np.float64) @ xd, x.astype(np.float64) @ yd], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-2)
    # a query with no match stands for a random vector, the same for the same seed
    empty = np.zeros(0, dtype=np.int64)
    a = custom_axes(x, empty, right, up, down, seed=3)
    np.testing.assert_array_equal(a, custom_axes(x, empty, right, up, down, seed=3))
    np.testing.assert_allclose(a[:, 1], want[:, 1], rtol=1e-5, atol=1e-2)
