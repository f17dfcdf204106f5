"""Tests for ``tbnb.testing``: it re-exports the writer, so tests written against it keep working.

The writer's behaviour is tested in ``tests/writer/``; here only that every name ``tbnb.testing``
promises is the writer's own object, not a copy that could drift.
"""

from __future__ import annotations

import tbnb.writer
from tbnb import testing


def test_every_name_is_the_writers_own() -> None:
    assert testing.__all__ == [
        "EventWriter",
        "write_scalar_logdir",
        "write_demo_logdir",
        "encode_png",
        "encode_wav",
        "histogram_buckets",
        "pr_curve_data",
    ]
    for name in testing.__all__:
        assert getattr(testing, name) is getattr(tbnb.writer, name), name


def test_testing_defines_nothing_of_its_own() -> None:
    own = [
        name for name, value in vars(testing).items()
        if callable(value) and getattr(value, "__module__", "").startswith("tbnb.testing")
    ]
    assert own == []
