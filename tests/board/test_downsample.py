"""minmax_downsample: bounded size, extremes, first/last, order, non-finite values."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.board.downsample import minmax_downsample, minmax_downsample_many


def _bucket_extremes(x: np.ndarray, y: np.ndarray, width: int) -> list[tuple[float, float]]:
    """Brute force: (min, max) of the finite y in each equal-width x bucket."""
    edges = np.linspace(x.min(), x.max(), width + 1)
    out = []
    for i in range(width):
        hi_ok = x <= edges[i + 1] if i == width - 1 else x < edges[i + 1]
        m = (x >= edges[i]) & hi_ok & np.isfinite(y)
        if m.any():
            out.append((y[m].min(), y[m].max()))
    return out


def test_exact_up_to_twice_the_width() -> None:
    y = np.random.default_rng(1).normal(size=200)
    x = np.arange(200.0)
    assert minmax_downsample(x, y, 100).tolist() == list(range(200))
    assert len(minmax_downsample(np.arange(1000.0), np.tile(y, 5), 100)) <= 202


def test_size_bounded_order_kept_first_and_last() -> None:
    rng = np.random.default_rng(2)
    n, width = 100_000, 300
    x = np.arange(n, dtype=np.float64)
    y = np.cumsum(rng.normal(size=n))
    idx = minmax_downsample(x, y, width)
    assert len(idx) <= 2 * width + 2
    assert np.all(np.diff(idx) > 0)
    assert idx[0] == 0 and idx[-1] == n - 1
    assert idx.dtype == np.int64


def test_every_bucket_keeps_its_min_and_max() -> None:
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(0, 1000, size=20_000))  # irregular spacing
    y = rng.normal(size=x.size)
    y[12_345] = 50.0  # a spike
    y[777] = -60.0
    width = 64
    idx = minmax_downsample(x, y, width)
    kept = set(idx.tolist())
    assert 12_345 in kept and 777 in kept
    # every bucket's extremes are among the kept values of that bucket
    kept_values = set(y[idx].tolist())
    for lo, hi in _bucket_extremes(x, y, width):
        assert lo in kept_values and hi in kept_values


def test_unsorted_x_still_keeps_extremes() -> None:
    rng = np.random.default_rng(4)
    x = rng.permutation(np.arange(5000.0))
    y = np.sin(x / 100.0)
    y[42] = 9.0
    idx = minmax_downsample(x, y, 50)
    assert 42 in idx and np.all(np.diff(idx) > 0) and len(idx) <= 102


def test_non_finite_values_are_kept_per_bucket() -> None:
    n, width = 10_000, 10
    x = np.arange(n, dtype=np.float64)
    y = np.zeros(n)
    y[[100, 101, 5000]] = np.nan
    y[2500] = np.inf
    y[7500] = -np.inf
    idx = set(minmax_downsample(x, y, width).tolist())
    assert {100, 5000, 2500, 7500} <= idx  # first NaN of each bucket, and each infinity
    assert 101 not in idx  # one NaN per bucket is enough to show the gap


def test_all_same_x_and_all_nan() -> None:
    y = np.arange(1000.0)
    idx = minmax_downsample(np.zeros(1000), y, 10)
    assert idx.tolist() == [0, 999]
    nan_idx = minmax_downsample(np.arange(1000.0), np.full(1000, np.nan), 10)
    assert 0 in nan_idx and 999 in nan_idx and len(nan_idx) <= 12


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        minmax_downsample(np.arange(3.0), np.arange(4.0), 10)
    with pytest.raises(ValueError):
        minmax_downsample(np.arange(3.0), np.arange(3.0), 0)


def test_many_series_keep_what_each_would_keep() -> None:
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(0, 100, 5000))
    line = rng.normal(size=5000)
    lower, upper = line - rng.uniform(0, 1, 5000), line + rng.uniform(0, 1, 5000)
    upper[1234] = np.nan
    lower[4321] = -np.inf
    union = set()
    for y in (line, lower, upper):
        union |= set(minmax_downsample(x, y, 50).tolist())
    assert minmax_downsample_many(x, [line, lower, upper], 50).tolist() == sorted(union)
    assert minmax_downsample_many(x[:80], [line[:80]], 50).tolist() == list(range(80))
    with pytest.raises(ValueError):
        minmax_downsample_many(x, [line[:10]], 50)
