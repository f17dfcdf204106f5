"""A reload of many runs shared with forked children (``forked``) holds exactly what a reload in
this process holds: a differential test on generated sweeps (clean, damaged, growing), and the
children that die, fail or stall are not waited for: their chunks are read here."""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.logdir import forked, logdir
from tbnb.reader.logdir.logdir import Logdir
from tbnb.testing import write_scalar_logdir

from .logdir_changes import write_more
from .same_data import assert_same
from .test_bulk import damage, random_log

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked reloads are Linux-only")

PARENT = os.getpid()


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Fork for any reload of 2 runs or more, in chunks of a run or two; yields the chunks this
    process took back from a child (so a test can tell the children took part)."""
    monkeypatch.setattr(forked, "FORK_MIN_RUNS", 2)
    monkeypatch.setattr(forked, "MIN_CHUNK_RUNS", 1)
    taken: list[int] = []
    real = forked._unpack

    def unpack(chunk: list[forked.Job], payload: bytes) -> object:
        taken.append(len(chunk))
        return real(chunk, payload)

    monkeypatch.setattr(forked, "_unpack", unpack)
    yield taken
    assert multiprocessing.active_children() == []  # every child was waited for


def slow_chunks(monkeypatch: pytest.MonkeyPatch, misbehave: object = None) -> list[object]:
    """Each chunk takes 20 ms longer (so that every process takes some); in a child, the callable
    in the returned list (``misbehave`` at first; the test may change it) is called first."""
    real = Logdir._reload_here
    child_does = [misbehave]

    def reload_here(self: Logdir, jobs: list[forked.Job], first_bytes: int | None = None) -> object:
        if os.getpid() != PARENT and callable(child_does[0]):
            child_does[0]()
        time.sleep(0.02)
        return real(self, jobs, first_bytes)

    monkeypatch.setattr(Logdir, "_reload_here", reload_here)
    return child_does


def forms(lg: Logdir) -> dict[tuple[str, str], tuple[object, ...]]:
    """How each scalar series is stored: points, steps as a progression or a column, the value
    dtype, compact or not (a child's come back without spare capacity: bytes may be fewer)."""
    return {(name, tag): (c.n, c._step is None, c._stride, c._value.dtype.str, c._compact)
            for name, run in lg._runs.items() for tag, c in run.data._scalars.items()}


def assert_equal_loads(forked_lg: Logdir, here: Logdir, same_chunks: Logdir | None = None) -> None:
    """Same data and problems as a load here; with ``same_chunks`` (the same chunks, all read
    here), the scalar columns stored alike too (how a series is stored depends on which runs
    were batched together, not on the process that read them)."""
    assert_same(forked_lg, here)
    assert forked_lg.problems == here.problems
    if same_chunks is not None:
        assert_same(forked_lg, same_chunks)
        assert forms(forked_lg) == forms(same_chunks)


def random_sweep(root: Path, rng: np.random.Generator, runs: int) -> None:
    for r in range(runs):
        buf = random_log(rng, int(rng.integers(5, 120)))
        kind = rng.random()
        if kind < 0.2:
            buf = damage(rng, buf)
        elif kind < 0.3:
            buf = buf[: len(buf) - int(rng.integers(1, 30))]
        (root / f"run_{r:02d}").mkdir()
        (root / f"run_{r:02d}" / "events.out.tfevents.1.test").write_bytes(buf)


@pytest.mark.parametrize("seed", range(4))
def test_a_forked_load_equals_a_load_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          small_chunks: list[int], seed: int) -> None:
    random_sweep(tmp_path, np.random.default_rng(900 + seed), 24)
    child_does = slow_chunks(monkeypatch)
    a, b = Logdir(tmp_path, processes=2), Logdir(tmp_path, processes=0)
    da, db = a.reload(), b.reload()
    assert small_chunks, "no chunk was read by a child"
    assert da.points == db.points and da.problems == db.problems
    # (the order in which a run's tags were met depends on how runs are batched: not part of the contract)
    assert {r: sorted(t) for r, t in da.new_tags.items()} == {r: sorted(t) for r, t in db.new_tags.items()}
    child_does[0] = _die  # the same chunks, every one read here
    taken = len(small_chunks)
    c = Logdir(tmp_path, processes=2)
    c.reload()
    assert len(small_chunks) == taken
    assert_equal_loads(a, b, c)


