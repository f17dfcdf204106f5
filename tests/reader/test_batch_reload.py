"""Many runs reloaded at once (``batch_reload``) hold exactly what the general path holds: a
differential test on generated sweeps, clean and damaged, cold and growing, against
``Logdir(bulk=False)``; and the batch takes the clean runs and hands every other run over."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.logdir import batch_reload
from tbnb.reader.runs.run import Run
from tbnb.testing import EventWriter, write_scalar_logdir

from .logdir_changes import write_more
from .test_bulk import assert_same_logdir, damage, random_log


@contextlib.contextmanager
def own_reloads() -> Iterator[list[str]]:
    """Names of the runs reloaded by their own loader (``Run.reload``) while active."""
    names: list[str] = []
    real = Run.reload

    def counting(self: Run, *args: object, **kwargs: object) -> object:
        names.append(self.name)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    Run.reload = counting  # type: ignore[method-assign]
    try:
        yield names
    finally:
        Run.reload = real  # type: ignore[method-assign]


@pytest.mark.parametrize(("batch_bytes", "threads"), [(1 << 25, 1), (20_000, 1), (20_000, 3)])
def test_a_sweep_of_small_runs_is_reloaded_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   batch_bytes: int, threads: int) -> None:
    """(With a small ``BATCH_BYTES``, in several batches; with one thread and with several.)"""
    monkeypatch.setattr(batch_reload, "BATCH_BYTES", batch_bytes)
    write_scalar_logdir(tmp_path, runs=30, tags=5, steps=50)
    with own_reloads() as own:
        lg = tbnb.Logdir(tmp_path, threads=threads)
        lg.reload()
    assert own == []
    assert len(lg.runs()) == 30 and all(len(lg.scalars(r, "group_0/metric_0")) == 50 for r in lg.runs())
    assert_same_logdir(tmp_path, threads=threads)
    assert_same_logdir(tmp_path, purge_orphaned_data=False, threads=threads)


@pytest.mark.parametrize("tf2", [False, True])
def test_tf2_sweeps_and_restarts_match(tmp_path: Path, tf2: bool) -> None:
    """TF2 tags name their plugin from the metadata of each run's first value; a restart in a
    second file purges; both as the general path does."""
    write_scalar_logdir(tmp_path, runs=12, tags=3, steps=40, tf2=tf2)
    for run in ("run_03", "run_07"):
        with EventWriter(tmp_path / run) as w:
            w.add_session_start(20)
            for i in range(20, 30):
                w.add_scalar("group_0/metric_0", -1.0, i, tf2=tf2)
    with own_reloads() as own:
        tbnb.load(tmp_path)
    assert own == []
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)


@pytest.mark.parametrize("seed", range(8))
def test_random_sweeps_with_damage_match(tmp_path: Path, seed: int) -> None:
    """Random records of every kind; some runs damaged or cut mid-record (handed over to their
    own loader), the others batched: the Logdir is the general path's, problems included."""
    rng = np.random.default_rng(300 + seed)
    damaged = set()
    for r in range(16):
        buf = random_log(rng, int(rng.integers(5, 200)))
        kind = rng.random()
        if kind < 0.25:
            buf, _ = damage(rng, buf), damaged.add(f"run_{r:02d}")
        elif kind < 0.35:
            buf = buf[: len(buf) - int(rng.integers(1, 30))]
            damaged.add(f"run_{r:02d}")
        (tmp_path / f"run_{r:02d}").mkdir()
        (tmp_path / f"run_{r:02d}" / "events.out.tfevents.1.test").write_bytes(buf)
    with own_reloads() as own:
        tbnb.load(tmp_path)
    assert set(own) <= damaged  # every clean run was batched
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)


