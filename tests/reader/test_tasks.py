"""``tbnb.load(..., executor=...)``: runs parsed in an executor's tasks equal the local load,
value for value, on a cold load and on incremental reloads (restarts included)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbnb
from tbnb.reader.runs.run import Run
from tbnb.testing import EventWriter, write_demo_logdir

from .same_data import assert_same


def grow(root: Path, writers: dict[str, EventWriter], steps: range, restart_at: int | None = None) -> None:
    for name, w in writers.items():
        if restart_at is not None and name == "a":
            w.add_session_start(restart_at)
        for step in steps:
            w.add_scalar("loss", float(step) * 0.5, step if restart_at is None or name != "a" else restart_at + step)
            if step % 5 == 0:
                w.add_histogram("weights", np.linspace(-1, 1, 20) * step, step)
        w.flush()


@pytest.fixture(scope="module")
def pool() -> Any:
    with ProcessPoolExecutor(max_workers=2) as executor:
        yield executor


def test_a_run_sent_to_a_task_pickles_without_its_scalar_points(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "run") as w:
        for step in range(5000):
            w.add_scalar("loss", float(step), step)
    run = Run("run", tmp_path / "run", tbnb.Logdir(tmp_path).capacities)
    paths = sorted((tmp_path / "run").iterdir())
    run.reload(paths)
    whole, task = len(pickle.dumps(run)), len(pickle.dumps(run.for_task(paths)))
    assert run.data.count("loss") == 5000
    assert task < whole / 10  # offsets and rules travel, the 5,000 points do not


@pytest.mark.parametrize("kind", ["process", "thread"])
def test_an_executor_load_equals_the_local_load(tmp_path: Path, pool: Executor, kind: str) -> None:
    logdir = write_demo_logdir(tmp_path / "demo")
    if kind == "thread":
        with ThreadPoolExecutor(2) as threads:
            assert_same(tbnb.load(logdir), tbnb.load(logdir, executor=threads))
        return
    assert_same(tbnb.load(logdir), tbnb.load(logdir, executor=pool))


def test_incremental_reloads_in_tasks_equal_local_reloads(tmp_path: Path, pool: Executor) -> None:
    writers = {name: EventWriter(tmp_path / name) for name in ("a", "b")}
    grow(tmp_path, writers, range(0, 40))
    local, remote = tbnb.load(tmp_path), tbnb.load(tmp_path, executor=pool)
    grow(tmp_path, writers, range(40, 60))
    assert local.reload().points == remote.reload().points
    assert_same(local, remote)
    grow(tmp_path, writers, range(0, 10), restart_at=30)  # run a restarts at step 30
    r1, r2 = local.reload(), remote.reload()
    assert r1.purged_runs == r2.purged_runs == ["a"] and r1.points == r2.points
    assert_same(local, remote)
    assert not remote.reload()
    for w in writers.values():
        w.close()


def test_an_executor_load_imports_no_dask(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("x", 1.0, 0)
    code = ("import sys, tbnb; from concurrent.futures import ThreadPoolExecutor; "
            "lg = tbnb.load(sys.argv[1], executor=ThreadPoolExecutor(1)); "
            "assert lg.scalars('run', 'x').value.tolist() == [1.0]; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"
