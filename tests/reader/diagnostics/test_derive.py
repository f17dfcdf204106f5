"""Derived series over logdirs written by the real writers: the alignment rule (steps every tag
has, the last point of a step, the latest wall time), runs left out, and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins.diagnostics.align import last_per_step
from tbnb.reader.plugins.diagnostics.derive import UnknownTagError, derived_series
from tbnb.reader.plugins.diagnostics.expression import ExpressionError
from tbnb.testing import EventWriter

from .conftest import ALL_WRITERS, as_written, write_run

TRAIN = [2.3, 1.9, 1.5, 1.2, 1.0, 0.85, 0.7, 0.6, 0.52, 0.45]
VAL = {0: 2.31, 3: 1.4, 6: 0.9, 9: 0.8, 11: 0.75}  # validation every third step, and once after


@pytest.mark.parametrize("kind", ALL_WRITERS)
def test_derive_at_the_steps_every_tag_has(tmp_path: Path, kind: str) -> None:
    write_run(kind, tmp_path / "a", {"loss/train": TRAIN, "loss/val": VAL})
    write_run(kind, tmp_path / "b", {"loss/train": TRAIN})  # no validation: left out
    lg = tbnb.load(tmp_path)
    df = lg.derive("{loss/val} - {loss/train}")
    assert list(df.columns) == ["run", "step", "value", "wall_time"]
    assert df["run"].unique().tolist() == ["a"]
    steps = [0, 3, 6, 9]  # step 11 has no training point: no derived point
    assert df["step"].tolist() == steps
    expected = as_written([VAL[s] for s in steps]) - as_written([TRAIN[s] for s in steps])
    np.testing.assert_array_equal(df["value"].to_numpy(), expected)  # same float64 subtraction
    assert df.attrs == {"name": "{loss/val} - {loss/train}", "expression": "{loss/val} - {loss/train}"}
    ratio = lg.derive("{loss/train} / {loss/val}", name="ratio", runs=["a"])
    assert ratio.attrs["name"] == "ratio"
    np.testing.assert_array_equal(ratio["value"].to_numpy(),
                                  as_written([TRAIN[s] for s in steps]) / as_written([VAL[s] for s in steps]))


def test_wall_time_is_the_latest_input(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "r", start_time=0) as w:
        for step in range(4):
            w.add_scalar("x", 1.0, step, wall_time=100.0 + step)
            w.add_scalar("y", 2.0, step, wall_time=200.0 - step)  # later early, earlier later
    df = tbnb.load(tmp_path).derive("{x} * {y}")
    assert df["wall_time"].tolist() == [max(100.0 + s, 200.0 - s) for s in range(4)]


def test_several_points_at_one_step_use_the_last(tmp_path: Path) -> None:
    # Without the purge of orphaned data the reader keeps every point a step was logged with.
    with EventWriter(tmp_path / "r", start_time=0) as w:
        for step in range(4):
            w.add_scalar("x", float(step), step, wall_time=10.0 + step)
            w.add_scalar("y", 1.0, step, wall_time=10.0 + step)
        w.add_scalar("x", 50.0, 2, wall_time=30.0)  # step 2 again, written last
        w.add_scalar("x", 60.0, 2, wall_time=31.0)
    lg = tbnb.load(tmp_path, purge_orphaned_data=False)
    assert lg.scalars("r", "x").step.tolist().count(2) == 3  # the reader kept all three
    df = lg.derive("{x} + {y}")
    assert df["step"].tolist() == [0, 1, 2, 3]
    assert df["value"].tolist() == [1.0, 2.0, 61.0, 4.0]
    assert df["wall_time"].tolist()[2] == 31.0


def test_last_per_step() -> None:
    step = np.array([0, 1, 1, 1, 2, 5, 5])
    value = np.arange(7.0)
    s, v = last_per_step(step, value)
    assert s.tolist() == [0, 1, 2, 5] and v.tolist() == [0.0, 3.0, 4.0, 6.0]
    s, v = last_per_step(np.array([3]), np.array([1.0]))
    assert s.tolist() == [3] and v.tolist() == [1.0]


def test_division_by_zero_gives_non_finite_points(tmp_path: Path) -> None:
    write_run("tbnb", tmp_path / "r", {"a": [1.0, 0.0, -1.0, 2.0], "b": [0.0, 0.0, 0.0, 4.0]})
    with np.errstate(all="raise"):
        df = tbnb.load(tmp_path).derive("{a} / {b}")
    v = df["value"].to_numpy()
    assert np.isposinf(v[0]) and np.isnan(v[1]) and np.isneginf(v[2]) and v[3] == 0.5


def test_unknown_tag_names_the_closest(tmp_path: Path) -> None:
    write_run("tbnb", tmp_path / "a", {"loss/train": TRAIN, "loss/val": VAL})
    write_run("tbnb", tmp_path / "b", {"accuracy/val": [0.5, 0.6]})
    lg = tbnb.load(tmp_path)
    with pytest.raises(UnknownTagError, match=r"no run has a scalar tag 'loss/vall'; closest: 'loss/val'"):
        lg.derive("{loss/vall} - {loss/train}")
    with pytest.raises(UnknownTagError) as err:
        lg.derive("{zzzzz}")
    assert "closest" not in str(err.value)
    with pytest.raises(ExpressionError, match="position 12"):
        lg.derive("{loss/val} +")
    with pytest.raises(ValueError, match="names no tag"):
        lg.derive("1 + 2")
    with pytest.raises(ValueError, match="no run 'c'"):
        lg.derive("{loss/val}", runs=["c"])
    with pytest.raises(ValueError, match="non-empty"):
        lg.derive("{loss/val}", name="")
    # a tag held only by a run not chosen counts as unknown
    with pytest.raises(UnknownTagError):
        lg.derive("{accuracy/val}", runs=["a"])


def test_tags_in_different_runs_give_an_empty_frame(tmp_path: Path) -> None:
    write_run("tbnb", tmp_path / "a", {"x": [1.0, 2.0]})
    write_run("tbnb", tmp_path / "b", {"y": [1.0, 2.0]})
    lg = tbnb.load(tmp_path)
    df = lg.derive("{x} + {y}")
    assert df.empty and list(df.columns) == ["run", "step", "value", "wall_time"]
    assert derived_series(lg, "{x} * 2")["a"].value.tolist() == [2.0, 4.0]
