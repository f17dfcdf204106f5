"""A shown Board's first read of a big logdir (first_read.py): the index of each file's first bytes
is pushed while the rest is read, and the read ends with everything; small logdirs and Boards
made with ``load=True`` push nothing of the kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from tbnb.board import first_read as first_read_module
from tbnb.testing import EventWriter

from .conftest import Recorder


def write_big_logdir(root: Path, steps: int = 4000) -> Path:
    for run in ("a", "b"):
        with EventWriter(root / run, start_time=1_700_000_000.0) as w:
            for s in range(steps):
                w.add_scalar("loss", 1.0 / (s + 1), s)
                w.add_scalar("acc", s / steps, s)
    return root


def started(make_board: Callable[..., Any], logdir: Path, **kwargs: Any) -> tuple[Any, Recorder, list[dict]]:
    """A Board made as ``show`` makes it (``load=False``), its sends recorded, then started;
    with the index messages it sent and the points each listed."""
    board = make_board(logdir, load=False, **kwargs)
    recorder = Recorder()
    board.send = recorder
    board.start()
    return board, recorder, [c for c, _ in recorder.of_type("index")]


def test_a_big_logdir_announces_its_first_bytes_index_before_reading_the_rest(
        make_board: Callable[..., Any], tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(first_read_module, "PREVIEW_BYTES", 8192)
    logdir = write_big_logdir(tmp_path / "logs")
    board, _, indexes = started(make_board, logdir)
    assert len(indexes) == 1, "one index, pushed between the two passes"
    early = indexes[0]
    assert [r["name"] for r in early["runs"]] == ["a", "b"]
    assert all(r["color"] for r in early["runs"]), "the runs are coloured before the index names them"
    assert {t["tag"] for t in early["tags"]} == {"acc", "loss"}
    listed = [n for t in early["tags"] for n in t["points"].values()]
    assert all(0 < n < 4000 for n in listed), "the index of the first pass, not of the whole read"
    # The read itself is whole.
    assert board.status["points"] == 2 * 2 * 4000
    assert board.logdir.unread_bytes() == 0
    assert board.logdir.count("a", "loss") == 4000


def test_a_small_logdir_is_read_in_one_pass_and_announces_nothing(
        make_board: Callable[..., Any], small_logdir: Path) -> None:
    board, _, indexes = started(make_board, small_logdir)
    assert indexes == []
    assert board.status["points"] > 0


def test_a_board_made_with_load_reads_in_one_pass(make_board: Callable[..., Any], tmp_path: Path,
                                                  monkeypatch: Any) -> None:
    """Not shown yet: an index pushed now could reach a view drawn much later."""
    monkeypatch.setattr(first_read_module, "PREVIEW_BYTES", 8192)
    calls: list[Any] = []
    real = first_read_module.first_read

    def spy(source: Any, on_preview: Any) -> Any:
        calls.append(on_preview)
        return real(source, on_preview)

    monkeypatch.setattr("tbnb.board.shared.first_read", spy)
    board = make_board(write_big_logdir(tmp_path / "logs", steps=1000))
    assert calls == [None]
    assert board.status["points"] == 2 * 2 * 1000
