"""The garbage collector is paused while a reload builds runs, and left as it was found."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tbnb.reader.logdir.gc_pause import PAUSE_MIN_RUNS, paused_gc
from tbnb.reader.logdir.logdir import Logdir
from tbnb.testing import EventWriter, write_scalar_logdir


@pytest.fixture
def gc_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()  # as it was found, whatever the test left


def test_pauses_nest_and_restore_the_collector(gc_enabled: None) -> None:
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # (the outer pause still holds)
    assert gc.isenabled()


def test_a_collector_disabled_by_the_user_stays_disabled(gc_enabled: None) -> None:
    gc.disable()
    with paused_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_error_in_the_body_still_restores_it(gc_enabled: None) -> None:
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_overlapping_pauses_on_two_threads_share_one(gc_enabled: None) -> None:
    """The collector comes back only when the last pause ends, whichever thread began first."""
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with paused_gc():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    with paused_gc():
        thread.start()
        assert entered.wait(10)
    assert not gc.isenabled()  # the other thread's pause still holds
    release.set()
    thread.join(10)
    assert gc.isenabled()


@pytest.mark.parametrize("grown", [300, 2])
def test_a_first_read_and_a_read_of_many_runs_pause_the_collector_a_poll_does_not(
        tmp_path: Path, gc_enabled: None, monkeypatch: pytest.MonkeyPatch, grown: int) -> None:
    """A first read makes thousands of objects that live on (without the pause, 300 runs saw 16
    collections here): the collector is off throughout, its listing included; so is it while a
    later reload reads many grown runs; a reload that finds a few runs grown (a poll) leaves it
    on, and with it the user's code. It is back on after each."""
    write_scalar_logdir(tmp_path, runs=300, tags=3, steps=5)
    lg = Logdir(tmp_path, processes=0)
    seen: list[tuple[str, bool]] = []
    real_list, real_read = lg.storage.list_runs, lg._reload_runs

    def listing() -> object:
        seen.append(("list", gc.isenabled()))
        return real_list()

    def reading(*args: object) -> object:
        seen.append(("read", gc.isenabled()))
        return real_read(*args)

    monkeypatch.setattr(lg.storage, "list_runs", listing)
    monkeypatch.setattr(lg, "_reload_runs", reading)
    lg.reload()
    assert len(lg.runs()) == 300
    assert seen == [("list", False), ("read", False)]
    assert gc.isenabled()
    for run in sorted(tmp_path.iterdir())[:grown]:
        writer = EventWriter(run)
        writer.add_scalar("loss", 0.5, 10)
        writer.close()
    seen.clear()
    lg.reload()
    assert seen == [("list", True), ("read", grown < PAUSE_MIN_RUNS)]
    assert gc.isenabled()
