"""Histogram rebinning and the distribution compressor, against hand-computed cases and against
TensorBoard's own compressor."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tbnb.format.proto import summary_pb2
from tbnb.reader.events import data_compat
from tbnb.reader.plugins.histograms import BASIS_POINTS, bin_edges, compress, rebin, value_range
from tbnb.testing import histogram_buckets


def h(*buckets: tuple[float, float, float]) -> np.ndarray:
    return np.array(buckets, dtype=np.float64).reshape(-1, 3)


# -- rebinning --------------------------------------------------------------------------------------

def test_all_equal_values_widen_the_range_and_land_in_one_bin() -> None:
    equal = histogram_buckets(np.full(4, 2.0), bins=3)  # [[2,2,0], [2,2,0], [2,2,4]]
    edges, counts = rebin([equal])
    lo, hi = 2 / 1.1 - 1, 2 * 1.1 + 1  # TensorBoard's zero-width rule
    np.testing.assert_allclose(edges, np.linspace(lo, hi, 31), rtol=0, atol=1e-12)
    assert edges[0] == lo and edges[-1] == hi
    # (2 - lo) / (hi - lo) = (13/11) / (26.2/11) = 0.496..., so bin floor(30 * 0.496) = 14
    expected = np.zeros((1, 30))
    expected[0, 14] = 4
    assert np.array_equal(counts, expected)


def test_zero_width_range_rule_for_negative_and_zero_values() -> None:
    assert bin_edges(-5.0, -5.0, 2).tolist() == [-5 / 1.1 - 1, (-5 / 1.1 - 1 + -5 * 1.1 + 1) / 2, -5 * 1.1 + 1]
    assert bin_edges(0.0, 0.0, 4).tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]


def test_empty_histograms() -> None:
    no_buckets, zeros = np.zeros((0, 3)), histogram_buckets(np.array([]), bins=30)  # TF1 and TF2 forms
    edges, counts = rebin([no_buckets, zeros])
    assert edges.tolist() == np.linspace(-1, 1, 31).tolist()  # no range: that of a histogram at 0
    assert counts.shape == (2, 30) and not counts.any()
    edges, counts = rebin([])
    assert edges.shape == (31,) and counts.shape == (0, 30)


def test_empty_steps_do_not_pull_the_range_to_zero() -> None:
    zeros = histogram_buckets(np.array([]), bins=30)  # edges all 0, counts 0
    edges, counts = rebin([zeros, h((4, 6, 10))], bins=2)
    assert edges.tolist() == [4, 5, 6]
    assert counts.tolist() == [[0, 0], [5, 5]]
    assert value_range([zeros, h((4, 6, 10))]) == (4.0, 6.0)
    assert value_range([zeros]) is None


def test_tf1_histo_with_empty_end_buckets() -> None:
    histo = summary_pb2.HistogramProto(min=0.5, max=2.5, num=4, sum=6, sum_squares=10,
                                       bucket_limit=[0, 1, 2, 3, 4], bucket=[0, 1, 3, 0, 0])
    buckets = data_compat.histogram_from_histo(histo)  # trimmed: [0.5, 1) 1 and [1, 2.5] 3
    assert buckets.tolist() == [[0.5, 1, 1], [1, 2.5, 3]]
    edges, counts = rebin([buckets], bins=2)
    assert edges.tolist() == [0.5, 1.5, 2.5]
    # [0.5, 1) is inside bin 0; [1, 2.5] overlaps bin 0 by 0.5 of its 1.5 (1 of 3) and bin 1 by 1.0
    np.testing.assert_allclose(counts, [[1 + 1, 2]], rtol=1e-15)
    edges, counts = rebin([buckets])
    assert edges[0] == 0.5 and edges[-1] == 2.5
    # both buckets hold 2 per unit of x (1 in 0.5, 3 in 1.5): every bin of width 1/15 gets 2/15
    np.testing.assert_allclose(counts, np.full((1, 30), 2 / 15), rtol=1e-12)


def test_tf1_histograms_written_by_event_writer(tmp_path) -> None:
    from tbnb import load
    from tbnb.testing import EventWriter

    with EventWriter(tmp_path / "run", start_time=1.0) as w:
        w.add_histogram("h", np.array([0.0, 1.0, 1.0, 3.0]), 0, bins=3, wall_time=2.0)
        w.add_histogram("h", np.array([5.0, 5.0]), 1, bins=3, wall_time=3.0)
        w.add_histogram("h", np.array([]), 2, wall_time=4.0)
    series = load(tmp_path).tensors("run", "h")
    values = list(series.values)
    assert [v.shape[0] for v in values] == [3, 1, 0]
    edges, counts = rebin(values, bins=5)
    assert edges.tolist() == [0, 1, 2, 3, 4, 5]  # min over all steps 0, max 5
    # step 0: [0,1) 1, [1,2) 2, [2,3] 1; step 1: the point 5 is the closed last bin's; step 2 empty
    assert counts.tolist() == [[1, 2, 1, 0, 0], [0, 0, 0, 0, 2], [0, 0, 0, 0, 0]]


def test_overlap_is_split_in_proportion() -> None:
    edges, counts = rebin([h((0, 2, 4)), h((1, 4, 6)), h((0, 0.5, 1), (0.5, 3.5, 3))], bins=4)
    assert edges.tolist() == [0, 1, 2, 3, 4]
    assert counts.tolist() == [[2, 2, 0, 0], [0, 2, 2, 2], [1 + 0.5, 1, 1, 0.5]]


@pytest.mark.parametrize(("x", "bin_index"), [(0.0, 0), (0.99, 0), (1.0, 1), (2.0, 2), (3.5, 3), (4.0, 3)])
def test_zero_width_bucket_goes_wholly_into_its_bin(x: float, bin_index: int) -> None:
    edges, counts = rebin([h((0, 4, 1)), h((x, x, 5))], bins=4)  # the first step sets the range
    assert edges.tolist() == [0, 1, 2, 3, 4]
    expected = [0.0] * 4
    expected[bin_index] = 5
    assert counts[1].tolist() == expected  # bins are [l, r), the last one [l, r]


def test_ragged_steps_and_many_buckets_are_fast_and_conserve_counts() -> None:
    rng = np.random.default_rng(1)
    steps = [histogram_buckets(rng.normal(s / 100, 1, size=1000), bins=int(rng.integers(1, 60)))
             for s in range(500)]
    steps.append(np.column_stack([np.linspace(-3, 3, 2000)[:-1], np.linspace(-3, 3, 2000)[1:], np.ones(1999)]))
    t0 = time.perf_counter()
    edges, counts = rebin(steps)
    elapsed = time.perf_counter() - t0
    assert counts.shape == (501, 30) and edges.shape == (31,)
    np.testing.assert_allclose(counts.sum(axis=1), [s[:, 2].sum() for s in steps], rtol=1e-12)
    assert edges[0] == min(s[0, 0] for s in steps) and edges[-1] == max(s[-1, 1] for s in steps)
    assert elapsed < 1.0


def test_malformed_histogram_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"histogram 1 has shape \[4\]"):
        rebin([h((0, 1, 1)), np.arange(4.0)])


# -- the distribution compressor ------------------------------------------------------------------

def test_compressor_by_hand() -> None:
    buckets = h((0.5, 1, 1), (1, 2.5, 3))  # cumulative weights 2500, 10000
    values = compress([buckets])[0]
    expected = [0.5, 0.5 + 668 * 0.5 / 2500, 0.5 + 1587 * 0.5 / 2500,
                1 + 585 * 1.5 / 7500, 1.5, 1 + 4415 * 1.5 / 7500, 1 + 5913 * 1.5 / 7500, 1 + 6832 * 1.5 / 7500,
                2.5]
    np.testing.assert_allclose(values, expected, rtol=1e-15)


def test_compressor_all_equal_and_empty() -> None:
    equal = histogram_buckets(np.full(7, -3.0), bins=30)
    out = compress([equal, np.zeros((0, 3)), histogram_buckets(np.array([]), bins=30), np.zeros((0, 3))])
    assert out.shape == (4, 9)
    assert out[0].tolist() == [-3.0] * 9
    assert not out[1:].any()
    assert compress([]).shape == (0, 9)


def _random_histogram(rng: np.random.Generator) -> np.ndarray:
    k = int(rng.integers(1, 50))
    edges = np.sort(rng.normal(rng.normal(0, 10), rng.uniform(0.01, 5), size=k + 1))
    kind = rng.integers(0, 4)
    if kind == 0:
        counts = rng.integers(0, 20, size=k).astype(np.float64)
    elif kind == 1:
        counts = rng.uniform(0, 3, size=k)  # fractional counts (weighted histograms)
    elif kind == 2:
        counts = rng.integers(0, 5, size=k).astype(np.float64)
        counts[: k // 3] = 0  # leading and trailing empty buckets
        counts[k - k // 3:] = 0
    else:
        counts = np.zeros(k)
        counts[rng.integers(0, k)] = rng.integers(1, 100)  # all the mass in one bucket
    return np.column_stack([edges[:-1], edges[1:], counts])


def test_compressor_equals_tensorboards_on_random_histograms() -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.plugins.distribution.compressor import compress_histogram

    rng = np.random.default_rng(2024)
    steps = [_random_histogram(rng) for _ in range(400)]
    steps += [histogram_buckets(np.full(3, 1.5)), np.zeros((0, 3)), histogram_buckets(rng.normal(size=100))]
    ours = compress(steps)  # one call over ragged steps
    theirs = np.array([[v for _, v in compress_histogram(s)] for s in steps])
    assert np.array_equal(ours, theirs)  # bit for bit
    assert [bp for bp, _ in compress_histogram(steps[0])] == list(BASIS_POINTS)
