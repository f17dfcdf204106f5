"""``python -m tests.bench``: tbnb's loading benchmark against RustBoard and TensorBoard's Python loader.

From the repository root. Writes its data once into ``.bench-cache/`` (``--cache``), prints a
table of medians and one PASS/FAIL line per target, and saves everything to
``<cache>/results.json``. Exit status: 0 whatever the targets say (1 on a FAIL with
``--strict``), 2 when the harness itself fails (a peer missing, a child crashed or timed out).
The Board in JupyterLab and Chromium (first draw, smoothing, saved size) is ``python -m tests.bench.board``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import report
from .cli import checkout, drive, loadavg, log
from .datasets import (
    SCALARS_TENTH,
    SCALARS_TF1,
    TABLE,
    Dataset,
    ensure,
    event_bytes,
    event_files,
    scalar_tag,
    warm_page_cache,
)
from .measure import ROOT
from .peers import (
    require_tensorboard,
    rustboard_binary,
    rustboard_load,
    rustboard_version,
    tb_python_load,
    tbnb_incremental,
    tbnb_load,
)

#: Share of (a)'s events appended before timing ``reload()``.
APPEND_FRACTION = 0.01


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache",
                        help="where datasets and results.json live (default: .bench-cache/ at the repo root)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="repetitions per figure, medians quoted (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="1 repetition, and skip TensorBoard's Python loader (about 30 s)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target FAILs")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds allowed to each child process or server (default 900)")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeat = 1
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.cache = args.cache.resolve()
    return args


def _meta(args: argparse.Namespace) -> dict[str, Any]:
    return {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "repeat": args.repeat, "quick": args.quick,
            "cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "rustboard": rustboard_version(), "checkout": checkout(), "loadavg_start": loadavg()}


def _dataset_info(ds: Dataset, path: Path) -> dict[str, Any]:
    return {"name": ds.name, "description": ds.description, "params": ds.params, "events": ds.events,
            "bytes": event_bytes(path), "path": str(path)}


def measure_loads(paths: dict[str, Path], repeat: int, timeout: float) -> dict[str, Any]:
    """tbnb and RustBoard on each table dataset, interleaved so that both see the same noise."""
    load: dict[str, Any] = {ds.key: {"tbnb": [], "rustboard": []} for ds in TABLE}
    for rep in range(repeat):
        for ds in TABLE:
            # Read the files again before each load: this machine's file cache does not keep
            # them for long, and a loader that met cold files would measure the disk.
            warm_page_cache(paths[ds.key])
            t = tbnb_load(paths[ds.key], timeout)
            warm_page_cache(paths[ds.key])
            r = rustboard_load(paths[ds.key], timeout)
            load[ds.key]["tbnb"].append(t)
            load[ds.key]["rustboard"].append(r)
            log(f"  [{rep + 1}/{repeat}] ({ds.key}) tbnb {t['seconds']:.3f} s, {t['peak_rss_mb']:.0f} MB   "
                f"RustBoard {r['seconds']:.3f} s, {r['peak_rss_mb'] or 0:.0f} MB")
    return load


def measure_incremental(source: Path, cache: Path, repeat: int, timeout: float) -> list[dict[str, Any]]:
    """Load a copy of (a), append 1% more events to run_00 in a second file, time ``reload()``."""
    params = SCALARS_TF1.params
    tags = [scalar_tag(t) for t in range(params["tags"])]
    steps = round(APPEND_FRACTION * SCALARS_TF1.events / len(tags))
    samples = []
    with tempfile.TemporaryDirectory(dir=cache, prefix=".incremental-") as tmp:
        copy = Path(tmp) / "logdir"
        shutil.copytree(source, copy)
        original = set(event_files(copy))
        for rep in range(repeat):
            try:
                s = tbnb_incremental(copy, "run_00", tags, params["steps"], steps, 1_600_000_000.0, timeout)
            finally:
                for extra in set(event_files(copy)) - original:
                    extra.unlink()
            samples.append(s)
            log(f"  [{rep + 1}/{repeat}] incremental: cold {s['cold_seconds']:.3f} s, reload of "
                f"{s['appended']:,} events {s['reload_seconds']:.3f} s (saw {s['reloaded_points']:,})")
    return samples


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Gather every raw sample; raises HarnessError when the harness cannot go on."""
    rustboard_binary()
    if not args.quick:
        require_tensorboard()
    args.cache.mkdir(parents=True, exist_ok=True)
    wanted = TABLE if args.quick else (*TABLE, SCALARS_TENTH)
    paths = {ds.key: ensure(ds, args.cache, log) for ds in wanted}
    raw: dict[str, Any] = {"meta": _meta(args),
                           "datasets": {ds.key: _dataset_info(ds, paths[ds.key]) for ds in wanted}}
    log(f"cold loads ({args.repeat} repetition(s)):")
    raw["load"] = measure_loads(paths, args.repeat, args.timeout)
    log("incremental reload:")
    raw["incremental"] = measure_incremental(paths["a"], args.cache, args.repeat, args.timeout)
    if not args.quick:
        log("TensorBoard's Python loader on (a10) (about half a minute):")
        warm_page_cache(paths["a10"])
        raw["tb_python"] = tb_python_load(paths["a10"], max(args.timeout, 1800.0))
        log(f"  {raw['tb_python']['seconds']:.2f} s")
        raw["a10_tbnb"] = []
        for _ in range(args.repeat):
            warm_page_cache(paths["a10"])
            raw["a10_tbnb"].append(tbnb_load(paths["a10"], args.timeout))
        log("  tbnb: " + ", ".join(f"{s['seconds']:.3f} s" for s in raw["a10_tbnb"]))
    for key, expected in ((ds.key, ds.scalar_points) for ds in TABLE):
        held = {s.get("scalar_points") for s in raw["load"][key]["tbnb"]}
        if expected is not None and held != {expected}:
            log(f"warning: tbnb held {held} scalar points for ({key}), {expected:,} were written")
    return raw


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the report, write ``results.json``; see the module docstring."""
    args = parse_args(argv)
    return drive(args, run, report, args.cache / "results.json")


if __name__ == "__main__":
    sys.exit(main())
