"""``python -m tests.bench.many_runs``: many small runs, tbnb's cold load and idle reload beside RustBoard's load.

From the repository root. The logdir: 2,000 runs x 5 scalar tags x 50 steps (``--big``: 10,000
runs x 10 tags x 100 steps), one event file per run, written once by ``tbnb.testing`` into
``.bench-cache/`` (``--cache``). Per repetition, with the files warm in the page cache for both:

- tbnb's cold ``tbnb.load`` in a fresh interpreter (imports before the clock), then in the same
  process ``IDLE_RELOADS`` reloads with nothing new: their median time, and the files they
  opened (there should be none: a listing and a size per file tell that nothing grew), the
  bytes its scalar columns hold a point, and the peak RSS of the process and of the largest
  forked helper that shared the cold load (``tbnb.reader.logdir.forked``);
- RustBoard's load cycle on the same logdir (``peers.rustboard_load``).

Prints medians of ``--repeat``, the ratio tbnb / RustBoard (the targets: at most 1.0 on the cold
load, 0.8 with ``--big``; the idle reload at most 0.05 s), the load average at the start and end (this machine is
shared: compare ratios from one run), and writes ``<cache>/many-runs-results.json``.
``--threads N`` passes ``threads=N`` to the Logdir, ``--processes N`` ``processes=N`` (default:
the Logdir's own defaults: a sweep's first read shared with one forked copy per spare core).
"""

from __future__ import annotations

import argparse
import builtins
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from .child import peak_rss_mb, store_stats
from .cli import checkout, loadavg, log
from .datasets import Dataset, ensure, warm_page_cache
from .measure import ROOT, HarnessError, print_result, run_module_child
from .peers import rustboard_load, rustboard_version

IDLE_RELOADS = 5
#: The cold load at most this fraction of RustBoard's: 2,000 runs at par, 10,000 (``--big``)
#: at 0.8 (issue 36); an idle reload at most IDLE_TARGET_S.
COLD_TARGET = 1.0
BIG_COLD_TARGET = 0.8
IDLE_TARGET_S = 0.05


def _write(path: Path, params: dict[str, Any]) -> None:
    from tbnb.testing import write_scalar_logdir

    write_scalar_logdir(path, runs=params["runs"], tags=params["tags"], steps=params["steps"])


def dataset(big: bool) -> Dataset:
    runs, tags, steps = (10_000, 10, 100) if big else (2_000, 5, 50)
    return Dataset("m", f"many-runs-{runs}x{tags}x{steps}", f"{runs:,} runs x {tags} scalar tags x {steps} steps",
                   {"runs": runs, "tags": tags, "steps": steps}, runs * tags * steps, _write,
                   scalar_points=runs * tags * steps)


def child(job: dict[str, Any]) -> dict[str, Any]:
    """In the fresh interpreter: the cold load, then idle reloads counting the files opened."""
    from tbnb.reader.logdir.logdir import Logdir

    kwargs = {key: job[key] for key in ("threads", "processes") if job.get(key) is not None}
    lg = Logdir(job["path"], **kwargs)
    began = time.perf_counter()
    lg.check()
    lg.reload()
    cold = time.perf_counter() - began
    points = sum(lg.count(run, tag) for run in lg.runs() for tag in lg.tags(run))
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    idle: list[float] = []
    builtins.open = counting_open
    try:
        for _ in range(IDLE_RELOADS):
            began = time.perf_counter()
            changed = lg.reload()
            idle.append(time.perf_counter() - began)
            if changed:
                raise RuntimeError(f"an idle reload found changes: {changed}")
    finally:
        builtins.open = real_open
    helper_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # (the largest forked helper's)
    return {"cold_seconds": cold, "idle_seconds": statistics.median(idle), "idle_opens": len(opened),
            "runs": len(lg.runs()), "points": points, "problems": len(lg.problems), **store_stats(lg),
            "peak_rss_mb": round(peak_rss_mb(), 1), "helper_peak_rss_mb": round(helper_kib * 1024 / 1e6, 1)}


def tbnb_cold_and_idle(path: Path, threads: int | None, processes: int | None, timeout: float) -> dict[str, Any]:
    job = {"path": str(path), "threads": threads, "processes": processes}
    return run_module_child("tests.bench.many_runs", job, timeout, f"tbnb child on {path}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.many_runs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big", action="store_true", help="10,000 runs x 10 tags x 100 steps")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        print_result(child(json.loads(args.child)))
        return 0
    cache = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    ds = dataset(args.big)
    try:
        path = ensure(ds, cache, log)
        load_start = loadavg()
        tbnb_runs: list[dict[str, Any]] = []
        rustboard: list[float] = []
        for rep in range(args.repeat):
            warm_page_cache(path)
            t = tbnb_cold_and_idle(path, args.threads, args.processes, args.timeout)
            warm_page_cache(path)
            r = rustboard_load(path, args.timeout)["seconds"]
            if t["points"] != ds.scalar_points:
                raise HarnessError(f"tbnb held {t['points']:,} points, {ds.scalar_points:,} were written")
            tbnb_runs.append(t)
            rustboard.append(r)
            log(f"  [{rep + 1}/{args.repeat}] tbnb cold {t['cold_seconds']:.3f} s, idle reload "
                f"{t['idle_seconds']:.3f} s ({t['idle_opens']} files opened); RustBoard {r:.3f} s")
    except HarnessError as err:
        log(f"benchmark failed: {err}")
        return 2
    cold = statistics.median(t["cold_seconds"] for t in tbnb_runs)
    idle = statistics.median(t["idle_seconds"] for t in tbnb_runs)
    rb = statistics.median(rustboard)
    opens = max(t["idle_opens"] for t in tbnb_runs)
    ratio = cold / rb
    cold_target = BIG_COLD_TARGET if args.big else COLD_TARGET
    result = {"dataset": ds.description, "repeat": args.repeat, "threads": args.threads,
              "processes": args.processes, "checkout": checkout(),
              "rustboard": rustboard_version(), "loadavg_start": load_start, "loadavg_end": loadavg(),
              "tbnb_cold_s_median": round(cold, 4), "tbnb_idle_reload_s_median": round(idle, 4),
              "idle_reload_files_opened": opens, "rustboard_load_s_median": round(rb, 4),
              "cold_ratio_tbnb_over_rustboard": round(ratio, 3),
              "cold_verdict": "PASS" if ratio <= cold_target else "FAIL",
              "idle_verdict": "PASS" if idle <= IDLE_TARGET_S and opens == 0 else "FAIL",
              "samples": {"tbnb": tbnb_runs, "rustboard_s": rustboard}}
    (cache / "many-runs-results.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"Many runs, {ds.description}, median of {args.repeat}, load average {load_start} -> {loadavg()}:")
    print(f"  cold load: tbnb {cold:.3f} s, RustBoard {rb:.3f} s: tbnb / RustBoard {ratio:.2f} "
          f"(target <= {cold_target:.1f}): {result['cold_verdict']}")
    print(f"  idle reload: tbnb {idle:.3f} s, {opens} files opened (target <= {IDLE_TARGET_S} s, none opened): "
          f"{result['idle_verdict']}")
    last = tbnb_runs[-1]
    print(f"  peak RSS: tbnb {last['peak_rss_mb']:.0f} MB, its largest forked helper {last['helper_peak_rss_mb']:.0f} MB "
          "(the helper's pages shared with tbnb's counted in both)")
    per_point = tbnb_runs[-1].get("bytes_per_point")
    if per_point is not None:
        print(f"  scalar columns: {per_point:.2f} bytes a point (target <= 12)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
