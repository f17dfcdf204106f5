"""The first read of a sweep of TF1 scalar runs builds all their series at once (``batch_cold``):
the same data, problems and columns' storage as the general path and as the per-run bulk path,
on generated sweeps whose series step regularly, irregularly, backwards (preemption), once, and
near int64's limits; runs with any other record are left to the per-run path, taken unapplied."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.logdir import batch_cold, batch_reload
from tbnb.testing import EventWriter

from .test_bulk import assert_same_logdir

# Step patterns of one series: what each makes the columns hold (a progression, copied steps,
# or the general path's preemption).
PATTERNS = ("regular", "strided", "irregular", "backwards", "repeats", "one", "huge", "wraps")


def _steps(rng: np.random.Generator, pattern: str) -> list[int]:
    n = int(rng.integers(2, 60)) if pattern != "long" else 40
    if pattern in ("regular", "long"):
        return list(range(n))
    if pattern == "strided":
        start, stride = int(rng.integers(-100, 100)), int(rng.integers(1, 50))
        return [start + stride * i for i in range(n)]
    if pattern == "irregular":
        return np.cumsum(rng.integers(1, 9, size=n)).tolist()
    if pattern == "backwards":  # a restart without SessionLog: later points preempt
        first = list(range(n))
        return first + list(range(n // 2, n // 2 + 5))
    if pattern == "repeats":
        return sorted(rng.integers(0, n, size=n).tolist())
    if pattern == "one":
        return [int(rng.integers(-5, 5))]
    if pattern == "huge":  # starts and strides on either side of 2^62, where a progression is refused
        big = 1 << 62
        start = int(rng.choice([big - 3, big, -(big - 1), -big]))
        stride = int(rng.choice([1, big // 4, big - 1, big]))
        return [start + stride * i for i in range(n) if start + stride * i < (1 << 63)]
    return [-(1 << 63), (1 << 63) - 1]  # "wraps": increasing, their difference wraps int64


def write_sweep(root: Path, rng: np.random.Generator, runs: int, extra: dict[int, str] | None = None,
                patterns: tuple[str, ...] = PATTERNS) -> None:
    """``runs`` runs of TF1 scalars with random step patterns; ``extra``: run -> another record
    to add ("text", "restart", "tf2")."""
    extra = extra or {}
    for r in range(runs):
        # (some files' first record has no wall time: the run starts at its first scalar's)
        with EventWriter(root / f"run_{r:03d}", start_time=0.0 if r % 5 == 2 else 1000.0 + r) as w:
            tags = [f"loss/{t}" for t in range(int(rng.integers(1, 6)))]
            series = {tag: _steps(rng, str(rng.choice(patterns))) for tag in tags}
            longest = max(len(s) for s in series.values())
            for i in range(longest):  # interleaved, as a training loop writes them
                for tag, steps in series.items():
                    if i < len(steps):
                        w.add_scalar(tag, float(rng.normal()), steps[i], wall_time=2000.0 + r + i / 1000)
            kind = extra.get(r)
            if kind == "text":
                w.add_text("notes", "hello", 3, wall_time=1500.0)
            elif kind == "restart":
                w.add_session_start(2, wall_time=1600.0)
                w.add_scalar("loss/0", 1.0, 2, wall_time=1601.0)
            elif kind == "tf2":
                w.add_scalar("tf2/loss", 1.0, 1, wall_time=1700.0, tf2=True)


def storage(lg: tbnb.Logdir) -> dict[tuple[str, str], tuple]:
    """How every scalar series is held (progression or steps, dtypes, count)."""
    out = {}
    for run in lg.runs():
        for tag, cols in lg._runs[run].data._scalars.items():
            out[(run, tag)] = (cols._compact, cols._step is None, cols._start if cols._step is None else None,
                               cols._stride, cols._value.dtype.str, cols.n)
    return out


def cold_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"taken": 0, "handed over": 0}
    real = batch_reload.apply_cold

    def counting(*args: object, **kwargs: object) -> bool:
        ok = real(*args, **kwargs)  # type: ignore[arg-type]
        calls["taken" if ok else "handed over"] += 1
        return ok

    monkeypatch.setattr(batch_reload, "apply_cold", counting)
    return calls


@pytest.mark.parametrize("seed", range(10))
def test_a_cold_sweep_holds_what_the_general_path_holds(tmp_path: Path, seed: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(900 + seed)
    write_sweep(tmp_path, rng, runs=int(rng.integers(20, 40)))
    calls = cold_calls(monkeypatch)
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)
    # (a run whose records of one length are too few to decode in bulk has them parsed one by
    # one: those are summaries, so the run is handed over, unapplied)
    assert calls["taken"] > 0
    # the same storage as the batch applied run by run (BulkBatch, then flush)
    cold = tbnb.Logdir(tmp_path)
    cold.reload()
    monkeypatch.setattr(batch_reload, "eligible", lambda *args: False)
    by_run = tbnb.Logdir(tmp_path)
    by_run.reload()
    assert storage(cold) == storage(by_run)


@pytest.mark.parametrize("kind", ["text", "restart", "tf2"])
def test_runs_with_other_records_are_left_to_the_per_run_path(tmp_path: Path, kind: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(77)
    write_sweep(tmp_path, rng, runs=12, extra={3: kind, 8: kind}, patterns=("long",))
    calls = cold_calls(monkeypatch)
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)
    assert calls["handed over"] == 4  # two runs, two Logdirs checked
    assert calls["taken"] == 2 * 10


def test_a_second_read_of_a_run_is_not_cold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    write_sweep(tmp_path, rng, runs=10)
    lg = tbnb.Logdir(tmp_path)
    lg.reload()
    for r in range(10):
        with EventWriter(tmp_path / f"run_{r:03d}", start_time=5000.0 + r) as w:
            for i in range(40):  # enough records of one length to be decoded in bulk
                w.add_scalar("loss/0", 2.0, 10**6 + i, wall_time=5000.0 + r)
                w.add_scalar("new/tag", 3.0, i, wall_time=5000.0 + r)
    calls = cold_calls(monkeypatch)
    offered = []
    real = batch_cold.RunData.is_fresh

    def fresh(self: batch_cold.RunData) -> bool:
        offered.append(real(self))
        return offered[-1]

    monkeypatch.setattr(batch_cold.RunData, "is_fresh", fresh)
    lg.reload()
    assert offered and not any(offered) and calls == {"taken": 0, "handed over": 0}
    slow = tbnb.Logdir(tmp_path, bulk=False)
    slow.reload()
    for run in slow.runs():
        for tag in slow.tags(run):
            assert lg.scalars(run, tag).step.tolist() == slow.scalars(run, tag).step.tolist()


def test_a_run_with_no_new_bytes_before_a_cold_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run listed with nothing new to read (an empty event file appeared) has no piece in the
    batch; the cold run after it shares its piece index and once took its place (IndexError)."""
    monkeypatch.setattr(batch_reload, "BATCH_MIN_RUNS", 1)
    rng = np.random.default_rng(3)
    write_sweep(tmp_path, rng, 2, patterns=("regular",))
    lg = tbnb.Logdir(tmp_path)
    lg.reload()
    (tmp_path / "run_000" / "events.out.tfevents.9999999999.empty").write_bytes(b"")
    write_sweep(tmp_path / "more", rng, 1, patterns=("regular",))
    (tmp_path / "more" / "run_000").rename(tmp_path / "run_zzz")
    lg.reload()
    assert "run_zzz" in lg.runs()
    slow = tbnb.Logdir(tmp_path, bulk=False)
    slow.reload()
    assert lg.runs() == slow.runs()
    for run in slow.runs():
        for tag in slow.tags(run):
            got, want = lg.scalars(run, tag), slow.scalars(run, tag)
            np.testing.assert_array_equal(got.step, want.step)
            np.testing.assert_array_equal(got.value, want.value)
