"""Change notification (inotify) in place of stats: a watched logdir finds exactly what the
general walk finds, poll after poll, names every run whose files changed (the reader stats only
those), costs an idle poll no stat, and falls back to stats wherever inotify cannot see it all."""

from __future__ import annotations

import errno
import os
import random
import struct
import sys
from pathlib import Path

import pytest

import tbnb
from tbnb.reader.files import discovery_cache, inotify
from tbnb.reader.files.discovery import find_run_files
from tbnb.reader.files.discovery_cache import CachedDiscovery
from tbnb.reader.files.inotify import DirectoryWatch, decode, watchable
from tbnb.testing import EventWriter

from .logdir_changes import ALL_CHANGES, make_runs, mutate

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    root = tmp_path / "logdir"
    root.mkdir()
    if not watchable(str(root)):
        pytest.skip("the temporary directory is on a file system inotify does not see whole")
    return root


def _state(root: Path) -> dict[str, tuple[tuple[str, int], ...]]:
    """Each run's event files and their sizes, as the general walk finds them."""
    runs, _ = find_run_files(root)
    return {run: tuple((f, os.stat(f).st_size) for f in files) for run, files in runs.items()}


@pytest.mark.parametrize("seed", range(10))
def test_a_watched_logdir_equals_the_general_walk_and_names_every_changed_run(logdir: Path, seed: int) -> None:
    rng = random.Random(seed)
    cached = CachedDiscovery(watch_min_dirs=0)
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert cached.watching
    before = _state(logdir)
    quiet = 0
    for step in range(80):
        for _ in range(rng.choice([0, 0, 1, 1, 2, 4])):
            mutate(logdir, rng, ALL_CHANGES)
        assert cached.find_run_files(logdir) == find_run_files(logdir), f"seed {seed}, poll {step}"
        assert cached.watching
        after = _state(logdir)
        changed = {run for run in after if after[run] != before.get(run)}
        if cached.touched is not None:  # (None: every run is checked)
            assert changed <= cached.touched, f"seed {seed}, poll {step}: {changed - cached.touched} not named"
            quiet += not cached.touched
        before = after
    assert quiet >= 10  # idle polls named nothing (what saves the stats)


