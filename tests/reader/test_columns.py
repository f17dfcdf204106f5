"""Columnar scalar series: preemption as if point by point, every point kept."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.reader.columns import ScalarColumns


def one_by_one(batches: list[list[int]]) -> list[int]:
    """Reference: apply preemption one point at a time (steps only)."""
    held: list[int] = []
    for batch in batches:
        for s in batch:
            held = [h for h in held if h < s] + [s]
    return held


@pytest.mark.parametrize("seed", range(20))
def test_bulk_preemption_equals_point_by_point(seed: int) -> None:
    rng = np.random.default_rng(seed)
    batches = [rng.integers(0, 50, int(rng.integers(0, 30))).tolist() for _ in range(4)]
    cols = ScalarColumns()
    for b in batches:
        arr = np.asarray(b, dtype=np.int64)
        cols.extend(arr, arr * 10.0, arr * 0.5)
    step, wall, value = cols.columns()
    assert step.tolist() == one_by_one(batches)
    assert np.array_equal(wall, step * 10.0) and np.array_equal(value, step * 0.5)


def test_restart_keeps_older_session_below_restart_step() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(100), np.zeros(100), np.zeros(100))
    cols.extend(np.arange(60, 120), np.ones(60), np.ones(60))
    step, wall, value = cols.columns()
    assert step.tolist() == list(range(120))
    assert value[:60].sum() == 0 and value[60:].sum() == 60


def test_no_preemption_keeps_everything_in_step_order() -> None:
    cols = ScalarColumns()
    cols.extend(np.array([0, 1, 2, 3]), np.zeros(4), np.array([0.0, 1, 2, 3]), preempt=False)
    cols.extend(np.array([2, 3]), np.zeros(2), np.array([20.0, 30]), preempt=False)
    step, _, value = cols.columns()
    assert step.tolist() == [0, 1, 2, 2, 3, 3]
    assert value.tolist() == [0, 1, 2, 20, 3, 30]


def test_purge_drops_steps_at_and_after() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(10), np.zeros(10), np.arange(10.0))
    assert cols.purge(4) == 6
    assert cols.columns()[0].tolist() == [0, 1, 2, 3]
    assert cols.purge(100) == 0


def test_cold_fill_holds_24_bytes_a_point() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(1000), np.zeros(1000), np.zeros(1000))
    assert cols.nbytes == 24 * 1000


def test_nan_and_inf_are_kept() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(3), np.zeros(3), np.array([np.nan, np.inf, -np.inf]))
    v = cols.columns()[2]
    assert np.isnan(v[0]) and v[1] == np.inf and v[2] == -np.inf


def test_columns_grow_in_place_or_by_copy_and_keep_every_point() -> None:
    """Appends after an exact cold fill grow the columns (in place when nothing views them, by a
    copy when something does); every point stays, and an outstanding view keeps its values."""
    cols = ScalarColumns()
    cols.extend(np.arange(1000), np.arange(1000) * 0.5, -np.arange(1000.0))
    assert cols.nbytes == 24 * 1000  # the cold fill is exact
    held = cols._step[:10]  # something viewing the step column: its growth must copy
    for lo in range(1000, 5000, 700):
        n = min(700, 5000 - lo)
        cols.extend(np.arange(lo, lo + n), np.arange(lo, lo + n) * 0.5, -np.arange(lo, lo + n, dtype=float))
    step, wall, value = cols.columns()
    assert step.tolist() == list(range(5000))
    assert wall.tolist() == (np.arange(5000) * 0.5).tolist() and value.tolist() == (-np.arange(5000.0)).tolist()
    assert held.tolist() == list(range(10))
