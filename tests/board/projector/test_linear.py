"""PCA against numpy's SVD, spherize, queries and the custom projection against TensorBoard's rule.

The kernel computes in float32 where TensorBoard does (the data, XᵀX): each comparison with a
float64 reference is held to an error bound of that arithmetic (bounds.py), which holds whatever
order this CPU's BLAS sums in, and is orders of magnitude below what a wrong step would cost.
"""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.board.projector.linear import custom_axes, pca, query_rows, spherize

from .bounds import U32, U64, axis_error, gamma, gram_perturbation, share_error


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    basis = rng.normal(size=(6, 20))
    return (rng.normal(size=(500, 6)) * [9, 5, 3, 2, 1, 0.5]) @ basis + rng.normal(size=20) * 3 + rng.normal(size=(500, 20)) * 0.3


def test_pca_matches_numpy_svd(data):
    x = data.astype(np.float32)
    got = pca(x, 4)
    # TensorBoard's PCA: eigenvectors of XᵀX/n, no centring -> the right singular vectors of X
    x64 = x.astype(np.float64)
    _, s, vt = np.linalg.svd(x64, full_matrices=False)
    values = s**2 / len(x)  # the eigenvalues of XᵀX/n
    delta, trace_error = gram_perturbation(x)  # of the kernel's float32 XᵀX
    assert (np.abs(got.variance[:20] - values / values.sum()) <= share_error(values, delta, trace_error)).all()
    for c in range(4):
        sign = np.sign(got.axes[:, c] @ vt[c])
        axis = axis_error(values, c, delta)
        assert axis < 1e-2  # separated components: a wrong axis is off by far more (unit vectors)
        assert np.linalg.norm(got.axes[:, c] - sign * vt[c]) <= axis
        # coords: x on its axis (checked above), as float32(axis) and a D-term float32 product
        own = got.axes[:, c]
        bound = (gamma(x.shape[1], U32) + U32) * (np.abs(x64) @ np.abs(own))
        assert (np.abs(got.coords[:, c] - x64 @ own) <= bound).all()
    assert got.coords.dtype == np.float32 and got.coords.shape == (500, 4)
    assert np.all(np.diff(got.variance) <= 0)


def test_spherize_then_pca_is_centred_svd(data):
    x = data.astype(np.float32)
    n, d = x.shape
    s = spherize(x)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=0)
    centred = x64 - mean
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    want = centred / norms
    # spherize: its float64 mean (n terms, as the reference's) rounded to float32 and the float32
    # subtraction move a row by `moved`, its unit vector by at most 2 * moved / norm; the float32
    # norm (D squares summed, a square root) and the division add (D/2 + 2) u32 of each entry.
    moved = np.linalg.norm(U32 * (np.abs(mean) + np.abs(centred)) + 2 * n * U64 * np.abs(x64).mean(axis=0),
                           axis=1, keepdims=True)
    entry = 2 * moved / norms + (d / 2 + 2) * U32 * np.abs(want)
    assert (np.abs(s - want) <= entry).all()
    length = np.linalg.norm(s, axis=1)  # in float32 again
    assert (np.abs(length - 1) <= np.linalg.norm(entry, axis=1) + (d / 2 + 2) * U32).all()
    got = pca(x, 3, spherized=True)
    _, sv, vt = np.linalg.svd(s.astype(np.float64), full_matrices=False)
    values = sv**2 / n
    delta, trace_error = gram_perturbation(s)
    assert (np.abs(got.variance[:3] - (values / values.sum())[:3]) <= share_error(values, delta, trace_error)[:3]).all()
    for c in range(3):
        axis = axis_error(values, c, delta)
        assert axis < 1e-2
        # |cos| of the angle between them: 1 - ||a - b||^2 / 2 for aligned unit vectors
        assert 1 - abs(got.axes[:, c] @ vt[c]) <= axis**2 / 2 + 4 * d * U64


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
    x64 = x.astype(np.float64)
    want = np.stack([x64 @ xd, x64 @ yd], axis=1)
    # Both in float64 from the same float32 data, summed in orders of their own: each centroid
    # (at most 50 rows) within 50 u64 of its rows' magnitudes, each product within gamma_D; the
    # kernel's result rounded to float32 at the end.
    directions = np.abs(np.stack([xd, yd], axis=1))
    moved = 4 * 50 * U64 * np.abs(x64).max(axis=0)
    bound = U32 * np.abs(want) + 2 * gamma(x.shape[1], U64) * (np.abs(x64) @ directions) + (np.abs(x64) @ moved)[:, None]
    assert (np.abs(got - want) <= bound).all()
    # a query with no match stands for a random vector, the same for the same seed
    empty = np.zeros(0, dtype=np.int64)
    a = custom_axes(x, empty, right, up, down, seed=3)
    np.testing.assert_array_equal(a, custom_axes(x, empty, right, up, down, seed=3))
    assert (np.abs(a[:, 1] - want[:, 1]) <= bound[:, 1]).all()
