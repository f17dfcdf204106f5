"""The loaders measured: tbnb, RustBoard (``tensorboard_data_server``) and TensorBoard's Python loader."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from .measure import HarnessError, run_child, stop_process, vm_hwm_mb

INSTALL_HINT = ("install the benchmark's peers with `pip install -e '.[bench]'` "
                "(or `pip install tensorboard-data-server tensorboard`)")

_FINISHED = re.compile(r"Finished load cycle \(([0-9.]+)\s*(ns|µs|us|ms|s)\)")
_UNIT = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def rustboard_binary() -> Path:
    """The data server binary shipped by the ``tensorboard-data-server`` package."""
    spec = importlib.util.find_spec("tensorboard_data_server")
    if spec is None or not spec.submodule_search_locations:
        raise HarnessError(f"tensorboard-data-server (RustBoard) is not installed: {INSTALL_HINT}")
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "server"
    if not binary.is_file():
        raise HarnessError(f"tensorboard-data-server has no binary at {binary} (no build for this platform?)")
    return binary


def require_tensorboard() -> None:
    """Fail clearly if TensorBoard's Python loader is missing."""
    if importlib.util.find_spec("tensorboard") is None:
        raise HarnessError(f"tensorboard (the Python loader peer) is not installed: {INSTALL_HINT}; "
                           "or pass --quick to skip it")


@lru_cache(maxsize=1)
def rustboard_version() -> str:
    """``server --version``, e.g. ``rustboard 0.7.2``."""
    done = subprocess.run([str(rustboard_binary()), "--version"], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL, check=False)
    return done.stdout.strip() or "unknown"


@lru_cache(maxsize=1)
def _rustboard_has_die_after_stdin() -> bool:
    done = subprocess.run([str(rustboard_binary()), "--help"], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL, check=False)
    return "--die-after-stdin" in done.stdout


def parse_load_cycle(log: str) -> float | None:
    """Seconds from RustBoard's ``Finished load cycle (1.234s)`` line (Rust's Duration format)."""
    match = _FINISHED.search(log)
    return float(match.group(1)) * _UNIT[match.group(2)] if match else None


def rustboard_load(path: Path, timeout: float) -> dict[str, Any]:
    """One load of ``path`` by RustBoard: its own load-cycle time and its peak RSS.

    ``server --logdir D --reload once --port 0 --port-file F -v`` keeps serving after the load,
    so the harness watches its log for the cycle line, reads VmHWM, then stops it by pid. With
    ``--die-after-stdin`` it also dies if this harness dies.
    """
    cmd = [str(rustboard_binary()), "--logdir", str(path), "--reload", "once", "--port", "0", "-v"]
    if _rustboard_has_die_after_stdin():
        cmd.append("--die-after-stdin")
    with tempfile.TemporaryDirectory(prefix="tbnb-bench-rb-") as tmp:
        log_path = Path(tmp) / "server.log"
        cmd += ["--port-file", str(Path(tmp) / "port")]
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log_file, stderr=subprocess.STDOUT)
            try:
                deadline = time.monotonic() + timeout
                while True:
                    log = log_path.read_text(errors="replace")
                    seconds = parse_load_cycle(log)
                    if seconds is not None:
                        return {"seconds": seconds, "peak_rss_mb": vm_hwm_mb(proc.pid)}
                    if proc.poll() is not None:
                        raise HarnessError(f"RustBoard exited ({proc.returncode}) before finishing its load "
                                           f"of {path}:\n{log[-2000:]}")
                    if time.monotonic() > deadline:
                        raise HarnessError(f"RustBoard did not finish loading {path} in {timeout:.0f} s")
                    time.sleep(0.01)
            finally:
                stop_process(proc)


def tbnb_load(path: Path, timeout: float) -> dict[str, Any]:
    """Cold ``tbnb.load(path)`` in a fresh interpreter."""
    return run_child({"kind": "tbnb", "path": str(path)}, timeout)


def tb_python_load(path: Path, timeout: float) -> dict[str, Any]:
    """TensorBoard's ``EventMultiplexer`` (default size guidance) in a fresh interpreter."""
    return run_child({"kind": "tb-python", "path": str(path)}, timeout)


def tbnb_incremental(path: Path, run: str, tags: list[str], first_step: int, steps: int, start: float,
                     timeout: float) -> dict[str, Any]:
    """Load ``path``, append ``steps`` x ``tags`` scalar events to ``run``, time ``reload()``."""
    job = {"kind": "incremental", "path": str(path), "run": run, "tags": tags, "first_step": first_step,
           "steps": steps, "start": start}
    return run_child(job, timeout)
