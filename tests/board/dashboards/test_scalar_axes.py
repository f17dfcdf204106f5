"""The scalar cards' extra x axes (log step, relative step, another scalar tag), on logs written
by torch's SummaryWriter, asked for as the page asks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from traitlets import TraitError

from tbnb.board.dashboards.scalar_axes import x_at_steps
from tbnb.reader.runs.series import ScalarSeries

from ..conftest import Page

LOSS = [5.0, 4.0, 3.5, 3.0, 2.0, 2.5, 1.5, 1.75, 1.6, 1.7]
STORED = np.asarray(LOSS, dtype=np.float32).astype(np.float64).tolist()  # as simple_value keeps them


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run "a": loss at steps 0..9, epoch at steps 0, 4, 8 (values 0, 1, 2); run "late": loss
    at steps 1000..1004 (resumed from a checkpoint), no epoch; run "restart": steps 0..9 then
    again from 5 (the reader purges 5..9 of the first pass)."""
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("axes")
    with SummaryWriter(str(root / "a")) as w:
        for step, value in enumerate(LOSS):
            w.add_scalar("loss", value, step)
            if step % 4 == 0:
                w.add_scalar("epoch", step // 4, step)
    with SummaryWriter(str(root / "late")) as w:
        for i in range(5):
            w.add_scalar("loss", 10.0 - i, 1000 + i)
    with SummaryWriter(str(root / "restart")) as w:
        for step in range(10):
            w.add_scalar("loss", float(step), step)
        w.flush()
        for step in range(5, 8):
            w.add_scalar("loss", 100.0 + step, step)
    return root


def series(page: Page, axis: str, **fields: object) -> dict:
    return page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["a", "late", "restart"],
                         "x_axis": axis, "range": None, "width": 400, **fields})


def by_run(reply: dict) -> dict[str, dict]:
    return {e["run"]: e for e in reply["series"]}


def test_log_step_leaves_out_steps_below_one(make_board, logdir: Path) -> None:
    reply = by_run(series(Page(make_board(logdir)), "log_step"))
    a = reply["a"]
    # step 0 cannot sit on a log axis: the 9 other points are drawn, the count says so
    assert a["x"].tolist() == [float(s) for s in range(1, 10)] and a["step"].tolist() == list(range(1, 10))
    assert a["y"].tolist() == STORED[1:] and (a["total"], a["dropped"], a["exact"]) == (9, 1, True)
    assert reply["late"]["x"].tolist() == [1000.0, 1001.0, 1002.0, 1003.0, 1004.0]
    assert reply["late"]["dropped"] == 0


def test_log_step_zoom_is_exact_and_downsampling_even_in_log(make_board, tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path / "big")) as w:
        for step in range(1, 5001):
            w.add_scalar("loss", float(np.sin(step)), step)
    page = Page(make_board(tmp_path))
    ask = {"type": "series", "id": 2, "tag": "loss", "runs": ["big"], "x_axis": "log_step", "width": 100}
    whole = page.decoded({**ask, "range": None})["series"][0]
    assert not whole["exact"] and whole["total"] == 5000
    # buckets even in log10(step): the decade 1..10 keeps as many columns as 1000..5000 nearly
    low = np.count_nonzero(whole["x"] < 10)
    assert low >= 9  # all of steps 1..9 (each its own log bucket)
    zoom = page.decoded({**ask, "range": [10, 40]})["series"][0]
    assert zoom["exact"] and zoom["x"].tolist() == [float(s) for s in range(10, 41)]


def test_relative_step_starts_each_run_at_zero(make_board, logdir: Path) -> None:
    reply = by_run(series(Page(make_board(logdir)), "relative_step"))
    assert reply["a"]["x"].tolist() == [float(s) for s in range(10)]
    assert reply["late"]["x"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert reply["late"]["step"].tolist() == [1000, 1001, 1002, 1003, 1004]


def test_restart_is_drawn_as_the_reader_keeps_it(make_board, logdir: Path) -> None:
    r = by_run(series(Page(make_board(logdir)), "step"))["restart"]
    # the first pass's steps 5..9 were purged when the run went back to step 5
    assert r["step"].tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert r["y"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 105.0, 106.0, 107.0]


def test_x_by_tag_uses_the_value_at_the_closest_step_at_or_before(make_board, logdir: Path) -> None:
    reply = series(Page(make_board(logdir)), "epoch")
    entries = by_run(reply)
    assert reply["x_axis"] == "epoch" and set(entries) == {"a"}
    assert reply["absent"] == ["late", "restart"]  # hold the loss, not the epoch tag
    a = entries["a"]
    assert a["step"].tolist() == list(range(10))
    assert a["x"].tolist() == [0.0] * 4 + [1.0] * 4 + [2.0] * 2
    assert a["y"].tolist() == STORED


def test_x_by_tag_zoom_is_exact(make_board, logdir: Path) -> None:
    a = by_run(series(Page(make_board(logdir)), "epoch", range=[1, 2]))["a"]
    assert a["exact"] and a["step"].tolist() == list(range(4, 10)) and a["total"] == 6


def test_x_by_an_unknown_tag_is_a_clear_error(make_board, logdir: Path) -> None:
    reply = Page(make_board(logdir)).decoded({"type": "series", "id": 3, "tag": "loss", "runs": ["a"],
                                               "x_axis": "no_such_tag", "range": None, "width": 100})
    assert reply["type"] == "error" and "'x_axis'" in reply["message"] and "no_such_tag" in reply["message"]


def test_x_at_steps_rule() -> None:
    tag = ScalarSeries(step=np.array([2, 5, 5, 9]), wall_time=np.zeros(4), value=np.array([1.0, 2.0, 3.0, 4.0]))
    got = x_at_steps(tag, np.array([0, 2, 4, 5, 8, 9, 100]))
    # before the first step: none; equal steps: the last point at that step
    assert np.isnan(got[0]) and got[1:].tolist() == [1.0, 1.0, 3.0, 3.0, 4.0, 4.0]


def test_board_x_axis_takes_fixed_axes_and_tag_names(make_board, logdir: Path) -> None:
    board = make_board(logdir)
    for axis in ("log_step", "relative_step", "epoch"):
        board.x_axis = axis
        assert board.x_axis == axis
    for bad in ("", None, 3):
        with pytest.raises(TraitError):
            board.x_axis = bad


def test_view_on_a_tag_axis_leaves_out_runs_without_it(make_board, logdir: Path) -> None:
    board = make_board(logdir, x_axis="epoch")
    frame = board.view
    assert set(frame["run"]) == {"a"}  # loss of "a" and its epoch tag itself
    board.view_state = {"tags": {"loss": {"x": [1, 1]}}, "x_axis": "epoch"}
    loss = board.view.query("tag == 'loss'")
    assert loss["step"].tolist() == [4, 5, 6, 7]


def test_x_values_of_the_new_fixed_axes() -> None:
    from tbnb.board.dashboards.common import x_values

    s = ScalarSeries(step=np.array([7, 8, 10]), wall_time=np.zeros(3), value=np.zeros(3))
    assert x_values(s, "log_step", None).tolist() == [7.0, 8.0, 10.0]
    assert x_values(s, "relative_step", None).tolist() == [0.0, 1.0, 3.0]
