"""The poll thread: ticks, stops on close / comm close / collection, never keeps the board alive."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from pathlib import Path

import pytest

from tbnb.board.poll import Poller
from tbnb.testing import EventWriter

from .conftest import T0, Page


def poll_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tbnb-poll")]


def wait_for(condition, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


class Owner:
    def __init__(self) -> None:
        self.ticks = 0
        self.ticked = threading.Event()

    def tick(self) -> None:
        self.ticks += 1
        self.ticked.set()


def test_poller_ticks_and_stops() -> None:
    owner = Owner()
    poller = Poller(owner, Owner.tick, 0.01)
    poller.start()
    assert owner.ticked.wait(5) and poller.alive
    poller.stop()
    assert not poller.alive and poller.thread_name not in [t.name for t in threading.enumerate()]
    ticks = owner.ticks
    time.sleep(0.05)
    assert owner.ticks == ticks


def test_poller_ends_when_its_owner_is_collected() -> None:
    owner = Owner()
    poller = Poller(owner, Owner.tick, 0.01)
    poller.start()
    assert owner.ticked.wait(5)
    ref = weakref.ref(owner)
    del owner
    gc.collect()
    assert ref() is None  # the thread held it only weakly
    assert wait_for(lambda: not poller.alive)


def test_a_failing_tick_does_not_stop_polling(caplog: pytest.LogCaptureFixture) -> None:
    calls = []

    class Flaky:
        def tick(self) -> None:
            calls.append(1)
            if len(calls) == 1:
                raise OSError("transient")

    owner = Flaky()
    poller = Poller(owner, Flaky.tick, 0.01)
    poller.start()
    assert wait_for(lambda: len(calls) >= 3)
    poller.stop()
    assert "transient" in caplog.text


def test_poller_rejects_bad_interval() -> None:
    with pytest.raises(ValueError):
        Poller(Owner(), Owner.tick, 0)


def test_board_polls_live_and_close_stops_the_thread(make_board, tmp_path: Path) -> None:
    writer = EventWriter(tmp_path / "a", start_time=T0)
    writer.add_scalar("loss", 1.0, 0, wall_time=T0)
    writer.flush()
    board = make_board(tmp_path, reload_interval=0.02)
    page = Page(board)
    assert board.polling and board.status["polling"] is True
    assert board._source.feed.poll_thread in [t.name for t in poll_threads()]
    writer.add_scalar("loss", 2.0, 1, wall_time=T0 + 1)  # "another cell" writes while we poll
    writer.flush()
    assert wait_for(lambda: page.recorder.of_type("changed"))
    assert page.recorder.of_type("changed")[0][0]["tags"] == {"a": ["loss"]}
    board.close()
    assert not board.polling and poll_threads() == []
    assert board.status["polling"] is False
    writer.close()


def test_comm_closed_by_the_page_stops_polling(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir, reload_interval=0.02)
    assert board.polling
    board.comm.handle_close({"content": {"data": {}}})  # what the kernel does on comm_close
    assert not board.polling and poll_threads() == []


def test_a_closed_board_is_collected(small_logdir: Path) -> None:
    from tbnb.board.widget import Board

    board = Board(small_logdir, reload_interval=0.02)
    board.close()
    ref = weakref.ref(board)
    del board
    gc.collect()
    assert ref() is None


def test_the_poll_thread_does_not_keep_the_board_alive(small_logdir: Path) -> None:
    import comm
    from ipywidgets.widgets.widget import _instances

    from tbnb.board.widget import Board

    board = Board(small_logdir, reload_interval=0.02)
    name = board._source.feed.poll_thread
    # An open widget is held by ipywidgets' and the comm manager's registries; without them,
    # only our thread could keep it alive, and it must not.
    _instances.pop(board.model_id)
    comm.get_comm_manager().unregister_comm(board.comm)
    board.comm._closed = True  # so that its __del__ does not unregister it a second time
    ref = weakref.ref(board)
    del board
    gc.collect()
    assert ref() is None
    assert wait_for(lambda: name not in [t.name for t in threading.enumerate()])


def test_requests_while_the_poller_reloads(make_board, tmp_path: Path) -> None:
    """Page requests (main thread) and reloads (poll thread) of a logdir being written at once."""
    writer = EventWriter(tmp_path / "a", start_time=T0)
    writer.add_scalar("loss", 0.0, 0, wall_time=T0)
    writer.flush()
    page = Page(make_board(tmp_path, reload_interval=0.005))
    done = threading.Event()

    def train() -> None:
        for step in range(1, 3000):
            writer.add_scalar("loss", float(step), step, wall_time=T0 + step)
            if step % 50 == 0:
                writer.flush()
                with EventWriter(tmp_path / f"run{step}", start_time=T0) as w:
                    w.add_scalar("loss", 1.0, 0, wall_time=T0)
        writer.flush()
        done.set()

    trainer = threading.Thread(target=train)
    trainer.start()
    replies = []
    while not done.is_set() or len(replies) < 20:
        replies.append(page.decoded({"type": "series", "id": len(replies), "tag": "loss", "runs": ["a"],
                                     "width": 50})["series"][0])
        index = page.decoded({"type": "index"})
        assert all(run["color"] for run in index["runs"])  # never a run without its colour
    trainer.join()
    assert not page.recorder.of_type("error")
    steps = [r["step"] for r in replies]
    assert all(len(s) and s[0] == 0 and list(s) == sorted(s) for s in steps)
    assert wait_for(lambda: page.board.status["points"] == 3000 + 59)
    writer.close()
