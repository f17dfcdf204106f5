"""The kernel's smoothing (tbnb/board/smoothing.py) against TensorBoard's loop, one step per point.

The kernel sums in blocks (a matrix product per series) instead of the page's loop; these tests
hold it to the loop's values within the error bounds of the two algorithms (tests/smoothing_bounds.py
derives them: they grow with the block length and with 1 / (1 - w), and hold whatever order the
CPU's product sums in), on generated series long enough to cross many blocks, with non-finite
values, every kind of weight and the "constant" rule. (tests/board/dashboards/test_step_table.py
checks it against js/src/smoothing.js too.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tbnb.board.smoothing import BLOCK, _nonzero_weights, smooth, smoothed_at
from tests.smoothing_bounds import blocked_error, dot_error, kernel_vs_loop, loop_error

from .dashboards.test_step_table import reference_smooth as loop_smooth  # the loop, one step per point


def assert_close_to_loop(ys: np.ndarray, w: float) -> None:
    got = smooth(ys, w)
    want = np.asarray(loop_smooth(ys.tolist(), w), dtype=np.float64)
    assert got.shape == want.shape
    finite = np.isfinite(want)
    # Non-finite values pass through exactly, at their places.
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)
    assert np.isfinite(got[finite]).all()
    error = np.abs(got[finite] - want[finite])
    bound = kernel_vs_loop(ys, min(1.0, max(0.0, w)))[finite]
    assert (error <= bound).all(), (w, len(ys), np.flatnonzero(error > bound)[:5])


@pytest.mark.parametrize("w", [0.0, 0.1, 0.6, 0.9, 0.99, 0.999, 1.0])
def test_long_series_match_the_loop(w: float) -> None:
    rng = np.random.default_rng(int(w * 1000))
    for n in (1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 5 * BLOCK + 3, 20_000):
        assert_close_to_loop(rng.normal(size=n).cumsum(), w)


def test_generated_series_with_gaps_and_magnitudes_match_the_loop() -> None:
    rng = np.random.default_rng(16)
    for _ in range(1500):
        n = int(rng.integers(1, 4 * BLOCK))
        w = float(rng.choice([0.0, 0.5, 0.6, 0.95, 1.0, rng.random()]))
        ys = rng.normal(size=n).cumsum() * 10.0 ** int(rng.integers(-8, 9))
        if rng.random() < 0.4:
            ys[rng.integers(0, n, size=max(1, n // 7))] = rng.choice([np.nan, np.inf, -np.inf])
        assert_close_to_loop(ys, w)


def test_a_prefix_is_the_start_of_the_whole() -> None:
    ys = np.random.default_rng(3).normal(size=1000)
    whole = smooth(ys, 0.8)
    for upto in (0, 1, 63, 64, 65, 999, 1000, 5000):
        part = smooth(ys, 0.8, upto=upto)
        assert len(part) == min(upto, 1000)
        # Both are the same algorithm on the same points, but the product's shape differs (its
        # summation order may too): each is within blocked_error of the exact average.
        assert (np.abs(part - whole[: len(part)]) <= 2 * blocked_error(ys, 0.8)[: len(part)]).all()


def test_edge_cases_as_tensorboard() -> None:
    assert smooth(np.array([]), 0.6).size == 0
    assert smooth(np.array([4.0, 4.0, 4.0]), 0.5).tolist() == [4.0, 4.0, 4.0]  # constant: unchanged
    assert smooth(np.array([1.0, 2.0]), 1.0).tolist() == [0.0, 0.0]  # weight 1: never moves
    assert smooth(np.array([1.0, 3.0]), 0.0).tolist() == [1.0, 3.0]
    only_gaps = smooth(np.array([np.nan, np.inf, 1.0]), 0.6)
    assert math.isnan(only_gaps[0]) and only_gaps[1] == math.inf and only_gaps[2] == 1.0
    # A non-finite weight counts as 0, and weights are clamped to [0, 1].
    assert smooth(np.array([1.0, 3.0]), math.nan).tolist() == [1.0, 3.0]
    assert smooth(np.array([1.0, 2.0]), 7.0).tolist() == [0.0, 0.0]


def test_one_smoothed_point_is_that_point_of_the_whole_running_average() -> None:
    """``smoothed_at`` (the step table's one point a run) against the loop, at generated
    indices of generated series: gaps of non-finite values, magnitudes, every kind of weight,
    constant series, the first and the last point."""
    rng = np.random.default_rng(61)
    for case in range(1500):
        n = int(rng.integers(1, 3000)) if case % 10 else 20_000
        w = float(rng.choice([0.0, 0.5, 0.6, 0.95, 0.999, 1.0, rng.random()]))
        ys = rng.normal(size=n).cumsum() * 10.0 ** int(rng.integers(-8, 9))
        if rng.random() < 0.3:
            ys[rng.integers(0, n, size=max(1, n // 7))] = rng.choice([np.nan, np.inf, -np.inf])
        if rng.random() < 0.05:
            ys[:] = ys[0]
        want = np.asarray(loop_smooth(ys.tolist(), w), dtype=np.float64)
        for i in {0, n - 1, int(rng.integers(0, n))}:
            got = smoothed_at(ys, w, i)
            if not math.isfinite(want[i]):
                assert got == want[i] or (math.isnan(got) and math.isnan(want[i])), (case, i)
            else:
                kept = ys[: i + 1][np.isfinite(ys[: i + 1])]
                bound = 0.0 if w == 1 or np.all(ys == ys[0]) else dot_error(kept, w) + float(loop_error(kept, w)[-1])
                assert abs(got - want[i]) <= bound, (case, n, w, i, got, want[i], bound)
    with pytest.raises(IndexError):
        smoothed_at(np.arange(3.0), 0.6, 3)


@pytest.mark.parametrize("w", [1e-300, 1e-9, 0.01, 0.3, 0.5, 0.6, 0.9, 0.95, 0.99, 0.999, 0.999999, 1 - 1e-12])
def test_the_points_a_smoothed_point_leaves_out_weigh_exactly_zero(w: float) -> None:
    """``smoothed_at`` sums only the last ``_nonzero_weights`` points: every power from there on
    must be 0 in float64 (numpy's vectorised pow and the C library's), so that the points left
    out added exact zeros to the sum; and the cut must leave out points when there are many."""
    n = 10**16
    cut = _nonzero_weights(w, n)
    assert 1 <= cut < n
    ks = np.arange(cut, cut + 4096, dtype=np.float64)
    assert not np.any(np.float64(w) ** ks)
    assert all(math.pow(w, k) == 0.0 for k in range(cut, cut + 64))
    assert cut == 1 or np.float64(w) ** (cut // 2) > 0  # not far more than needed
    assert _nonzero_weights(w, 7) == min(7, cut)
    assert _nonzero_weights(0.0, 7) == 1 and _nonzero_weights(1.0, 7) == 7


def test_a_smoothed_point_of_a_long_series_is_its_whole_weighted_sum() -> None:
    """The default weight leaves out all but ~1,500 of 20,000 points: the result is the dot
    product of every point with its weight, the old points carrying large values (which a
    cut too early would let through)."""
    rng = np.random.default_rng(7)
    for w in (0.5, 0.6, 0.9):
        ys = rng.normal(size=20_000)
        ys[:18_000] *= 1e300
        kept = ys
        with np.errstate(under="ignore", over="ignore", invalid="ignore"):
            powers = np.float64(w) ** np.arange(len(kept) - 1, -1, -1, dtype=np.float64)
            terms = powers * kept
        want = float((1 - w) * math.fsum(terms.tolist()) / (1 - np.float64(w) ** len(kept)))
        got = smoothed_at(ys, w, len(ys) - 1)
        assert abs(got - want) <= dot_error(kept[-_nonzero_weights(w, len(kept)):], w) + abs(want) * 4 * np.finfo(float).eps
    assert smoothed_at(np.array([5.0, 1.0, 3.0]), 0.0, 2) == 3.0