def test_a_sweep_read_in_children_is_stored_compact(tmp_path: Path, small_chunks: list[int],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """(Chunks of 8 runs: as many as the many-run batch path needs, ``BATCH_MIN_RUNS``.)"""
    monkeypatch.setattr(forked, "MIN_CHUNK_RUNS", 8)
    write_scalar_logdir(tmp_path, runs=40, tags=4, steps=60)
    slow_chunks(monkeypatch)
    lg = Logdir(tmp_path, processes=1)
    lg.reload()
    assert small_chunks
    points, nbytes = map(sum, zip(*(run.data.scalar_footprint() for run in lg._runs.values())))
    assert points == 40 * 4 * 60 and nbytes == 12 * points
    assert_equal_loads(lg, tbnb.load(tmp_path))


def test_growing_sweeps_reloaded_forked_match(tmp_path: Path, small_chunks: list[int],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run's file grows between reloads, cut anywhere (records half written included):
    the forked Logdir follows the one reloaded here, poll after poll."""
    rng = np.random.default_rng(77)
    logs = [random_log(rng, int(rng.integers(20, 150))) for _ in range(12)]
    child_does = slow_chunks(monkeypatch)
    a, b, c = Logdir(tmp_path, processes=1), Logdir(tmp_path, processes=0), Logdir(tmp_path, processes=1)
    written = [0] * len(logs)
    for _ in range(4):
        write_more(tmp_path, logs, written, [int(rng.integers(1, len(b) // 2 + 2)) for b in logs], "run_{:02d}")
        child_does[0] = None
        da, db = a.reload(), b.reload()
        child_does[0] = _die
        c.reload()
        assert da.points == db.points and da.problems == db.problems
        assert_equal_loads(a, b, c)
    assert small_chunks


def _die() -> None:
    os._exit(3)


def _fail() -> None:
    raise RuntimeError("a child's chunk failed")


def _stall() -> None:
    time.sleep(120)


@pytest.mark.parametrize("misbehave", [_die, _fail, _stall], ids=["dies", "fails", "stalls"])
def test_a_child_that_dies_fails_or_stalls_is_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         small_chunks: list[int], misbehave: object) -> None:
    monkeypatch.setattr(forked, "STALL_SECONDS", 0.5)
    monkeypatch.setattr(forked, "STALL_CHUNKS", 1)
    write_scalar_logdir(tmp_path, runs=20, tags=3, steps=30)
    slow_chunks(monkeypatch, misbehave)
    lg = Logdir(tmp_path, processes=2)
    began = time.monotonic()
    lg.reload()
    assert time.monotonic() - began < 30  # a stalled child is given up after 0.5 s without progress
    assert small_chunks == []  # nothing came back from the children
    assert_equal_loads(lg, tbnb.load(tmp_path))


def test_an_error_here_stops_the_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         small_chunks: list[int]) -> None:
    write_scalar_logdir(tmp_path, runs=20, tags=2, steps=10)

    real = Logdir._reload_here

    def reload_here(self: Logdir, jobs: list[forked.Job], first_bytes: int | None = None) -> object:
        if os.getpid() == PARENT:
            raise MemoryError("no room here")
        time.sleep(0.05)
        return real(self, jobs, first_bytes)

    monkeypatch.setattr(Logdir, "_reload_here", reload_here)
    with pytest.raises(MemoryError):
        Logdir(tmp_path, processes=2).reload()
    # (the fixture checks no child is left running)


def test_few_runs_a_preview_and_remote_logdirs_are_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below FORK_MIN_RUNS, for a preview (``first_bytes``) and on a remote logdir nothing forks."""
    forks: list[int] = []
    monkeypatch.setattr(logdir, "reload_forked", lambda jobs, chunk, helpers: forks.append(len(jobs)) or chunk(jobs))
    write_scalar_logdir(tmp_path, runs=10, tags=2, steps=10)
    Logdir(tmp_path, processes=1).reload()
    monkeypatch.setattr(forked, "FORK_MIN_RUNS", 2)
    Logdir(tmp_path, processes=1).reload(first_bytes=100)
    Logdir(tmp_path, processes=0).reload()
    fsspec = pytest.importorskip("fsspec")
    url = f"memory://tbnb-forked-{os.getpid()}"
    memory = fsspec.filesystem("memory")
    try:
        for path in sorted(tmp_path.rglob("*")):
            if path.is_file():
                memory.pipe_file(f"{url}/{path.relative_to(tmp_path).as_posix()}", path.read_bytes())
        remote = Logdir(url, processes=1)
        remote.reload()
        assert len(remote.runs()) == 10
    finally:
        memory.rm(url, recursive=True)
    assert forks == []
    Logdir(tmp_path, processes=1).reload()
    assert forks == [10]


def test_spare_processes_is_one_per_other_core() -> None:
    cores = len(os.sched_getaffinity(0))
    assert forked.spare_processes() == max(0, min(forked.MAX_HELPERS, cores - 1))
    assert Logdir(".").processes == forked.spare_processes()


def test_chunks_cover_every_job_in_order() -> None:
    jobs = list(range(1003))
    for processes in (1, 2, 4):
        chunks = forked.chunked(jobs, processes)  # type: ignore[arg-type]
        assert [j for c in chunks for j in c] == jobs
        assert len(chunks) == min(len(jobs) // forked.MIN_CHUNK_RUNS, processes * forked.CHUNKS_PER_PROCESS)
        assert max(map(len, chunks)) - min(map(len, chunks)) <= 1


def test_a_few_big_runs_are_shared_too_their_columns_out_of_band(tmp_path: Path, small_chunks: list[int],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Below FORK_MIN_RUNS, runs holding FORK_MIN_BYTES unread fork, one run a chunk; their big
    columns travel in buffers of their own; scalars, histograms and images as read here."""
    from tbnb.testing import EventWriter

    monkeypatch.setattr(forked, "FORK_MIN_RUNS", 10**9)
    rng = np.random.default_rng(5)
    for r in range(4):
        with EventWriter(tmp_path / f"run_{r}") as w:
            for step in range(6000):
                w.add_scalar("loss", float(rng.random()), step)
                w.add_scalar("lr", 0.1, step)
                if step % 100 == 0:
                    w.add_histogram("weights", rng.normal(size=200), step, tf2=bool(r % 2))
                    w.add_image("sample", rng.integers(0, 255, (8, 8, 3), dtype=np.uint8), step, tf2=bool(r % 2))
    unread = sum(p.stat().st_size for p in tmp_path.rglob("*tfevents*"))
    apart: list[int] = []
    real = forked._chunk_message

    def spy(conn: object, message: bytes) -> object:
        got = real(conn, message)  # type: ignore[arg-type]
        if got is not None:
            apart.extend(len(b) for b in got[1][1])
        return got

    monkeypatch.setattr(forked, "_chunk_message", spy)
    monkeypatch.setattr(forked, "FORK_MIN_BYTES", unread + 1)
    Logdir(tmp_path, processes=1).reload()
    assert small_chunks == []  # below both thresholds: read here
    monkeypatch.setattr(forked, "FORK_MIN_BYTES", unread)
    slow_chunks(monkeypatch)
    lg = Logdir(tmp_path, processes=1)
    lg.reload()
    assert small_chunks and set(small_chunks) == {1}  # runs read by the child, one a chunk
    assert apart and min(apart) >= forked.OUT_OF_BAND_BYTES
    assert_equal_loads(lg, tbnb.load(tmp_path, processes=0))


def test_few_runs_are_chunked_one_a_chunk() -> None:
    for jobs in (2, 5, 31):
        chunks = forked.chunked(list(range(jobs)), 2)  # type: ignore[arg-type]
        assert [j for c in chunks for j in c] == list(range(jobs))
        assert len(chunks) == min(jobs, 2 * forked.CHUNKS_PER_PROCESS)
