"""Board.view: the DataFrame of the scalar points on screen."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from .conftest import T0


def rows(df) -> list[tuple[str, str, int]]:
    return list(zip(df["run"], df["tag"], df["step"]))


def test_unzoomed_view_is_every_shown_point(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir)
    df = board.view
    assert list(df.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert len(df) == 10 + 5 + 5  # a/loss, a/acc, b/loss; the histogram is not a scalar
    loss_a = df[(df.run == "a") & (df.tag == "loss")]
    assert loss_a["step"].tolist() == list(range(10))
    assert loss_a["wall_time"].tolist() == [T0 + 10 + s for s in range(10)]
    np.testing.assert_allclose(loss_a["value"], [1 / (s + 1) for s in range(10)], rtol=1e-6)
    assert df["step"].dtype == np.int64


def test_zoomed_card_limits_its_tag_only(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir)
    board.set_state({"view": {"tags": {"loss": {"x": [3, 6]}, "acc": {"x": None}}, "x_axis": "step"}})
    df = board.view
    assert sorted(rows(df[df.tag == "loss"])) == [("a", "loss", s) for s in range(3, 7)] + [("b", "loss", s) for s in (3, 4)]
    assert len(df[df.tag == "acc"]) == 5


def test_zoom_on_the_recorded_axis(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir, x_axis="step")
    board.view_state = {"tags": {"loss": {"x": [11.5, 13]}}, "x_axis": "relative"}
    assert rows(board.view[board.view.tag == "loss"]) == [("a", "loss", 2), ("a", "loss", 3)]
    board.view_state = {"tags": {"loss": {"x": [T0 + 100, T0 + 101]}}}  # no axis: the board's
    board.x_axis = "wall"
    assert rows(board.view[board.view.tag == "loss"]) == [("b", "loss", 0), ("b", "loss", 1)]


def test_shown_runs_and_tag_filter(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir)
    board.runs = ["b"]
    assert set(board.view["run"]) == {"b"}
    board.runs = [".*"]
    board.hidden_runs = ["a"]
    assert set(board.view["run"]) == {"b"}
    board.hidden_runs = []
    board.hidden_patterns = ["(?!(?:b)$)(?:.*)"]  # the run selector's narrowed form (runs.js)
    assert set(board.view["run"]) == {"b"}
    board.hidden_patterns = []
    board.tag_filter = "ACC"  # case-insensitive search
    assert set(board.view["tag"]) == {"acc"}
    board.tag_filter = "acc("  # invalid: filters nothing
    assert set(board.view["tag"]) == {"acc", "loss"}
    board.runs = ["(a|b)x"]  # full match: nothing
    assert board.view.empty and list(board.view.columns) == ["run", "tag", "step", "wall_time", "value"]


def test_malformed_view_state_means_unzoomed(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir)
    board.view_state = {"tags": {"loss": {"x": ["a", None]}, "acc": "junk"}, "x_axis": 5}
    assert len(board.view) == 20


def test_view_without_pandas(make_board, small_logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    board = make_board(small_logdir)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        _ = board.view
