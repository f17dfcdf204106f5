"""Exact neighbours against a brute-force scan."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.board.projector.neighbors import neighbors

from .bounds import distance_error


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
        exact = brute(x, i, len(x) - 1, metric)  # every row, nearest first
        every = np.full(len(x), np.inf)
        every[[j for j, _ in exact]] = [d for _, d in exact]
        want_idx, want = np.array([j for j, _ in exact[:k]]), np.array([d for _, d in exact[:k]])
        bound = distance_error(metric, want, x.shape[1])
        assert len(set(idx.tolist())) == len(idx) == k
        assert (np.abs(dist - want) <= bound).all()
        # each chosen row is a right one up to ties within the bounds, and the very row where the
        # exact order leaves no doubt (no other row within two bounds of its distance)
        assert (np.abs(every[idx] - want) <= 2 * bound).all()
        near = np.abs(every[None, :] - want[:, None]) <= 2 * bound[:, None]
        clear = near.sum(axis=1) == 1
        assert clear.mean() > 0.5  # most positions are clear: the check has teeth
        assert idx[clear].tolist() == want_idx[clear].tolist()


def test_ties_and_errors():
    x = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [5, 5]], dtype=np.float32)
    idx, dist = neighbors(x, 0, 3, "euclidean")
    assert idx.tolist() == [1, 2, 3] and dist.tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="out of range"):
        neighbors(x, 5)
    with pytest.raises(ValueError, match="metric"):
        neighbors(x, 0, metric="manhattan")
