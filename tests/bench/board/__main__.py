"""``python -m tests.bench.board``: the Board in a real JupyterLab and headless Chromium.

From the repository root. On the loading benchmark's dataset (a) (8 runs x 16 tags x 20,000
steps, written once into ``.bench-cache/``), each repetition first measures the end-to-end pair
(``e2e.py``): tbnb from Shift+Enter on ``%tbnb --logdir D`` and TensorBoard from launching
``tensorboard --logdir D``, each until its visible scalar cards are drawn and stable, and their
ratio. Then it opens a fresh page and measures: time from the ``board = tbnb.show(D)`` cell's kernel idle until every card the user can see is
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
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from ..cli import checkout, command_output, drive, loadavg, log
from ..datasets import SCALARS_TF1, ensure, event_bytes
from ..measure import ROOT
from . import report
from .e2e import tbnb_e2e, tensorboard_command, tensorboard_e2e
from .scenarios import one_board, plotly_eval_floor, saved_notebook
from .session import session


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.board", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache",
                        help="where the dataset and board-results.json live (default: .bench-cache/)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions, medians quoted (default 3)")
    parser.add_argument("--no-save", action="store_true", help="skip the saved-notebook measurement")
    parser.add_argument("--no-screenshots", action="store_true", help="save no screenshots")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target FAILs")
    parser.add_argument("--e2e-only", action="store_true",
                        help="only the end-to-end figure (tbnb and TensorBoard), none of the Board's others")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.cache = args.cache.resolve()
    return args


def _meta(args: argparse.Namespace) -> dict[str, Any]:
    from importlib.metadata import version

    return {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "repeat": args.repeat, "cpus": os.cpu_count(),
            "python": platform.python_version(), "platform": platform.platform(),
            "jupyterlab": version("jupyterlab"), "anywidget": version("anywidget"), "plotly": version("plotly"),
            "playwright": version("playwright"),
            "chromium": command_output(["/usr/bin/chromium", "--version"]).replace("Chromium ", "").split()[0],
            "checkout": checkout(),
            "loadavg_start": loadavg(), "dataset": SCALARS_TF1.description, "bundle_start": _bundle()}


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
    last_step = SCALARS_TF1.params["steps"] - 1
    tensorboard_command()  # fail before starting anything if TensorBoard is missing
    raw: dict[str, Any] = {"meta": _meta(args),
                           "dataset": {"name": SCALARS_TF1.name, "params": SCALARS_TF1.params,
                                       "events": SCALARS_TF1.events, "bytes": event_bytes(logdir),
                                       "path": str(logdir)},
                           "reps": [], "saved": [], "e2e": []}
    shots: list[str] = []
    with session(log) as sess:
        for rep in range(1, args.repeat + 1):
            # The end-to-end pair first, one after the other, so that both meet the same load.
            shoot = shots if rep == 1 and not args.no_screenshots else None
            e2e = {"tbnb": tbnb_e2e(sess, logdir, runs, rep, shoot, log),
                   "tensorboard": tensorboard_e2e(sess, logdir, runs, last_step, rep, shoot, log)}
            raw["e2e"].append(e2e)
            t, tb = e2e["tbnb"], e2e["tensorboard"]
            log(f"  [{rep}] end to end: tbnb {t['ms']} ms (first paint {t['first_paint_ms']}), TensorBoard {tb['ms']} ms "
                f"(first paint {tb['first_paint_ms']}, runs drawn per visible card {tb['lines_at_end']}; its data "
                f"complete for {tb['data']['complete']}/{tb['data']['tags']} tags)")
            if args.e2e_only:
                continue
            floor = plotly_eval_floor(sess)
            result = one_board(sess, logdir, runs, rep, log,
                               shots if rep == 1 and not args.no_screenshots else None)
            result["plotly_floor"] = floor
            raw["reps"].append(result)
        if not args.no_save and not args.e2e_only:
            for on in (False, True):
                s = saved_notebook(sess, logdir, on, runs, None if args.no_screenshots else shots)
                raw["saved"].append(s)
                log(f"  saved notebook, widget state {'on' if on else 'off'}: {s['bytes']:,} bytes")
    raw["screenshots"] = shots
    return raw


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def finish(raw: dict[str, Any]) -> None:
        raw["meta"]["bundle_end"] = _bundle()

    def done(raw: dict[str, Any], out: Path) -> str:
        shots = ", ".join(Path(s).name for s in raw["screenshots"]) or "none"
        return f"results: {out}; screenshots: {shots} ({raw['meta']['elapsed_s']:.0f} s in all)"

    return drive(args, run, report, args.cache / "board-results.json", finish, done)


if __name__ == "__main__":
    sys.exit(main())
