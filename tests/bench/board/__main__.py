"""``python -m tests.bench.board``: the Board in a real JupyterLab and headless Chromium.

From the repository root. On the loading benchmark's dataset (a) (8 runs x 16 tags x 20,000
steps, written once into ``.bench-cache/``), each repetition opens a fresh page and measures:
time from the ``board = tbnb.show(D)`` cell's kernel idle until every card the user can see is
drawn with all its runs; which charts were drawn off screen; scrolling; the smoothing slider
(several positions, a drag, a mouse drag) until every visible card shows the new value; page
and kernel memory; the show cell run again. Then a notebook with three Boards is run and saved
with Ctrl+S, with JupyterLab's "save widget state" off and on, and its size read.

Prints a table (a column per repetition, then medians) and one PASS/FAIL line per target;
writes ``<cache>/board-results.json`` and screenshots ``tests/artifacts/bench-board-*.png``.
Exit status: 0 whatever the targets say (1 on a FAIL with ``--strict``), 2 when the harness
itself fails. The Jupyter server, its kernels and Chromium are stopped however it ends.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..datasets import SCALARS_TF1, ensure, event_bytes
from ..measure import ROOT, HarnessError
from .report import as_json, format_report, summarise, targets
from .scenarios import one_board, plotly_eval_floor, saved_notebook
from .session import session


def log(message: str) -> None:
    """Progress goes to stderr; the report alone goes to stdout."""
    print(message, file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.board", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache",
                        help="where the dataset and board-results.json live (default: .bench-cache/)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions, medians quoted (default 3)")
    parser.add_argument("--no-save", action="store_true", help="skip the saved-notebook measurement")
    parser.add_argument("--no-screenshots", action="store_true", help="save no screenshots")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target FAILs")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.cache = args.cache.resolve()
    return args


def _command_output(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, check=False)
        return done.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _loadavg() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "n/a"


def _meta(args: argparse.Namespace) -> dict[str, Any]:
    from importlib.metadata import version

    return {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "repeat": args.repeat, "cpus": os.cpu_count(),
            "python": platform.python_version(), "platform": platform.platform(),
            "jupyterlab": version("jupyterlab"), "anywidget": version("anywidget"), "plotly": version("plotly"),
            "playwright": version("playwright"),
            "chromium": _command_output(["/usr/bin/chromium", "--version"]).replace("Chromium ", "").split()[0],
            "checkout": _command_output(["git", "describe", "--always", "--dirty"]),
            "loadavg_start": _loadavg(), "dataset": SCALARS_TF1.description, "bundle_start": _bundle()}


def _bundle() -> dict[str, Any]:
    """The Board's built bundle (read by every new Board): size and time, to spot a rebuild mid-run."""
    from tbnb.board.assets import BUNDLE

    try:
        st = BUNDLE.stat()
    except OSError:
        return {"bytes": None, "mtime": None}
    return {"bytes": st.st_size, "mtime": time.strftime("%H:%M:%S", time.localtime(st.st_mtime))}


def run(args: argparse.Namespace) -> dict[str, Any]:
    args.cache.mkdir(parents=True, exist_ok=True)
    logdir = ensure(SCALARS_TF1, args.cache, log)
    runs = SCALARS_TF1.params["runs"]
    raw: dict[str, Any] = {"meta": _meta(args),
                           "dataset": {"name": SCALARS_TF1.name, "params": SCALARS_TF1.params,
                                       "events": SCALARS_TF1.events, "bytes": event_bytes(logdir),
                                       "path": str(logdir)},
                           "reps": [], "saved": []}
    shots: list[str] = []
    with session(log) as sess:
        for rep in range(1, args.repeat + 1):
            floor = plotly_eval_floor(sess)
            result = one_board(sess, logdir, runs, rep, log,
                               shots if rep == 1 and not args.no_screenshots else None)
            result["plotly_floor"] = floor
            raw["reps"].append(result)
        if not args.no_save:
            for on in (False, True):
                s = saved_notebook(sess, logdir, on, runs, None if args.no_screenshots else shots)
                raw["saved"].append(s)
                log(f"  saved notebook, widget state {'on' if on else 'off'}: {s['bytes']:,} bytes")
    raw["screenshots"] = shots
    return raw


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so that the server, its kernels and Chromium are stopped."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    began = time.perf_counter()
    try:
        raw = run(args)
    except HarnessError as err:
        log(f"benchmark failed: {err}")
        return 2
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    raw["meta"]["elapsed_s"] = time.perf_counter() - began
    raw["meta"]["loadavg_end"] = _loadavg()
    raw["meta"]["bundle_end"] = _bundle()
    summary = summarise(raw)
    goals = targets(summary)
    print(format_report(summary, goals, raw["meta"]), flush=True)
    out = args.cache / "board-results.json"
    out.write_text(json.dumps(as_json(raw, summary, goals), indent=2) + "\n")
    log(f"results: {out}; screenshots: {', '.join(Path(s).name for s in raw['screenshots']) or 'none'} "
        f"({raw['meta']['elapsed_s']:.0f} s in all)")
    if any(g.status == "ERROR" for g in goals):
        return 2
    return 1 if args.strict and any(g.status == "FAIL" for g in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
