"""Boards driven without a browser: requests go to the message handler as the page would send
them, and what the board sends back is recorded instead of going to a comm."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import pytest

from tbnb.board import assets
from tbnb.board.codec import decode

FAKE_BUNDLE = "export default { render({ el }) { el.textContent = 'tbnb test bundle'; } };\n"


@pytest.fixture(autouse=True)
def bundle(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for the built JS bundle (the real one is built by the JS side's build step)."""
    path = tmp_path_factory.mktemp("static") / "board.js"
    path.write_text(FAKE_BUNDLE)
    monkeypatch.setattr(assets, "BUNDLE", path)
    monkeypatch.setattr(assets, "STYLES", path.with_suffix(".css"))
    return path


@pytest.fixture(autouse=True)
def no_leaked_poll_threads() -> Iterator[None]:
    """Every test must leave no polling thread behind (boards are closed, pollers stopped)."""
    import threading

    def polling() -> set[str]:
        return {t.name for t in threading.enumerate() if t.name.startswith("tbnb-poll")}

    before = polling()
    yield
    leaked = polling() - before
    assert not leaked, f"polling threads left running: {sorted(leaked)}"


class Recorder:
    """Replaces ``board.send``: keeps every ``(content, buffers)`` the board sends."""

    def __init__(self) -> None:
        self.sent: list[tuple[dict[str, Any], list[Any]]] = []

    def __call__(self, content: dict[str, Any], buffers: list[Any] | None = None) -> None:
        self.sent.append((content, list(buffers or [])))

    def of_type(self, kind: str) -> list[tuple[dict[str, Any], list[Any]]]:
        return [(c, b) for c, b in self.sent if c.get("type") == kind]


class Page:
    """Sends requests to a board as the page does and returns the (decoded) reply."""

    def __init__(self, board: Any) -> None:
        self.board = board
        self.recorder = Recorder()
        board.send = self.recorder

    def ask(self, content: Any, buffers: list[Any] | None = None) -> tuple[dict[str, Any], list[Any]]:
        before = len(self.recorder.sent)
        self.board._handle_custom_msg(content, buffers or [])  # ipywidgets' entry for msg:custom
        # a polling board may send "changed" and pushed replies at any time; the reply is the other one
        replies = [r for r in self.recorder.sent[before:]
                   if r[0].get("type") != "changed" and not r[0].get("push")]
        assert len(replies) == 1, f"expected one reply, got {replies}"
        return replies[0]

    def decoded(self, content: Any) -> dict[str, Any]:
        reply, buffers = self.ask(content)
        return decode(reply, buffers)


@pytest.fixture
def make_board() -> Iterator[Callable[..., Any]]:
    """Board factory (no polling unless asked); every board is closed at teardown."""
    from tbnb.board.widget import Board

    boards: list[Board] = []

    def make(*args: Any, reload_interval: float = 0, **kwargs: Any) -> Board:
        board = Board(*args, reload_interval=reload_interval, **kwargs)
        boards.append(board)
        return board

    yield make
    for board in boards:
        board.close()


T0 = 1_700_000_000.0


def write_small_logdir(root: Path) -> Path:
    """Two runs with known points: "a" (loss at steps 0..9, acc every 2 steps, a histogram) and
    "b" (loss at steps 0..4). Run "a" starts at T0 and logs step s at T0 + 10 + s."""
    import numpy as np

    from tbnb.testing import EventWriter

    with EventWriter(root / "a", start_time=T0) as w:
        for s in range(10):
            w.add_scalar("loss", 1.0 / (s + 1), s, wall_time=T0 + 10 + s)
            if s % 2 == 0:
                w.add_scalar("acc", s / 10, s, wall_time=T0 + 10 + s)
        w.add_histogram("weights", np.arange(10.0), 0, wall_time=T0 + 10)
    with EventWriter(root / "b", start_time=T0 + 100) as w:
        for s in range(5):
            w.add_scalar("loss", 2.0 - s, s, wall_time=T0 + 100 + s)
    return root


@pytest.fixture
def small_logdir(tmp_path: Path) -> Path:
    return write_small_logdir(tmp_path / "logs")
