"""One feed per logdir (feed.py): one reload per poll interval however many Boards show the
logdir, every Board told of every change, and no polling left behind by a Board that was closed,
collected, or dropped by its front end (a re-run marimo cell)."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable

import pytest

from tbnb.board import feed as feed_module
from tbnb.testing import EventWriter

from .conftest import T0, Page
from .test_poll import wait_for

INTERVAL = 0.05


def poll_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("tbnb-poll")]


def write_run(root: Path, name: str, steps: int = 3) -> None:
    with EventWriter(root / name, start_time=T0) as w:
        for s in range(steps):
            w.add_scalar("loss", float(s), s, wall_time=T0 + s)


def drop_registries(board: Any) -> None:
    """Let go of the references ipywidgets and the comm manager keep to an open widget, as a
    front end that forgets a widget does: then only the Board's variable keeps it alive."""
    import comm
    from ipywidgets.widgets.widget import _instances

    _instances.pop(board.model_id, None)
    comm.get_comm_manager().unregister_comm(board.comm)
    board.comm._closed = True  # so that its __del__ does not unregister it a second time


def test_three_boards_on_one_logdir_reload_it_once_per_interval(
        tmp_path: Path, make_board: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    write_run(tmp_path, "a")
    boards = [make_board(tmp_path, reload_interval=INTERVAL) for _ in range(3)]
    feed = boards[0]._source.feed
    assert all(b._source.feed is feed for b in boards) and all(b.polling for b in boards)
    calls: list[str] = []
    reload = feed.reader.reload

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(threading.current_thread().name)
        return reload(*args, **kwargs)

    monkeypatch.setattr(feed.reader, "reload", counted)
    pages = [Page(b) for b in boards]
    start = time.monotonic()
    time.sleep(20 * INTERVAL)
    write_run(tmp_path, "b")  # every Board hears of it, whichever poll read it
    assert wait_for(lambda: all(p.recorder.of_type("changed") for p in pages))
    elapsed = time.monotonic() - start
    # One reload per interval, from the one poll thread: each Board polling on its own would
    # reload three times as often.
    assert set(calls) == {feed.poll_thread} and len(poll_threads()) == 1
    assert 5 <= len(calls) <= elapsed / INTERVAL + 1, (len(calls), elapsed)
    for page in pages:
        changed = [m for m, _ in page.recorder.of_type("changed")]
        assert sum("b" in m["new_runs"] for m in changed) == 1


def test_a_closed_board_leaves_its_feed_and_the_last_one_stops_the_thread(
        tmp_path: Path, make_board: Callable[..., Any]) -> None:
    write_run(tmp_path, "a")
    one, two = make_board(tmp_path, reload_interval=INTERVAL), make_board(tmp_path, reload_interval=INTERVAL)
    feed = one._source.feed
    thread = feed.poll_thread
    assert len(feed.members) == 2 and poll_threads() == [thread]
    one.close()
    assert len(feed.members) == 1 and not one.polling and two.polling and poll_threads() == [thread]
    two.close()
    assert feed.members == [] and poll_threads() == [] and feed not in feed_module.feeds()


def test_a_collected_board_leaves_its_feed_and_the_last_one_stops_the_thread(tmp_path: Path) -> None:
    from tbnb.board.widget import Board

    write_run(tmp_path, "a")
    kept = Board(tmp_path, reload_interval=INTERVAL)
    dropped = Board(tmp_path, reload_interval=INTERVAL)
    feed = kept._source.feed
    assert len(feed.members) == 2
    drop_registries(dropped)
    ref = weakref.ref(dropped)
    del dropped
    gc.collect()
    assert ref() is None  # the feed held it weakly
    assert wait_for(lambda: len(feed.members) == 1) and kept.polling  # gone with the next poll
    drop_registries(kept)
    del kept
    gc.collect()
    assert wait_for(lambda: poll_threads() == [])  # the last one gone: the thread ends
    assert feed.members == [] and feed not in feed_module.feeds()


def test_a_rerun_marimo_cell_leaves_one_board_polling(tmp_path: Path) -> None:
    """marimo re-runs ``board = tbnb.show(logdir)``: it closes the old widget's comm (without
    telling the widget) and the new Board replaces the old one in the cell's variable."""
    from tbnb.board.widget import Board

    write_run(tmp_path, "a")
    board = Board(tmp_path, reload_interval=INTERVAL)
    old = weakref.ref(board)
    for _ in range(3):  # three re-runs of the cell
        board.comm.close()  # marimo's CommLifecycleItem.dispose: comm closed, no on_close callback
        board = Board(tmp_path, reload_interval=INTERVAL)
    feed = board._source.feed
    assert len(poll_threads()) == 1
    assert wait_for(lambda: len(feed.members) == 1)  # the old Boards left at the next poll
    assert not old().polling and board.polling
    assert len(poll_threads()) == 1
    board.close()
    assert poll_threads() == []


def test_a_board_that_does_not_poll_hears_the_news_on_its_refresh(
        tmp_path: Path, make_board: Callable[..., Any]) -> None:
    write_run(tmp_path, "a")
    polling, still = make_board(tmp_path, reload_interval=INTERVAL), make_board(tmp_path)
    pages = [Page(polling), Page(still)]
    write_run(tmp_path, "b")
    assert wait_for(lambda: pages[0].recorder.of_type("changed"))
    assert not still.polling and pages[1].recorder.of_type("changed") == []  # reload_interval=0
    still.refresh()
    changed = [m for m, _ in pages[1].recorder.of_type("changed")]
    assert len(changed) == 1 and changed[0]["new_runs"] == ["b"]


def test_the_shortest_interval_of_the_polling_boards_is_the_feed_s(
        tmp_path: Path, make_board: Callable[..., Any]) -> None:
    write_run(tmp_path, "a")
    slow = make_board(tmp_path, reload_interval=5.0)
    feed = slow._source.feed
    assert feed.interval == 5.0
    fast = make_board(tmp_path, reload_interval=INTERVAL)
    assert feed.interval == INTERVAL and len(poll_threads()) == 1
    fast.close()
    assert feed.interval == 5.0 and len(poll_threads()) == 1 and slow.polling


def test_a_reload_failing_part_way_still_tells_every_board_what_it_found(
        tmp_path: Path, make_board: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The cause of test_poll.py's flaky 'never a run without its colour': a reload that raised
    after the reader had taken in new runs; the Boards never heard of them, and listed them
    uncoloured."""
    write_run(tmp_path, "a")
    board = make_board(tmp_path)
    page = Page(board)
    feed = board._source.feed
    reload = feed.reader.reload

    def fails_after_reading(*args: Any, **kwargs: Any) -> Any:
        reload(*args, **kwargs)
        raise OSError("stale NFS handle")

    monkeypatch.setattr(feed.reader, "reload", fails_after_reading)
    write_run(tmp_path, "b")
    feed.poll()
    assert board.status["message"] is None  # this Board does not poll: it hears on its refresh
    board.refresh()
    assert board.status["message"] == "reload failed: stale NFS handle"
    changed = [m for m, _ in page.recorder.of_type("changed")]
    assert changed and "b" in changed[-1]["new_runs"]
    index = page.decoded({"type": "index"})
    assert [r["name"] for r in index["runs"]] == ["a", "b"] and all(r["color"] for r in index["runs"])
