"""Boards on the same logdir with the same reader flags share one reader, released with the last."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any, Callable

from tbnb.board import shared
from tbnb.testing import EventWriter

from .conftest import Page, write_small_logdir


def test_boards_on_one_logdir_share_its_reader_until_the_last_closes(
        tmp_path: Path, make_board: Callable[..., Any]) -> None:
    logdir = write_small_logdir(tmp_path / "logs")
    before = shared.shared_readers(logdir)
    assert before == 0
    first = make_board(logdir)
    second = make_board(str(logdir) + "/")  # the same directory, written differently
    third = make_board(logdir, samples_per_plugin="histograms=1")  # other flags: a reader of its own
    assert first.logdir is second.logdir
    assert third.logdir is not first.logdir
    assert shared.shared_readers(logdir) == before + 2
    assert second.run_colors == first.run_colors  # the joining board saw every run as new

    reader = weakref.ref(first.logdir)
    first.close()
    assert shared.shared_readers(logdir) == before + 2  # the second board still reads it
    fourth = make_board(logdir)
    assert fourth.logdir is second.logdir
    second.close()
    fourth.close()
    assert shared.shared_readers(logdir) == before + 1  # only the third board's reader is left
    fifth = make_board(logdir)
    assert fifth.logdir is not third.logdir and sorted(fifth.logdir.runs()) == ["a", "b"]
    del first, second, fourth
    gc.collect()
    assert reader() is None  # nothing holds the released reader any more


def test_every_board_hears_of_a_change_another_board_read(tmp_path: Path, make_board: Callable[..., Any]) -> None:
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("x", 1.0, 0)
    one, two = make_board(tmp_path), make_board(tmp_path)
    pages = [Page(one), Page(two)]
    with EventWriter(tmp_path / "new") as w:
        w.add_scalar("y", 2.0, 0)
    one.refresh()  # reads the new run; the second board's next reload must still say so
    two.refresh()
    for page in pages:
        changed = [m for m, _ in page.recorder.sent if m.get("type") == "changed"]
        assert len(changed) == 1 and "new" in str(changed[0])
    assert "new" in two.run_colors and two.logdir.count("new", "y") == 1
