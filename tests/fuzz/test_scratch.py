"""The long fuzz command leaves no scratch folder behind: not when it ends, not when it is
interrupted (SIGINT, as Ctrl-C sends to the whole process group) or stopped (SIGTERM to the
parent alone, whose children it then kills). Its children write thousands of small logdirs in
tmpfs; folders left there by every stopped run would fill the machine's memory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from . import seeds

#: Seconds a run may take to start a child and write its first input (imports, seeds loaded).
START = 60.0
#: Seconds the parent may take to end after a signal (kill its children, report, clean up).
END = 30.0


def _start(scratch: Path, out: Path, inputs: int) -> subprocess.Popen:
    seeds.build()  # before the clock: the first build runs torch in children
    return subprocess.Popen(
        [sys.executable, "-m", "tests.fuzz", "--inputs", str(inputs), "--jobs", "1", "--seed", "16",
         "--scratch", str(scratch), "--out", str(out)],
        cwd=seeds.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def _wait_for_inputs(scratch: Path, proc: subprocess.Popen) -> None:
    """Until a child has written an input in its folder under ``scratch``."""
    deadline = time.monotonic() + START
    while not any(p.name == "in" for p in scratch.glob("*/child-*/*")):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"no child wrote an input within {START:.0f} s: {proc.communicate()[0][-2000:]}")
        time.sleep(0.1)


def _finish(proc: subprocess.Popen, timeout: float = END) -> str:
    """The run's output once it has ended (killed, and an AssertionError, after ``timeout``)."""
    try:
        return proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"the fuzz run did not end within {timeout:.0f} s") from None


@pytest.mark.parametrize("how", ["SIGTERM to the parent", "SIGINT to the group"])
def test_a_stopped_run_removes_its_scratch_folder(tmp_path: Path, how: str) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = _start(scratch, tmp_path / "out", inputs=1_000_000)
    _wait_for_inputs(scratch, proc)
    if how == "SIGTERM to the parent":
        proc.send_signal(signal.SIGTERM)
    else:
        os.killpg(proc.pid, signal.SIGINT)
    output = _finish(proc)
    assert "[final]" in output, output[-2000:]  # stopped, it still reports its figures
    assert list(scratch.iterdir()) == [], sorted(str(p) for p in scratch.rglob("*"))[:10]


def test_a_finished_run_removes_its_scratch_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc = _start(scratch, tmp_path / "out", inputs=3)
    output = _finish(proc, START)
    assert proc.returncode == 0, output[-2000:]
    assert "[final]" in output and ": 3 inputs" in output, output[-2000:]
    assert list(scratch.iterdir()) == [], sorted(str(p) for p in scratch.rglob("*"))[:10]
