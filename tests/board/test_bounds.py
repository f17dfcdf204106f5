"""Every request is bounded (tbnb/board/bounds.py): what is over a bound gets an ``error`` reply
before any handler allocates for it, error replies stay short whatever the request quoted, and
nothing the page sends becomes a file path (a projector run of ``../elsewhere`` or ``/abs``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tbnb.board import bounds
from tbnb.board.router import MAX_ERROR_CHARS

from .conftest import Page


@pytest.fixture
def page(make_board: Any, small_logdir: Path) -> Page:
    page = Page(make_board(small_logdir))
    page.handled = []  # the requests that reached a handler, (type, runs)
    router = page.board._router

    def spy(kind: str, handler: Any) -> Any:
        def handle(source: Any, content: Any, settings: Any) -> Any:
            page.handled.append((kind, content.get("runs")))
            return handler(source, content, settings)
        return handle

    router._handlers = {kind: spy(kind, handler) for kind, handler in router._handlers.items()}
    return page


def refused(page: Page, content: Any) -> str:
    """The error message of a request refused by its bounds before any handler saw it (fails
    if it was answered, or a handler was called)."""
    handled = len(page.handled)
    reply, buffers = page.ask(content)
    assert page.handled[handled:] == [], "a request over its bounds reached its handler"
    assert reply["type"] == "error" and buffers == [], reply
    assert len(reply["message"]) <= MAX_ERROR_CHARS + 3
    assert "over its bounds" in reply["message"], reply["message"]
    return reply["message"]


def nested(depth: int) -> list[Any]:
    """A list nested ``depth`` deep, built without recursion."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


SERIES = {"type": "series", "id": 1, "tag": "loss", "runs": ["a", "b"], "width": 400}


def test_structural_bounds_hold_for_every_request_type(page: Page) -> None:
    for kind in page.board._router.request_types:
        base = {"type": kind, "id": 7}
        assert "characters" in refused(page, {**base, "tag": "x" * (bounds.MAX_STRING + 1)})
        assert "entries" in refused(page, {**base, "runs": ["a"] * (bounds.MAX_ENTRIES + 1)})
        assert "int64" in refused(page, {**base, "step": 2 ** 63})
        assert "nested deeper" in refused(page, {**base, "extra": nested(bounds.MAX_DEPTH)})
    assert "nested deeper" in refused(page, {**SERIES, "extra": nested(100_000)})  # past the recursion limit
    assert "more than" in refused(page, {**SERIES, "extra": [[0] * 100_000] * 11})
    assert "type bytes" in refused(page, {**SERIES, "extra": b"x"})
    assert "object key" in refused(page, {**SERIES, "extra": {1: "x"}})
    # at the bounds, the request goes through to its handler (once), which reads each run once
    runs = ["a", "b"] * (bounds.MAX_ENTRIES // 2)
    handled = len(page.handled)
    read = Counter()
    source = page.board._source
    original = source.scalars
    source.scalars = lambda run, tag: read.update([run]) or original(run, tag)
    try:
        ok, _ = page.ask({**SERIES, "extra": nested(bounds.MAX_DEPTH - 1), "step": 2 ** 63 - 1, "runs": runs})
    finally:
        del source.scalars
    assert page.handled[handled:] == [("series", runs)]
    assert ok["type"] == "series" and [e["run"] for e in ok["series"]] == ["a", "b"]  # repeats once
    assert read and max(read.values()) <= 2, read  # not once per repeat (a series, its best point)


@pytest.mark.parametrize(("kind", "name"), sorted(bounds.FIELDS))
def test_each_sized_field_is_bounded(page: Page, kind: str, name: str) -> None:
    lo, hi = bounds.FIELDS[(kind, name)]
    for value in (hi + 1, lo - 1, float("inf"), float("nan")):
        assert repr(name) in refused(page, {"type": kind, "id": 1, name: value})
    reply, _ = page.ask({"type": kind, "id": 1, name: hi})
    assert "over its bounds" not in reply.get("message", "")


def test_error_replies_and_the_log_stay_short(page: Page, caplog: pytest.LogCaptureFixture) -> None:
    reply, _ = page.ask({"type": "series", "id": 2, "tag": ["x" * 90_000] * 50, "runs": [], "width": 1})
    assert reply["type"] == "error" and "'tag' must be a string" in reply["message"]
    assert len(reply["message"]) < 1_000
    reply, _ = page.ask({"type": "y" * 90_000, "id": 3})
    assert reply["type"] == "error" and len(reply["message"]) < 1_000
    assert all(len(r.getMessage()) < 1_000 for r in caplog.records)


def test_projector_runs_are_the_readers_keys_never_paths(make_board: Any, tmp_path: Path) -> None:
    """An embedding outside the logdir stays unread whatever run name the page sends."""
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    for where in ("logs/run", "outside/run"):
        w = SummaryWriter(str(tmp_path / where))
        w.add_embedding(torch.from_numpy(np.eye(3, dtype=np.float32)), metadata=["p", "q", "r"], tag="secret")
        w.close()
    board = make_board(tmp_path / "logs")
    page = Page(board)
    ok = page.decoded({"type": "projector_metadata", "id": 1, "run": "run", "embedding": "secret:00000"})
    assert ok["shape"] == [3, 3]
    for run in ("../outside/run", str(tmp_path / "outside" / "run"), "run/../../outside/run"):
        for kind in ("projector_metadata", "projector_neighbors", "projector_points", "projector_sprite"):
            reply, buffers = page.ask({"type": kind, "id": 2, "run": run, "embedding": "secret:00000",
                                       "method": "pca", "dims": 2, "index": 0, "k": 1})
            assert reply["type"] == "error" and "no run" in reply["message"] and buffers == [], reply
        board.projector_run = run  # the trait the page writes: the search finds nothing there
        board.projector_embedding = "secret:00000"
        board.projector_search = "p"
        assert board.projector_selection == []
    reply, _ = page.ask({"type": "graph", "id": 3, "run": "../outside/run", "tag": ""})
    assert reply["type"] == "error"


def test_tsne_iterations_are_bounded(make_board: Any, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(tmp_path / "run"))
    w.add_embedding(torch.from_numpy(np.eye(4, dtype=np.float32)), tag="e")
    w.close()
    page = Page(make_board(tmp_path))
    for params, message in (({"iterations": 10 ** 12}, "iterations must be within"),
                            ({"seed": -1}, "seed must be within"), ({"seed": 2 ** 40}, "seed must be within")):
        reply, _ = page.ask({"type": "projector_points", "id": 1, "run": "run", "embedding": "e:00000",
                             "method": "tsne", "dims": 2, "params": params})
        assert reply["type"] == "error" and message in reply["message"], reply