def test_an_idle_poll_of_a_watched_logdir_makes_no_system_call_but_one_read(logdir: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    make_runs(logdir, (f"run{k}" for k in range(70)))
    cached = CachedDiscovery()  # (the default threshold: 71 directories are watched)
    first = cached.find_run_files(logdir)
    assert cached.watching
    calls: list[str] = []
    for name in ("stat", "scandir", "lstat"):
        real = getattr(os, name)
        monkeypatch.setattr(discovery_cache.os, name, lambda *a, _real=real, _name=name, **k: (calls.append(_name), _real(*a, **k))[1])
    assert cached.find_run_files(logdir) == first
    assert (calls, cached.touched) == ([], set())
    with open(logdir / "run7" / "events.out.tfevents.1.h", "ab") as fh:
        fh.write(b"grown")
    assert cached.find_run_files(logdir) == first
    assert (calls, cached.touched) == ([], {"run7"})  # a file grew: no listing, its run named
    (logdir / "run8" / "events.out.tfevents.2.h").write_bytes(b"")
    runs, _ = cached.find_run_files(logdir)
    assert runs["run8"][-1].endswith("events.out.tfevents.2.h")
    assert calls == ["scandir"] and cached.touched == {"run8"}  # the one directory listed (no stat)


def test_a_small_logdir_lets_its_watch_go_and_a_grown_one_takes_it(logdir: Path) -> None:
    (logdir / "a").mkdir()
    (logdir / "a" / "events.out.tfevents.1.h").write_bytes(b"")
    cached = CachedDiscovery(watch_min_dirs=5)
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert not cached.watching and cached.touched is None
    for k in range(6):
        (logdir / f"b{k}").mkdir()
    for _ in range(2):  # the poll that sees it grown, then the one that watches it
        assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert cached.watching
    (logdir / "b3" / "events.out.tfevents.1.h").write_bytes(b"")
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert cached.touched == {"b3"}


def test_no_watch_left_means_stats_from_then_on(logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_runs(logdir, (f"r{k}" for k in range(10)))
    cached = CachedDiscovery(watch_min_dirs=0)
    cached.find_run_files(logdir)
    assert cached.watching
    real_add = DirectoryWatch.add

    def add(self: DirectoryWatch, directory: str) -> None:
        if directory.endswith("new"):
            raise OSError(errno.ENOSPC, "no space left on device")  # what max_user_watches gives
        real_add(self, directory)

    monkeypatch.setattr(DirectoryWatch, "add", add)
    (logdir / "new").mkdir()
    (logdir / "new" / "events.out.tfevents.1.h").write_bytes(b"")
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert not cached.watching and cached.touched is None
    (logdir / "r2" / "events.out.tfevents.2.h").write_bytes(b"")
    os.utime(logdir / "r2", ns=(0, 0))  # (an mtime long past: the stats' cache must list it anyway, new key)
    assert cached.find_run_files(logdir) == find_run_files(logdir)


def test_a_symlinked_directory_goes_to_the_general_walk_while_watched(logdir: Path) -> None:
    make_runs(logdir, (f"r{k}" for k in range(5)))
    cached = CachedDiscovery(watch_min_dirs=0)
    cached.find_run_files(logdir)
    assert cached.watching
    (logdir / "link").symlink_to(logdir / "r1")
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    (logdir / "link").unlink()
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert cached.watching


def _event(wd: int, mask: int, name: bytes = b"") -> bytes:
    padded = name + b"\0" * (16 - len(name) % 16) if name else b""
    return struct.pack("iIII", wd, mask, 0, len(padded)) + padded


def test_the_event_queue_is_read_as_the_kernel_writes_it() -> None:
    paths = {1: "/l", 2: "/l/run", 3: "/l/gone"}
    changes = decode(_event(2, inotify.IN_MODIFY, b"events.out.tfevents.1.h")
                     + _event(1, inotify.IN_CREATE | 0x40000000, b"new")
                     + _event(3, inotify.IN_IGNORED)
                     + _event(9, inotify.IN_DELETE, b"x"), paths)  # (a watch no longer kept)
    assert changes is not None
    assert changes.touched == {"/l", "/l/run", "/l/gone"}
    assert changes.listed == {"/l", "/l/gone"}  # a file that grew needs no listing
    assert changes.dropped == {3}
    assert decode(_event(1, inotify.IN_ATTRIB, b"run"), paths).listed == {"/l"}  # a permission may have gone
    assert decode(_event(2, inotify.IN_MODIFY, b"f") + _event(-1, inotify.IN_Q_OVERFLOW), paths) is None
    assert decode(_event(1, inotify.IN_UNMOUNT), paths) is None
    assert decode(b"", paths) == inotify.Changes()


def test_an_overflowed_queue_lists_everything_again_and_checks_every_run(logdir: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    make_runs(logdir, (f"r{k}" for k in range(4)))
    cached = CachedDiscovery(watch_min_dirs=0)
    cached.find_run_files(logdir)
    monkeypatch.setattr(DirectoryWatch, "drain", lambda self: None)
    (logdir / "r2" / "events.out.tfevents.2.h").write_bytes(b"")
    assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert cached.touched is None and cached.watching


MOUNTS = """\
22 1 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 27 0:40 / /data rw - nfs4 server:/export rw
41 27 0:41 / /home/me/my\\040logs rw - xfs /dev/vdb rw
42 41 0:42 / /home/me/my\\040logs/remote rw - fuse.sshfs host: rw
43 27 0:43 / /scratch rw - tmpfs tmpfs rw
44 43 0:44 / /scratch rw - cifs //srv/share rw
"""


def test_only_a_logdir_whose_changes_all_pass_through_this_kernel_is_watched() -> None:
    assert watchable("/work/runs", MOUNTS)  # ext4
    assert not watchable("/data/runs", MOUNTS)  # NFS: another client's writes send no event
    assert watchable("/home/me/my logs/a", MOUNTS)  # xfs, the mount point's space escaped
    assert not watchable("/home/me/my logs", MOUNTS)  # an sshfs mount below it
    assert not watchable("/scratch/x", MOUNTS)  # the later mount on the same point hides tmpfs
    assert not watchable("/anything", "")  # no mount known


def test_a_logdir_watched_reads_what_a_logdir_polled_by_stats_reads(logdir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader on a sweep of 70 runs: an idle reload stats nothing; runs that a real writer
    (torch's SummaryWriter) appends to, or that appear, are read whole; the data equals a fresh
    load's and a load polled by stats alone."""
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    for k in range(70):
        with EventWriter(logdir / f"trial{k:02d}", start_time=1000.0 + k) as w:
            for step in range(5):
                w.add_scalar("loss", 1.0 / (step + 1 + k), step, wall_time=1000.0 + k + step)
    watched = tbnb.Logdir(logdir)
    by_stats = tbnb.Logdir(logdir)
    by_stats.storage._discovery._watch_min_dirs = None  # (never watched)
    watched.reload(), by_stats.reload()
    assert watched.storage._discovery.watching and not by_stats.storage._discovery.watching
    stats: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: (stats.append(os.fspath(p)), real_stat(p, *a, **k))[1])
    assert not watched.reload()
    assert stats == [str(logdir)]  # (the logdir is still a directory), no file's size
    writer = torch_tb.SummaryWriter(str(logdir / "trial07"))
    for step in range(5, 25):
        writer.add_scalar("loss", 0.5 / step, step)
    writer.flush()
    stats.clear()
    delta = watched.reload()
    assert delta.points == {("trial07", "loss"): 20}
    assert not any("trial1" in s or "trial08" in s for s in stats)  # quiet runs' files not stat-ed
    writer.add_scalar("acc", 0.9, 30)
    writer.close()
    with EventWriter(logdir / "late" / "nested", start_time=5000.0) as w:
        w.add_scalar("loss", 3.0, 0, wall_time=5000.0)
    monkeypatch.setattr(os, "stat", real_stat)
    watched.reload(), by_stats.reload()
    fresh = tbnb.Logdir(logdir)
    fresh.reload()
    for other in (by_stats, fresh):
        assert watched.runs() == other.runs()
        for run in other.runs():
            assert watched.tags(run) == other.tags(run)
            for tag in other.tags(run):
                a, b = watched.scalars(run, tag), other.scalars(run, tag)
                assert a.step.tolist() == b.step.tolist() and a.value.tolist() == b.value.tolist(), (run, tag)
    assert watched.count("trial07", "loss") == 25 and watched.count("late/nested", "loss") == 1


def test_a_preview_of_a_watched_logdir_is_finished_by_the_next_reload_with_no_event(logdir: Path) -> None:
    """The Board's first pass reads a few KB a file; the next reload must read the rest though
    nothing changed on disk since (no event names the runs: the sizes last seen say it)."""
    for k in range(4):  # (few runs: a many-run batch would read small files whole)
        with EventWriter(logdir / f"trial{k}", start_time=1000.0 + k) as w:
            for step in range(2000):
                w.add_scalar("loss", 1.0 / (step + 1), step, wall_time=1000.0 + step)
    lg = tbnb.Logdir(logdir)
    lg.storage._discovery._watch_min_dirs = 0  # (watched however small)
    lg.reload(first_bytes=256)
    assert lg.storage._discovery.watching and lg.unread_bytes() > 0
    lg.reload()
    assert lg.storage._discovery.touched == set()
    assert lg.unread_bytes() == 0
    assert all(lg.count(run, "loss") == 2000 for run in lg.runs())


def test_a_logdir_that_is_a_symlink_is_watched_through_it(logdir: Path) -> None:
    """``runs -> /data/runs``: the watch follows the link to the directory, whose changes it sees."""
    real = logdir / "real"
    make_runs(real, (f"r{k}" for k in range(3)))
    link = logdir / "runs"
    link.symlink_to(real)
    cached = CachedDiscovery(watch_min_dirs=0)
    assert cached.find_run_files(link) == find_run_files(link)
    assert cached.watching
    with open(real / "r1" / "events.out.tfevents.1.h", "ab") as fh:
        fh.write(b"grown")
    assert cached.find_run_files(link) == find_run_files(link)
    assert cached.touched == {"r1"}
    make_runs(real, ["r9"])
    assert cached.find_run_files(link) == find_run_files(link)
    assert cached.touched == {"r9"}


def test_a_logdir_that_always_hands_over_stops_making_watches(logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A symlinked run (``latest -> run_7``) sends every poll to the general walk: after a few
    polls no inotify instance is made for it any more, and every answer is still the walk's."""
    make_runs(logdir, (f"run_{k}" for k in range(8)))
    (logdir / "latest").symlink_to(logdir / "run_7")
    made: list[int] = []
    real_init = DirectoryWatch.__init__

    def counting(self: DirectoryWatch) -> None:
        made.append(1)
        real_init(self)

    monkeypatch.setattr(DirectoryWatch, "__init__", counting)
    cached = CachedDiscovery(watch_min_dirs=0)
    for k in range(12):
        make_runs(logdir, [f"new_{k}"])
        assert cached.find_run_files(logdir) == find_run_files(logdir)
    assert len(made) == discovery_cache.MAX_FAILED_STARTS
    assert not cached.watching
