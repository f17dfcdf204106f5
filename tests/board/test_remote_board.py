"""A Board on a URL logdir: the URL passes through to the reader (``memory://`` here, the code
path of ``s3://``), and a poll lists the store once."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Callable

import pytest

from tbnb.testing import EventWriter

fsspec = pytest.importorskip("fsspec")


def test_a_board_reads_a_memory_url(tmp_path: Path, make_board: Callable[..., Any],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"memory://tbnb-board-{uuid.uuid4().hex[:8]}"
    fs = fsspec.filesystem("memory")
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("loss", 1.0, 0)
    fs.pipe_file(f"{url}/run/{w.path.name}", w.path.read_bytes())
    try:
        board = make_board(url)
        assert board.logdir.runs() == ["run"] and board.logdir.storage.remote
        assert board.status.get("message") is None  # not "waiting for ... to be created"
        finds = []
        real = board.logdir.storage.fs.find
        monkeypatch.setattr(board.logdir.storage.fs, "find", lambda *a, **k: finds.append(a) or real(*a, **k))
        board.refresh()
        assert len(finds) == 1  # one listing per poll, status included
    finally:
        fs.rm(url, recursive=True)


def test_the_magic_and_board_pass_urls_through(make_board: Callable[..., Any]) -> None:
    from tbnb import LogdirError
    from tbnb.board.magic import parse_line

    args = parse_line("--logdir s3://bucket/exp --reload_interval 0")
    assert args is not None and args.board_kwargs()["logdir"] == "s3://bucket/exp"
    with pytest.raises(LogdirError, match="unknown protocol 'nosuchproto'"):
        make_board("nosuchproto://bucket/exp")
