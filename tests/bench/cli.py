"""What both benchmark commands share: progress on stderr, machine facts for the report's
header, and the run → report → results file → exit status sequence."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from .measure import ROOT, HarnessError


def log(message: str) -> None:
    """Progress goes to stderr; the report alone goes to stdout."""
    print(message, file=sys.stderr, flush=True)


def command_output(cmd: list[str]) -> str:
    """A command's stdout, stripped, run at the repository root; "unknown" if it fails."""
    try:
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, check=False)
        return done.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def checkout() -> str:
    return command_output(["git", "describe", "--always", "--dirty"])


def loadavg() -> str:
    """The 1-minute load average: these machines are shared, a busy one makes every figure noisy."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "n/a"


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so that every child, server and browser started is stopped."""
    raise KeyboardInterrupt


def drive(args: Any, run: Callable[[Any], dict[str, Any]], report: ModuleType, out: Path,
          finish: Callable[[dict[str, Any]], None] | None = None,
          done: Callable[[dict[str, Any], Path], str] | None = None) -> int:
    """``run(args)``, then the report (``report``'s summarise, targets, format_report, as_json)
    on stdout and in ``out``. ``finish(raw)`` adds last facts to ``raw["meta"]`` first; ``done``
    says the closing progress line. Exit status: 0, or 1 on a FAIL with ``args.strict``, 2 when
    the harness failed or a target could not be measured, 130 when interrupted."""
    signal.signal(signal.SIGTERM, _interrupt)
    began = time.perf_counter()
    try:
        raw = run(args)
    except HarnessError as err:
        log(f"benchmark failed: {err}")
        return 2
    except KeyboardInterrupt:  # children and servers have been stopped on the way out
        log("interrupted")
        return 130
    raw["meta"]["elapsed_s"] = time.perf_counter() - began
    raw["meta"]["loadavg_end"] = loadavg()
    if finish is not None:
        finish(raw)
    summary = report.summarise(raw)
    goals = report.targets(summary)
    print(report.format_report(summary, goals, raw["meta"]), flush=True)
    out.write_text(json.dumps(report.as_json(raw, summary, goals), indent=2) + "\n")
    log(done(raw, out) if done is not None else f"results: {out} ({raw['meta']['elapsed_s']:.0f} s in all)")
    if any(g.status == "ERROR" for g in goals):
        return 2
    return 1 if args.strict and any(g.status == "FAIL" for g in goals) else 0
