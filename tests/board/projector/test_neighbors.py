"""Exact neighbours against a brute-force scan."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.board.projector.neighbors import neighbors


def brute(x: np.ndarray, i: int, k: int, metric: str) -> list[tuple[int, float]]:
    rows = []
    for j in range(len(x)):
        if j == i:
            continue
        a, b = x[i].astype(np.float64), x[j].astype(np.float64)
        if metric == "cosine":
            d = 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        else:
            d = float(np.sqrt(((a - b) ** 2).sum()))
        rows.append((d, j))
    rows.sort()
    return [(j, d) for d, j in rows[:k]]


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
@pytest.mark.parametrize("k", [1, 7, 299])
def test_neighbors_match_brute_force(metric, k):
    x = np.random.default_rng(k).normal(size=(300, 16)).astype(np.float32)
    for i in (0, 123, 299):
        idx, dist = neighbors(x, i, k, metric)
        want = brute(x, i, k, metric)
        assert idx.tolist() == [j for j, _ in want]
        np.testing.assert_allclose(dist, [d for _, d in want], rtol=1e-5, atol=1e-6)


def test_ties_and_errors():
    x = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [5, 5]], dtype=np.float32)
    idx, dist = neighbors(x, 0, 3, "euclidean")
    assert idx.tolist() == [1, 2, 3] and dist.tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="out of range"):
        neighbors(x, 5)
    with pytest.raises(ValueError, match="metric"):
        neighbors(x, 0, metric="manhattan")