@pytest.mark.parametrize("seed", range(3))
def test_growing_sweeps_match(tmp_path: Path, seed: int) -> None:
    """Every run's file grows between reloads, cut anywhere (records half written included)."""
    rng = np.random.default_rng(400 + seed)
    logs = [random_log(rng, int(rng.integers(20, 150))) for _ in range(10)]
    fast, slow = tbnb.Logdir(tmp_path, bulk=True), tbnb.Logdir(tmp_path, bulk=False)
    written = [0] * len(logs)
    for _ in range(5):
        write_more(tmp_path, logs, written, [int(rng.integers(0, len(b) // 2 + 1)) for b in logs])
        a, b = fast.reload(), slow.reload()
        assert a.points == b.points and a.problems == b.problems
    assert fast.problems == slow.problems
    for run in slow.runs():
        assert fast.tags(run) == slow.tags(run)
        for tag, plugin in slow.tags(run).items():
            if plugin == "scalars":
                assert fast.scalars(run, tag).value.tobytes() == slow.scalars(run, tag).value.tobytes()


def test_large_and_media_files_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Media runs (blobs referenced by file offset) batched, and a file above the batch's size
    limit read by its own loader: both as the general path reads them."""
    monkeypatch.setattr(batch_reload, "BATCH_FILE_BYTES", 20_000)
    rng = np.random.default_rng(7)
    image = rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)
    for r in range(9):
        with EventWriter(tmp_path / f"m{r}") as w:
            for i in range(10 + 40 * (r == 0)):
                w.add_histogram("w", rng.normal(size=30), i, tf2=bool(r % 2))
                w.add_image("img", image, i, tf2=bool(r % 2))
                w.add_scalar("loss", float(i), i)
    with own_reloads() as own:
        lg = tbnb.load(tmp_path)
    assert own == ["m0"]
    assert len(lg.tensors("m3", "img")) == 10
    assert_same_logdir(tmp_path)


def test_a_file_gone_or_shrunk_is_left_to_the_run(tmp_path: Path) -> None:
    write_scalar_logdir(tmp_path, runs=10, tags=2, steps=20)
    lg = tbnb.load(tmp_path)
    files = sorted(tmp_path.glob("run_0[0-9]/*tfevents*"))
    files[0].write_bytes(files[0].read_bytes()[:100])
    for f in files[1:]:
        with EventWriter(f.parent) as w:
            w.add_scalar("group_0/metric_0", 9.0, 100)
    with own_reloads() as own:
        result = lg.reload()
    assert own == ["run_00"]
    assert any("shrank" in p.reason for p in result.problems)
    assert all(lg.scalars(f"run_0{i}", "group_0/metric_0").step[-1] == 100 for i in range(1, 10))


def test_a_reload_with_nothing_new_opens_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An idle reload lists the runs and looks at each file's size: no file is opened."""
    import builtins

    write_scalar_logdir(tmp_path, runs=12, tags=2, steps=30)
    lg = tbnb.load(tmp_path)
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", counting_open)
    assert not lg.reload()
    assert opened == []
    with EventWriter(tmp_path / "run_05") as w:
        w.add_scalar("group_0/metric_0", 1.0, 500)
    opened.clear()
    assert lg.reload().points == {("run_05", "group_0/metric_0"): 1}
    assert any("run_05" in name for name in opened)  # (the counting sees the files it should)


@pytest.mark.parametrize(("tags", "steps"), [(3, 3), (300, 3), (300, 1)])
def test_runs_with_tags_of_their_own_match(tmp_path: Path, tags: int, steps: int) -> None:
    """Each run's tags named after the run, as the general path reads them (with 300 tags and
    one step, more distinct tags than rows in the batch: each file's tags are found by sorting,
    not with a table)."""
    for r in range(10):
        with EventWriter(tmp_path / f"r{r}") as w:
            for step in range(steps):
                for t in range(tags):
                    w.add_scalar(f"r{r}/t{t:03d}", float(step * t), step)
    with own_reloads() as own:
        lg = tbnb.load(tmp_path)
    assert own == [] and len(lg.tags("r7")) == tags
    assert lg.scalars("r7", f"r7/t{tags - 1:03d}").value.tolist() == [s * (tags - 1.0) for s in range(steps)]
    assert_same_logdir(tmp_path)


def test_a_small_last_batch_joins_the_one_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 8 runs leave a ninth alone: its few step-0 records (one a tag, shorter than
    the rest) are too few to decode in bulk, and alone it would leave the cold path and keep
    24 bytes a point; joined to the batch before, every series holds 12."""
    write_scalar_logdir(tmp_path, runs=9, tags=3, steps=50)
    size = max(f.stat().st_size for f in tmp_path.glob("run_*/*"))
    monkeypatch.setattr(batch_reload, "BATCH_BYTES", 8 * size - 1)
    with own_reloads() as own:
        lg = tbnb.load(tmp_path)
    assert own == []
    for name, run in lg._runs.items():
        points, nbytes = run.data.scalar_footprint()
        assert points == 3 * 50 and nbytes == 12 * points, name
    assert_same_logdir(tmp_path)
