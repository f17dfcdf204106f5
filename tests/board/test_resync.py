"""``Board.refresh()`` re-sends the whole current state, so that a front end that missed the
messages sent while a cell ran (Colab, which renders nothing the poll thread sends) catches up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tbnb.board.codec import decode
from tbnb.board.resync import everything_changed
from tbnb.board.sources import MultiLogdir
from tbnb.testing import EventWriter

from .conftest import T0, Page


def series(request_id: int, runs: list[str]) -> dict[str, Any]:
    return {"type": "series", "id": request_id, "tag": "loss", "runs": runs, "x_axis": "step", "range": None,
            "width": 100}


def test_everything_changed_names_every_run_and_tag(small_logdir: Path) -> None:
    source = MultiLogdir.open(small_logdir, None)
    source.reload()  # opening reads nothing yet
    msg = everything_changed(source)
    assert msg["runs"] == ["a", "b"]
    assert msg["tags"] == {"a": ["acc", "loss", "weights"], "b": ["loss"]}
    assert msg["new_runs"] == msg["new_tags"] == msg["removed_runs"] == []


def test_a_page_that_missed_the_polls_messages_gets_the_current_data(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    page.ask(series(1, ["a", "b"]))
    with EventWriter(small_logdir / "a", start_time=T0) as w:
        for s in range(10, 13):
            w.add_scalar("loss", 0.01 * s, s, wall_time=T0 + 10 + s)
    page.board._poll_tick()  # what the poll thread does while the cell runs...
    assert [c["type"] for c, _ in page.recorder.sent if c.get("push")] == ["series"]
    page.recorder.sent.clear()  # ...and the front end never renders

    page.board.refresh()  # nothing new since that tick: the state is sent again all the same
    sent = page.recorder.sent
    assert not page.recorder.of_type("changed")  # nothing changed since the last reload
    ((index, _),) = page.recorder.of_type("index")
    assert [r["name"] for r in index["runs"]] == ["a", "b"]
    assert {r["name"]: r["color"] for r in index["runs"]} == page.board.run_colors
    (push,) = [decode(c, b) for c, b in sent if c.get("push")]
    assert push["id"] == 1 and push["runs"] == ["a", "b"]
    by_run = {s["run"]: s for s in push["series"]}
    assert by_run["a"]["step"].tolist() == list(range(13)) and by_run["b"]["step"].tolist() == list(range(5))
    assert by_run["a"]["y"][-1] == np.float32(0.12)


def test_refresh_resends_the_traits(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir, smoothing=0.7)
    states: list[dict[str, Any]] = []
    board.send_state = lambda key=None: states.append(board.get_state(key))  # type: ignore[method-assign]
    Page(board)
    board.refresh()
    assert len(states) == 1 and states[0]["smoothing"] == 0.7 and "run_colors" in states[0]


def test_new_data_is_announced_once_and_pushed_once(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    page.ask(series(1, ["b"]))
    with EventWriter(small_logdir / "b", start_time=T0 + 100) as w:
        w.add_scalar("loss", -5.0, 7, wall_time=T0 + 107)
    page.board.refresh()
    ((changed, _),) = page.recorder.of_type("changed")
    assert changed["tags"] == {"b": ["loss"]}
    (push,) = [decode(c, b) for c, b in page.recorder.sent if c.get("push")]
    assert push["series"][0]["step"].tolist() == [0, 1, 2, 3, 4, 7]


def test_a_closed_board_sends_nothing(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    page.ask(series(1, ["a"]))
    page.board.close()
    page.recorder.sent.clear()
    page.board.refresh()
    assert page.recorder.sent == []
