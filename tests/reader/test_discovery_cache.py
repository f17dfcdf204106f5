"""The cached discovery (a stat per directory, a listing only where entries changed) finds
exactly what the general walk finds, poll after poll, while a logdir changes under it."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest

from tbnb.reader.files import discovery_cache
from tbnb.reader.files.discovery import find_run_files
from tbnb.reader.files.discovery_cache import FULL_WALK_EVERY, RACY_NS, CachedDiscovery

from .logdir_changes import dirs, make_runs, mutate


def _age(root: Path, step: int) -> None:
    """Give every directory an mtime long past and distinct per poll (as if time went by)."""
    base = time.time_ns() - 3600 * 10**9 + step * 10 * 10**9
    for k, d in enumerate(dirs(root)):
        os.utime(d, ns=(base + k, base + k))


def _polled_once(root: Path, run: str) -> tuple[CachedDiscovery, os.stat_result]:
    """A logdir of one run, long quiet and polled once: (the discovery, the run directory's stat)."""
    (root / run).mkdir()
    (root / run / "events.out.tfevents.1.h").write_bytes(b"")
    _age(root, 0)
    cached = CachedDiscovery()
    cached.find_run_files(root)
    return cached, os.stat(root / run)


@pytest.mark.parametrize("seed", range(12))
def test_cached_discovery_equals_the_general_walk_as_a_logdir_changes(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = tmp_path / "logdir"
    root.mkdir()
    cached = CachedDiscovery()
    for step in range(60):
        for _ in range(rng.randrange(0, 4)):  # some polls see no change at all
            mutate(root, rng)
        if rng.random() < 0.8:  # else the changed directories are racy: listed again, not trusted
            _age(root, step)
        assert cached.find_run_files(root) == find_run_files(root), f"seed {seed}, poll {step}"


def test_an_idle_poll_lists_no_directory_and_a_recent_change_is_listed(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    make_runs(tmp_path, (f"run{k}" for k in range(30)))
    _age(tmp_path, 0)
    cached = CachedDiscovery()
    first = cached.find_run_files(tmp_path)
    listed: list[str] = []
    real = os.scandir

    def counting(path: str) -> object:
        listed.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(discovery_cache.os, "scandir", counting)
    assert cached.find_run_files(tmp_path) == first
    assert listed == []
    (tmp_path / "run7" / "events.out.tfevents.2.h").write_bytes(b"")  # mtime now: changed, and racy
    soon = time.time_ns() + 60 * 10**9  # (racy however slowly this test runs)
    os.utime(tmp_path / "run7", ns=(soon, soon))
    runs, _ = cached.find_run_files(tmp_path)
    assert runs["run7"][-1].endswith("events.out.tfevents.2.h")
    assert listed == [str(tmp_path / "run7")]
    listed.clear()
    cached.find_run_files(tmp_path)  # still within RACY_NS of its change: listed again
    assert listed == [str(tmp_path / "run7")]
    assert RACY_NS >= 2 * 10**9  # FAT's mtime granularity


def test_a_change_hidden_inside_one_timestamp_is_found_within_the_full_walk_interval(tmp_path: Path) -> None:
    """A file system whose clock hides a change (mtime unchanged): the periodic full listing
    bounds how long it stays unseen."""
    cached, st = _polled_once(tmp_path, "a")
    (tmp_path / "a" / "events.out.tfevents.2.h").write_bytes(b"")
    os.utime(tmp_path / "a", ns=(st.st_atime_ns, st.st_mtime_ns))  # the change hides
    seen = [len(cached.find_run_files(tmp_path)[0]["a"]) for _ in range(FULL_WALK_EVERY)]
    assert seen[0] == 1  # trusted and unchanged: not listed (this is what the stat saves)
    assert seen[-1] == 2
    assert cached.find_run_files(tmp_path) == find_run_files(tmp_path)


def test_symlinked_and_unreadable_directories_go_to_the_general_walk(tmp_path: Path) -> None:
    (tmp_path / "real" / "run").mkdir(parents=True)
    (tmp_path / "real" / "run" / "events.out.tfevents.1.h").write_bytes(b"")
    (tmp_path / "real" / "loop").symlink_to(tmp_path / "real")  # a cycle: the guarded walk's case
    (tmp_path / "link").symlink_to(tmp_path / "real" / "run")
    cached = CachedDiscovery()
    for _ in range(3):
        assert cached.find_run_files(tmp_path) == find_run_files(tmp_path)
    assert cached.find_run_files(tmp_path / "missing") == find_run_files(tmp_path / "missing") == ({}, [])


def test_a_directory_replaced_by_another_with_the_same_mtime_is_listed_again(tmp_path: Path) -> None:
    cached, st = _polled_once(tmp_path, "run")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "events.out.tfevents.9.h").write_bytes(b"")
    shutil.rmtree(tmp_path / "run")
    (tmp_path / "other").rename(tmp_path / "run")
    os.utime(tmp_path / "run", ns=(st.st_atime_ns, st.st_mtime_ns))  # same path, same mtime, another inode
    runs, _ = cached.find_run_files(tmp_path)
    assert [Path(p).name for p in runs["run"]] == ["events.out.tfevents.9.h"]
