"""Each run's best point ("best, not last"): in series replies, CSV downloads and Board.view, on
logs written by torch's SummaryWriter; and the comparison settings' traits."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest
from traitlets import TraitError

from tbnb.board.dashboards.scalar_best import best_point
from tbnb.reader.runs.series import ScalarSeries

from ..conftest import Page

LOSS = [5.0, 4.0, math.nan, 3.0, 2.0, 2.5, 1.5, 1.75, 1.5, 1.7]  # min 1.5 first at step 6


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("best")
    with SummaryWriter(str(root / "a")) as w:
        for step, value in enumerate(LOSS):
            w.add_scalar("loss", value, step)
    with SummaryWriter(str(root / "b")) as w:
        for step, value in [(10, 0.5), (20, math.inf), (30, -1.0)]:
            w.add_scalar("loss", value, step)
    with SummaryWriter(str(root / "nan")) as w:
        w.add_scalar("loss", math.nan, 1)
    return root


def series(page: Page, best: str | None, axis: str = "step") -> dict[str, dict]:
    reply = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["a", "b", "nan"], "x_axis": axis,
                          "range": [0, 4] if axis == "step" else None, "width": 400, "best": best})
    assert reply["best"] == best
    return {e["run"]: e for e in reply["series"]}


def test_series_replies_carry_each_runs_best_over_every_point(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    low = series(page, "min")
    # the zoom range [0, 4] does not hold step 6: the best is over every point all the same
    assert low["a"]["best"] == {"value": 1.5, "step": 6, "x": 6.0}
    assert low["b"]["best"] == {"value": -1.0, "step": 30, "x": 30.0}
    assert low["nan"]["best"] is None  # no non-NaN value
    high = series(page, "max")
    assert high["a"]["best"] == {"value": 5.0, "step": 0, "x": 0.0}
    assert high["b"]["best"] == {"value": "Infinity", "step": 20, "x": 20.0}  # JSON has no inf
    assert series(page, None)["a"]["best"] is None


def test_best_point_off_the_axis_has_no_x(make_board, logdir: Path) -> None:
    high = series(Page(make_board(logdir)), "max", axis="log_step")
    assert high["a"]["best"] == {"value": 5.0, "step": 0, "x": None}  # step 0: not on a log axis


def test_bad_best_is_a_clear_error(make_board, logdir: Path) -> None:
    reply = Page(make_board(logdir)).decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["a"],
                                              "x_axis": "step", "range": None, "width": 100, "best": "last"})
    assert reply["type"] == "error" and "'best'" in reply["message"]


def test_csv_download_has_best_columns_when_asked(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    ask = {"type": "csv", "id": 2, "tag": "loss", "runs": ["a", "b"]}
    plain = list(csv.reader(io.StringIO(page.decoded(ask)["text"])))
    assert plain[0] == ["Run", "Wall time", "Step", "Value"]
    rows = list(csv.reader(io.StringIO(page.decoded({**ask, "best": "min"})["text"])))
    assert rows[0] == ["Run", "Wall time", "Step", "Value", "Best", "Best step"]
    assert {(r[0], r[4], r[5]) for r in rows[1:]} == {("a", "1.5", "6"), ("b", "-1.0", "30")}
    assert len(rows) == len(plain) == 1 + len(LOSS) + 3


def test_view_has_best_columns(make_board, logdir: Path) -> None:
    board = make_board(logdir)
    assert "best" not in board.view.columns
    board.best = "min"
    frame = board.view
    per_run = frame.groupby("run")[["best", "best_step"]].first()
    assert per_run.loc["a"].tolist() == [1.5, 6] and per_run.loc["b"].tolist() == [-1.0, 30]
    assert np.isnan(per_run.loc["nan", "best"])
    assert frame.groupby("run").size().to_dict() == {"a": 10, "b": 3, "nan": 1}


def test_best_point_ties_take_the_earliest_and_skip_nan() -> None:
    s = ScalarSeries(step=np.array([1, 2, 3, 4]), wall_time=np.zeros(4), value=np.array([np.nan, 2.0, 1.0, 1.0]))
    assert best_point(s, "min") == (1.0, 3, 2)
    assert best_point(s, "max") == (2.0, 2, 1)
    assert best_point(s, None) is None


def test_comparison_traits(make_board, logdir: Path) -> None:
    board = make_board(logdir, best="max", focus="a", partition_x=True)
    assert (board.best, board.focus, board.partition_x, board.restarts) == ("max", "a", True, "purge")
    board.focus = None
    board.best = None
    for name, bad in (("best", "last"), ("restarts", "segments"), ("partition_x", "yes")):
        with pytest.raises(TraitError):
            setattr(board, name, bad)
