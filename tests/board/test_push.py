"""Pushed replies: after a poll finds new data, the kernel answers again, from the poll thread,
the page's latest data request of each card whose data changed (protocol.md, "Pushed replies")."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tbnb.board import preload, pushed, widget
from tbnb.board.codec import decode
from tbnb.testing import EventWriter

from .conftest import T0, Page


def pushes(page: Page) -> list[dict[str, Any]]:
    return [decode(c, b) for c, b in page.recorder.sent if c.get("push")]


def series(tag: str, request_id: int, **extra: Any) -> dict[str, Any]:
    return {"type": "series", "id": request_id, "tag": tag, "runs": ["a"], "x_axis": "step", "range": None,
            "width": 100, **extra}


@pytest.fixture
def writer(tmp_path: Path):
    w = EventWriter(tmp_path / "a", start_time=T0)
    for s in range(5):
        w.add_scalar("loss", float(s), s, wall_time=T0 + s)
        w.add_scalar("acc", s / 10, s, wall_time=T0 + s)
    w.add_histogram("weights", np.arange(10.0), 0, wall_time=T0)
    w.flush()
    yield w
    w.close()


def append_loss(writer: EventWriter, steps: range) -> None:
    for s in steps:
        writer.add_scalar("loss", float(s), s, wall_time=T0 + s)
    writer.flush()


def test_a_tick_pushes_the_latest_request_with_the_new_points(make_board, writer, tmp_path: Path) -> None:
    page = Page(make_board(tmp_path))
    page.ask(series("loss", 1))
    page.ask(series("acc", 2))
    page.ask(series("loss", 3))  # the card asked again: the latest request is the one pushed
    append_loss(writer, range(5, 8))
    sent = len(page.recorder.sent)
    page.board._poll_tick()
    kinds = [c["type"] for c, _ in page.recorder.sent[sent:]]
    assert kinds[0] == "changed"  # first: the page re-asks as before
    (push,) = pushes(page)  # only "loss" changed
    assert push["type"] == "series" and push["id"] == 3 and push["push"] is True
    assert (push["tag"], push["runs"], push["x_axis"], push["range"]) == ("loss", ["a"], "step", None)
    (entry,) = push["series"]
    assert entry["step"].tolist() == list(range(8)) and entry["y"].tolist() == [float(s) for s in range(8)]
    assert entry["total"] == 8 and entry["exact"]
    # the same as the reply to the same request
    reply = page.decoded(series("loss", 3))
    assert reply["series"][0]["step"].tolist() == entry["step"].tolist()


def test_nothing_new_pushes_nothing(make_board, writer, tmp_path: Path) -> None:
    page = Page(make_board(tmp_path))
    page.ask(series("loss", 1))
    page.board._poll_tick()
    assert pushes(page) == []


def test_whole_range_and_zoom_are_pushed_apart(make_board, writer, tmp_path: Path) -> None:
    page = Page(make_board(tmp_path))
    page.ask(series("loss", 1))
    page.ask(series("loss", 2, range=[0, 3]))
    page.ask(series("loss", 3, range=[2, 6]))  # zoomed elsewhere: replaces the first zoom
    page.ask(series("loss", 4, width=300))  # resized: replaces the first whole-range request
    append_loss(writer, range(5, 8))
    page.board.refresh()
    got = {p["id"]: p for p in pushes(page)}
    assert sorted(got) == [3, 4]
    assert got[3]["range"] == [2, 6] and got[3]["series"][0]["step"].tolist() == [2, 3, 4, 5, 6]
    assert got[4]["series"][0]["step"].tolist() == list(range(8))


def test_histograms_and_distributions_are_pushed(make_board, writer, tmp_path: Path) -> None:
    page = Page(make_board(tmp_path))
    page.ask({"type": "histograms", "id": 1, "tag": "weights", "runs": ["a"], "x_axis": "step"})
    page.ask({"type": "distributions", "id": 2, "tag": "weights", "runs": ["a"], "x_axis": "step"})
    page.ask({"type": "blobs", "id": 3, "tag": "weights", "runs": ["a"]})  # not pushed
    writer.add_histogram("weights", np.arange(20.0), 1, wall_time=T0 + 1)
    writer.flush()
    page.board._poll_tick()
    got = {p["id"]: p for p in pushes(page)}
    assert sorted(got) == [1, 2]
    assert got[1]["type"] == "histograms" and got[1]["series"][0]["steps"].tolist() == [0, 1]
    assert got[2]["type"] == "distributions" and got[2]["series"][0]["steps"].tolist() == [0, 1]
    assert got[1]["runs"] == ["a"]


def test_failed_requests_are_not_remembered(make_board, writer, tmp_path: Path) -> None:
    page = Page(make_board(tmp_path))
    assert page.ask(series("nope", 1))[0]["type"] == "error"
    assert page.ask(series("loss", 2, width=-1))[0]["type"] == "error"
    append_loss(writer, range(5, 8))
    page.board._poll_tick()
    assert pushes(page) == []


def test_remembered_requests_are_bounded(make_board, writer, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(pushed, "MAX_REMEMBERED", 2)
    page = Page(make_board(tmp_path))
    page.ask(series("loss", 1))
    page.ask(series("acc", 2))
    page.ask(series("acc", 3, range=[0, 1]))
    append_loss(writer, range(5, 8))
    writer.add_scalar("acc", 0.5, 5, wall_time=T0 + 5)
    writer.flush()
    page.board._poll_tick()
    assert sorted(p["id"] for p in pushes(page)) == [2, 3]  # "loss" was the least recently asked


def test_a_removed_run_is_pushed_then_forgotten(make_board, tmp_path: Path) -> None:
    import shutil

    for run in ("a", "b"):
        with EventWriter(tmp_path / run, start_time=T0) as w:
            w.add_scalar("loss", 1.0, 0, wall_time=T0)
            if run == "b":
                w.add_scalar("lr", 0.1, 0, wall_time=T0)
    page = Page(make_board(tmp_path))
    page.ask({**series("loss", 1), "runs": ["a", "b"]})
    page.ask({**series("lr", 2), "runs": ["b"]})
    shutil.rmtree(tmp_path / "b")
    page.board._poll_tick()
    (push,) = pushes(page)  # "lr" is gone with b: its request cannot be answered, and is forgotten
    assert push["id"] == 1 and [e["run"] for e in push["series"]] == ["a"]
    assert [c["tag"] for c in page.board._pushed.requests()] == ["loss"]


def test_closing_stops_pushes(make_board, writer, tmp_path: Path) -> None:
    page = Page(make_board(tmp_path))
    page.ask(series("loss", 1))
    page.board.close()
    page.ask(series("loss", 2))  # a late request does not remember anything either
    append_loss(writer, range(5, 8))
    page.board.refresh()
    assert pushes(page) == []


def test_the_poll_thread_pushes_while_the_main_thread_is_busy(make_board, writer, tmp_path: Path) -> None:
    """The point of it all: a cell keeps the main thread busy and the chart still gets new points."""
    board = make_board(tmp_path, reload_interval=0.02)
    page = Page(board)
    threads: list[str] = []
    lock = threading.Lock()
    record = page.recorder

    def send(content: dict[str, Any], buffers: list[Any] | None = None) -> None:
        with lock:
            if content.get("push"):
                threads.append(threading.current_thread().name)
            record(content, buffers)

    board.send = send
    page.ask(series("loss", 1))
    append_loss(writer, range(5, 8))
    deadline = time.monotonic() + 10  # "busy": this thread does not answer anything meanwhile
    while not any(p["series"][0]["step"][-1] == 7 for p in pushes(page)):
        assert time.monotonic() < deadline, "no push from the poll thread"
        time.sleep(0.01)
    assert threads and all(name.startswith("tbnb-poll") for name in threads)
    assert {p["id"] for p in pushes(page)} == {1}

    board.close()
    count = len(pushes(page))
    append_loss(writer, range(8, 10))
    time.sleep(0.2)  # ten polling intervals
    assert len(pushes(page)) == count


def test_requests_while_polling_are_thread_safe(make_board, writer, tmp_path: Path, caplog) -> None:
    board = make_board(tmp_path, reload_interval=0.001)
    page = Page(board)
    for i in range(300):
        page.ask(series("loss", i, width=100 + i % 7, range=None if i % 2 else [0, i]))
        if i % 30 == 0:
            append_loss(writer, range(5 + i, 6 + i))
    board.close()
    assert "Traceback" not in caplog.text and "failed" not in caplog.text


def test_first_board_of_a_kernel_sends_plotly_before_reading(monkeypatch: pytest.MonkeyPatch, writer) -> None:
    """Unasked, once per kernel, and before the logdir is read (so the page runs plotly.js while
    the kernel reads): the cartesian build; later Boards wait to be asked. Outside a kernel
    nothing is sent."""
    from ipywidgets import comm as widget_comm

    from tbnb.board import assets

    events: list[Any] = []
    monkeypatch.setattr(preload, "_plotly_pushed", False)
    monkeypatch.setattr(widget.Board, "send", lambda self, content, buffers=None: events.append((content, buffers)))
    reload = widget.MultiLogdir.reload
    monkeypatch.setattr(widget.MultiLogdir, "reload", lambda self, first_bytes=None: events.append("read") or reload(self, first_bytes))

    plain = widget.Board(writer.path.parent.parent, reload_interval=0)  # a comm without a kernel (a script)
    plain.close()
    assert events == ["read"]

    create = widget_comm.create_comm

    def kernel_comm(*args: Any, **kwargs: Any) -> Any:
        made = create(*args, **kwargs)
        made.kernel = object()  # what ipykernel's comms have: there is a front end to send to
        return made

    monkeypatch.setattr(widget_comm, "create_comm", kernel_comm)
    events.clear()
    boards = [widget.Board(writer.path.parent.parent, reload_interval=0) for _ in range(2)]
    try:
        (content, buffers), *rest = events
        assert content["type"] == "plotly" and content["version"] == assets.plotly_js("cartesian")[1]
        assert content["bundle"] == assets.plotly_bundle_served("cartesian")
        assert bytes(buffers[0]) == assets.plotly_js("cartesian")[0]
        assert rest == ["read", "read"]  # sent before the first read; the second Board sends nothing
    finally:
        for board in boards:
            board.close()
