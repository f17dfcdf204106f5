"""Process plumbing: child Python processes with timeouts, stopping what we started, medians."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The repository root (``tests/bench/measure.py`` is three levels down).
ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).resolve().with_name("child.py")
RESULT_PREFIX = "BENCH-RESULT "


class HarnessError(RuntimeError):
    """The benchmark itself failed (a peer missing, a child crashed or timed out)."""


def child_env() -> dict[str, str]:
    """The environment for child processes: the checkout's ``tbnb`` first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def run_child(job: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run ``child.py`` with ``job`` in a fresh interpreter and return its result."""
    return child_result([sys.executable, str(CHILD), json.dumps(job)], f"{job['kind']} child on {job.get('path')}",
                        timeout)


def run_module_child(module: str, job: dict[str, Any], timeout: float, what: str) -> dict[str, Any]:
    """Run ``python -m module --child '<json job>'`` in a fresh interpreter (a benchmark module
    measuring itself: it prints ``print_result(...)``) and return its result."""
    return child_result([sys.executable, "-m", module, "--child", json.dumps(job)], what, timeout)


def print_result(result: dict[str, Any]) -> None:
    """A child's one result line, as ``child_result`` reads it."""
    print(RESULT_PREFIX + json.dumps(result), flush=True)


def child_result(cmd: list[str], what: str, timeout: float) -> dict[str, Any]:
    """Run ``cmd`` (from the repository root, the checkout first on the path) and return the
    JSON of its last ``RESULT_PREFIX`` line; HarnessError naming ``what`` if it fails.

    ``subprocess.run`` kills the child if it outlives ``timeout``.
    """
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=child_env(), capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as err:
        raise HarnessError(f"{what} took over {timeout:.0f} s (killed; raise --timeout?)") from err
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX) and done.returncode == 0:
            return json.loads(line[len(RESULT_PREFIX):])
    raise HarnessError(f"{what} failed (exit {done.returncode}):\n{_tail(done.stderr or done.stdout)}")


def stop_process(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """Stop a process this harness started, by its pid: close stdin, SIGTERM, then SIGKILL."""
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=grace)
        except ProcessLookupError:
            pass


def vm_hwm_mb(pid: int) -> float | None:
    """Peak resident set (``VmHWM``) of a live process, in MB; None where /proc is missing."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e6
    except OSError:
        pass
    return None


def median(values: Sequence[float | None]) -> float | None:
    """Median of the values that are not None (None if there are none)."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None
