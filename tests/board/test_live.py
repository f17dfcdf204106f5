"""Live updates: new events on disk -> one poll tick -> "changed" -> the page's next requests."""

from __future__ import annotations

import shutil
from pathlib import Path

from tbnb.board.protocol import PALETTE
from tbnb.testing import EventWriter

from .conftest import T0, Page, write_small_logdir


def changed(page: Page) -> list[dict]:
    return [c for c, _ in page.recorder.of_type("changed")]


def test_appended_points_are_announced_and_served(make_board, tmp_path: Path) -> None:
    writer = EventWriter(tmp_path / "a", start_time=T0)
    for s in range(5):
        writer.add_scalar("loss", float(s), s, wall_time=T0 + s)
    writer.flush()
    page = Page(make_board(tmp_path))
    before = page.board.status
    assert before["points"] == 5

    for s in range(5, 8):
        writer.add_scalar("loss", float(s), s, wall_time=T0 + s)
    writer.flush()
    page.board._poll_tick()
    assert changed(page) == [{"type": "changed", "runs": ["a"], "tags": {"a": ["loss"]}, "new_runs": [],
                              "new_tags": [], "removed_runs": []}]
    assert page.board.status["points"] == 8
    assert page.board.status["last_reload"] >= before["last_reload"]
    s = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 100})["series"][0]
    assert s["step"].tolist() == list(range(8)) and s["y"].tolist() == [float(v) for v in range(8)]
    writer.close()


def test_nothing_new_sends_nothing(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    status = page.board.status
    page.board._poll_tick()
    assert page.recorder.sent == [] and page.board.status == status


def test_new_run_and_new_tag(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    with EventWriter(small_logdir / "c", start_time=T0 + 200) as w:
        w.add_scalar("loss", 1.0, 0, wall_time=T0 + 201)
    with EventWriter(small_logdir / "b", start_time=T0 + 300) as w:
        w.add_scalar("lr", 0.1, 5, wall_time=T0 + 301)
    page.board.refresh()  # the same tick, on the calling thread
    (msg,) = changed(page)
    assert msg["runs"] == ["b", "c"] and msg["new_runs"] == ["c"]
    assert msg["tags"] == {"b": ["lr"], "c": ["loss"]}
    assert msg["new_tags"] == ["loss", "lr"]  # "loss" is new to run c, so its run list changed
    assert page.board.run_colors == {"a": PALETTE[0], "b": PALETTE[1], "c": PALETTE[2]}
    index = page.decoded({"type": "index"})
    assert [r["name"] for r in index["runs"]] == ["a", "b", "c"]
    assert {t["tag"]: t["runs"] for t in index["tags"]}["lr"] == ["b"]


def test_colours_cycle_and_are_never_overwritten(make_board, tmp_path: Path) -> None:
    for i in range(9):
        with EventWriter(tmp_path / f"r{i}", start_time=T0) as w:
            w.add_scalar("x", 1.0, 0, wall_time=T0)
    board = make_board(tmp_path, run_colors={"r1": "#000000"})
    expected = [PALETTE[0], "#000000", *PALETTE[1:], PALETTE[0]]
    assert [board.run_colors[f"r{i}"] for i in range(9)] == expected
    board.run_colors = {**board.run_colors, "r2": "#ABCDEF"}
    with EventWriter(tmp_path / "r9", start_time=T0) as w:
        w.add_scalar("x", 1.0, 0, wall_time=T0)
    board.refresh()
    assert board.run_colors["r2"] == "#abcdef" and board.run_colors["r9"] == PALETTE[1]


def test_removed_run(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    shutil.rmtree(small_logdir / "b")
    page.board._poll_tick()
    (msg,) = changed(page)
    assert msg["removed_runs"] == ["b"] and msg["runs"] == []
    assert page.board.status["runs"] == 1
    assert page.board.run_colors["b"] == PALETTE[1]  # kept: a run that comes back keeps its colour
    # The board says what happened, in its status and in the logdir's problems.
    assert page.board.status["message"] == "removed from the logdir, their data dropped: b"
    assert any("run 'b' removed" in p.reason for p in page.board.logdir.problems)
    page.board._poll_tick()  # an idle tick keeps the message
    assert page.board.status["message"] == "removed from the logdir, their data dropped: b"


def test_a_removed_run_that_comes_back_clears_the_message(make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    saved = small_logdir.parent / "b-saved"
    shutil.move(small_logdir / "b", saved)
    page.board._poll_tick()
    assert "b" in page.board.status["message"]
    shutil.move(saved, small_logdir / "b")
    page.board._poll_tick()
    assert page.board.status["message"] is None and page.board.status["runs"] == 2


def test_logdir_created_after_the_board(make_board, tmp_path: Path) -> None:
    logdir = tmp_path / "not-yet"
    page = Page(make_board(logdir))
    assert page.board.status["runs"] == 0
    assert "waiting for" in page.board.status["message"] and str(logdir) in page.board.status["message"]
    assert page.decoded({"type": "index"})["runs"] == []
    write_small_logdir(logdir)
    page.board._poll_tick()
    (msg,) = changed(page)
    assert msg["new_runs"] == ["a", "b"]
    assert page.board.status["message"] is None and page.board.status["runs"] == 2


def test_purge_announces_every_tag_of_the_run(make_board, tmp_path: Path) -> None:
    writer = EventWriter(tmp_path / "a", start_time=T0)
    for s in range(10):
        writer.add_scalar("loss", float(s), s, wall_time=T0 + s)
        writer.add_scalar("acc", float(s), s, wall_time=T0 + s)
    writer.flush()
    page = Page(make_board(tmp_path))
    writer.add_scalar("loss", 100.0, 3, wall_time=T0 + 20)  # a restart at step 3
    writer.flush()
    page.board._poll_tick()
    (msg,) = changed(page)
    assert msg["tags"]["a"] == ["loss"]  # step preemption is per series
    s = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 100})["series"][0]
    assert s["step"].tolist() == [0, 1, 2, 3] and s["y"][-1] == 100.0
    writer.close()


def test_reload_failure_is_a_status_message(make_board, small_logdir: Path, monkeypatch) -> None:
    board = make_board(small_logdir)

    def broken() -> None:
        raise OSError("stale NFS handle")

    monkeypatch.setattr(board._source, "reload", broken)
    board._poll_tick()
    assert board.status["message"] == "reload failed: stale NFS handle"
