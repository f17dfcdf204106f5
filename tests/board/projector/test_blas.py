"""The projector's products run on one BLAS thread when threadpoolctl is there, and restore it."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.board.projector.blas import single_blas_thread
from tbnb.board.projector.linear import pca

from .bounds import gram_perturbation, share_error


def test_single_blas_thread_limits_and_restores():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    if not blas:
        pytest.skip("numpy's BLAS is not visible to threadpoolctl")
    before = [p["num_threads"] for p in blas]
    with single_blas_thread():
        inside = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    after = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert inside == [1] * len(blas)
    assert after == before


def test_pca_same_with_or_without_the_limit():
    x = np.random.default_rng(5).normal(size=(2000, 40)).astype(np.float32)
    limited = pca(x, 3)
    gram = (x.T @ x).astype(np.float64) / len(x)  # float32 like the kernel's, on as many threads as BLAS likes
    values = np.sort(np.linalg.eigvalsh(gram))[::-1]
    # Two float32 products in orders of their own: each share within share_error of the exact one.
    x64 = x.astype(np.float64)
    exact = np.sort(np.linalg.eigvalsh(x64.T @ x64 / len(x)))[::-1]
    bound = 2 * share_error(exact, *gram_perturbation(x))
    assert (np.abs(limited.variance - values / values.sum()) <= bound).all()
