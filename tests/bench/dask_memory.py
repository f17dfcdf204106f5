"""``python -m tests.bench.dask_memory``: a logdir bigger than one process's memory budget, loaded
through a Dask cluster: the kernel keeps only what is kept.

From the repository root (needs the ``dask`` extra: ``distributed``). The logdir: 8 runs, each
an image tag of 256x256 random pixels (PNG, ~197 KB, incompressible) at every step and three
scalar tags, ~0.95 GB in all, written once by ``tbnb.testing`` into ``.bench-cache/``. The
budget: each Dask worker process is started with ``memory_limit`` = BUDGET_MB (its nanny pauses
and then kills a worker above it), a quarter of the logdir's size.

Each repetition, in a fresh interpreter (the "kernel"): start a ``distributed.LocalCluster`` of
2 worker processes, 1 thread each, then ``tbnb.load(path, executor=client.get_executor())``.
Reported: the kernel's RSS before the load (imports and cluster started), after it and its peak
(VmHWM), the bytes it keeps (scalar columns; images are kept as references into the files and
read when shown), each worker's peak RSS, the points and images held. Then the same load in a
fresh interpreter without an executor, for comparison (its peak: the reader's chunks, not the
logdir). Checks (FAIL lines): the Dask load holds what the local load holds; the kernel grew
by at most what it keeps plus KERNEL_SLACK_MB; every worker stayed within the budget.
Writes ``<cache>/dask-memory-results.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from .cli import checkout, loadavg, log
from .datasets import Dataset, ensure, warm_page_cache
from .measure import ROOT, HarnessError, print_result, run_module_child

RUNS, STEPS, SIDE = 8, 600, 256
BUDGET_MB = 256
KERNEL_SLACK_MB = 64.0


def _write(path: Path, params: dict[str, Any]) -> None:
    import numpy as np

    from tbnb.testing import EventWriter

    rng = np.random.default_rng(params["seed"])
    side = params["side"]
    for r in range(params["runs"]):
        with EventWriter(path / f"run_{r:02d}", start_time=1_700_000_000.0) as w:
            for s in range(params["steps"]):
                w.add_image("samples", rng.integers(0, 256, (side, side, 3), dtype=np.uint8), s)
                for tag in ("loss", "accuracy", "lr"):
                    w.add_scalar(tag, float(rng.random()), s)


def dataset() -> Dataset:
    params = {"runs": RUNS, "steps": STEPS, "side": SIDE, "seed": 15}
    return Dataset("d", f"dask-images-{RUNS}x{STEPS}x{SIDE}", f"{RUNS} runs x {STEPS} images {SIDE}x{SIDE} + 3 scalar tags",
                   params, RUNS * STEPS * 4, _write, scalar_points=RUNS * STEPS * 3)


def _mb(field: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    raise HarnessError(f"no {field} in /proc/self/status")


def _worker_peak_mb() -> float:
    return _mb("VmHWM")


def child(job: dict[str, Any]) -> dict[str, Any]:
    """In a fresh interpreter: the load (through a LocalCluster when ``job["dask"]``)."""
    import tbnb

    client = cluster = None
    if job["dask"]:
        import distributed

        cluster = distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                           dashboard_address=None, memory_limit=f"{BUDGET_MB}MB")
        client = distributed.Client(cluster)
    try:
        before = _mb("VmRSS")
        began = time.perf_counter()
        lg = tbnb.load(job["path"], executor=client.get_executor(pure=False) if client else None)
        seconds = time.perf_counter() - began
        after, peak = _mb("VmRSS"), _mb("VmHWM")
        points = kept = images = 0
        for run in lg.runs():
            n, nbytes = lg._runs[run].data.scalar_footprint()
            points, kept = points + n, kept + nbytes
            images += lg.count(run, "samples")
        workers = sorted(client.run(_worker_peak_mb).values()) if client else []
        return {"seconds": seconds, "rss_before_mb": before, "rss_after_mb": after, "peak_mb": peak,
                "kept_mb": kept / 1e6, "points": points, "images": images, "workers_peak_mb": workers,
                "problems": len(lg.problems)}
    finally:
        if client is not None:
            client.close()
            cluster.close()


def run_child(path: Path, dask: bool, timeout: float) -> dict[str, Any]:
    return run_module_child("tests.bench.dask_memory", {"path": str(path), "dask": dask}, timeout,
                            f"the {'dask' if dask else 'local'} load")


def verdicts(dask: dict[str, Any], local: dict[str, Any]) -> list[str]:
    """One PASS/FAIL line per check (module docstring)."""
    lines = []
    same = (dask["points"], dask["images"], dask["problems"]) == (local["points"], local["images"], local["problems"])
    lines.append(f"{'PASS' if same else 'FAIL'}   the Dask load holds what the local load holds: "
                 f"{dask['points']:,} points, {dask['images']} images (local {local['points']:,}, {local['images']})")
    grew = dask["peak_mb"] - dask["rss_before_mb"]
    limit = dask["kept_mb"] + KERNEL_SLACK_MB
    lines.append(f"{'PASS' if grew <= limit else 'FAIL'}   the kernel grew by {grew:.1f} MB at its peak "
                 f"(kept {dask['kept_mb']:.1f} MB + {KERNEL_SLACK_MB:.0f} MB slack = {limit:.1f} MB)")
    worst = max(dask["workers_peak_mb"] or [0.0])
    lines.append(f"{'PASS' if worst <= BUDGET_MB else 'FAIL'}   every worker within its {BUDGET_MB} MB budget "
                 f"(peaks {', '.join(f'{w:.0f}' for w in dask['workers_peak_mb'])} MB)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.dask_memory", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print_result(child(json.loads(args.child)))
        return 0
    cache = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    ds = dataset()
    try:
        path = ensure(ds, cache, log)
        size_mb = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
        load_start = loadavg()
        runs: list[tuple[dict[str, Any], dict[str, Any]]] = []
        for rep in range(args.repeat):
            warm_page_cache(path)
            d = run_child(path, True, args.timeout)
            warm_page_cache(path)
            loc = run_child(path, False, args.timeout)
            runs.append((d, loc))
            log(f"  [{rep + 1}/{args.repeat}] dask {d['seconds']:.1f} s, kernel {d['rss_before_mb']:.0f} -> "
                f"{d['rss_after_mb']:.0f} MB (peak {d['peak_mb']:.0f}), workers' peaks "
                f"{', '.join(f'{w:.0f}' for w in d['workers_peak_mb'])} MB; "
                f"local {loc['seconds']:.1f} s, peak {loc['peak_mb']:.0f} MB")
    except HarnessError as err:
        log(f"benchmark failed: {err}")
        return 2
    med = lambda key, i: statistics.median(r[i][key] for r in runs)
    dask, local = runs[-1]
    print(f"tbnb through Dask: a {size_mb:,.0f} MB logdir, worker budget {BUDGET_MB} MB; medians of {len(runs)}; "
          f"checkout {checkout()}, load average at start {load_start}, at the end {loadavg()}")
    print(f"  Dask (2 worker processes): {med('seconds', 0):.1f} s; kernel RSS {med('rss_before_mb', 0):.0f} MB before, "
          f"{med('rss_after_mb', 0):.0f} MB after, peak {med('peak_mb', 0):.0f} MB; kept {med('kept_mb', 0):.1f} MB; "
          f"workers' peaks {', '.join(f'{w:.0f}' for w in dask['workers_peak_mb'])} MB")
    print(f"  local (no executor): {med('seconds', 1):.1f} s; RSS {med('rss_before_mb', 1):.0f} MB before, "
          f"peak {med('peak_mb', 1):.0f} MB")
    lines = verdicts(dask, local)
    for line in lines:
        print(line)
    (cache / "dask-memory-results.json").write_text(json.dumps(
        {"logdir_mb": size_mb, "budget_mb": BUDGET_MB, "runs": [{"dask": d, "local": loc} for d, loc in runs],
         "verdicts": lines}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
