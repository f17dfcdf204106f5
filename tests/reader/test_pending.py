"""A run's pending scalar points joined at the end of a reload (``runs/pending.py``)."""

from __future__ import annotations

import numpy as np

from tbnb.reader.runs.pending import Pending


def test_a_first_point_read_by_protobuf_keeps_the_bulk_float32_values() -> None:
    # The tag's first point (it carries the metadata) comes through protobuf as a Python float;
    # the rest as the bulk decoder's float32 columns. Joined as float64, the series would be
    # copied plain and checked point by point; every value is a float32, so float32 it stays.
    p = Pending()
    p.steps.append(0), p.walls.append(1.5), p.values.append(float(np.float32(0.1)))
    p.add_columns(np.arange(1, 4), np.full(3, 2.0), np.float32([0.2, 0.3, 0.4]))
    steps, walls, values = p.columns()
    assert values.dtype == np.float32
    np.testing.assert_array_equal(values, np.float32([0.1, 0.2, 0.3, 0.4]))
    np.testing.assert_array_equal(steps, [0, 1, 2, 3])
    assert walls.dtype == np.float64 and p.chunks == []


def test_a_value_that_is_no_float32_keeps_float64() -> None:
    p = Pending()
    p.steps.append(0), p.walls.append(1.0), p.values.append(0.1)  # 0.1 is no float32
    p.add_columns(np.arange(1, 3), np.ones(2), np.float32([0.5, 0.25]))
    _, _, values = p.columns()
    assert values.dtype == np.float64
    assert values[0] == 0.1 and values[1] == 0.5


def test_nan_and_infinities_are_float32s() -> None:
    p = Pending()
    p.steps += [0, 1]
    p.walls += [0.0, 0.0]
    p.values += [float("nan"), float("-inf")]
    p.add_columns(np.arange(2, 3), np.zeros(1), np.float32([1.0]))
    _, _, values = p.columns()
    assert values.dtype == np.float32 and np.isnan(values[0]) and values[1] == -np.inf
