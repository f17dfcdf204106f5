"""byte_extremes: each byte column's least and greatest value, whatever the rows' layout."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.format.byte_columns import FOLD, _columns_of, byte_extremes, gather_rows


@pytest.mark.parametrize("n", [1, 2, FOLD - 1, FOLD, FOLD + 1, 5 * FOLD + 17])
def test_extremes_are_each_columns_min_and_max(n: int) -> None:
    """C-contiguous rows, a slice of their columns (reduced in the whole array), rows that are no
    such slice (every other row, reversed columns): numpy's min and max of each column."""
    rng = np.random.default_rng(n)
    rows = rng.integers(0, 256, (n, 60), dtype=np.uint8)
    rows[:, 10:20] = rng.integers(0, 256, 10, dtype=np.uint8)  # shared by every row
    rows[:, 30] = rng.integers(100, 103, n)  # few values
    views = [rows, rows[:, 1:57], rows[:, 59:], rows[:, :1], rows[::2, 3:9], rows[:, ::-1], rows[:, ::2]]
    for view in views:
        low, high = byte_extremes(view)
        assert low.tolist() == view.min(axis=0).tolist() and high.tolist() == view.max(axis=0).tolist()


def test_a_column_slice_is_recognised_and_nothing_else_is() -> None:
    rows = np.zeros((10, 60), dtype=np.uint8)
    base, first = _columns_of(rows[:, 4:9])
    assert base is rows and first == 4
    for other in (rows[::2, 4:9], rows[:, ::-1], rows[:, ::2], rows[1:, 4:9], rows.reshape(20, 30)[:, 1:3]):
        assert _columns_of(other) is None, other.strides


@pytest.mark.parametrize("width", [1, 4, 12, 61])
def test_gathered_rows_are_the_bytes_at_each_start(width: int) -> None:
    """Rows from any start (repeated, unsorted, the last whole one) of a read-only buffer, as a
    2-D sliding window of it gives them; none from no starts; an index past the last whole row
    refused."""
    from numpy.lib.stride_tricks import sliding_window_view

    rng = np.random.default_rng(width)
    a = np.frombuffer(rng.bytes(1000), dtype=np.uint8)
    starts = np.concatenate((rng.integers(0, 1000 - width + 1, 300), [0, 1000 - width, 5, 5]))
    rows = gather_rows(a, starts, width)
    assert rows.flags.c_contiguous and rows.flags.writeable and rows.shape == (len(starts), width)
    assert np.array_equal(rows, sliding_window_view(a, width)[starts])
    assert gather_rows(a, starts[:0], width).shape == (0, width)
    with pytest.raises(IndexError):
        gather_rows(a, np.array([1000 - width + 1]), width)
