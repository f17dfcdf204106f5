"""``python -m tests.bench.many_values``: events holding many values (TF1 merged summaries),
tbnb's cold load beside RustBoard's, as the values per event grow.

From the repository root. Each logdir is one run of 3 events of N values each (N = 500, 1,000,
4,000, 16,000; ``--sizes``), of one kind: 30-bucket TF1 histograms, ``simple_value`` scalars,
4x4 PNG images, or the three mixed (``tests/merged_logs.py``, which writes the bytes TensorBoard's
own protobufs and record writer write), cached in ``.bench-cache/``. Per repetition, with the
file warm in the page cache: tbnb's ``tbnb.load`` in a fresh interpreter (seconds, peak RSS) and
RustBoard's load cycle (seconds, peak RSS).

Prints medians of ``--repeat`` per kind and N, the ratio tbnb / RustBoard, tbnb's microseconds a
value, and the growth from the smallest to the largest N of tbnb's time per value and its peak
RSS beyond the interpreter's (linear: time per value stays flat; quadratic: it grows with N). The
verdict: 16,000 values per event load with a peak RSS under ``RSS_TARGET_MB`` and tbnb's time per
value grows less than ``GROWTH_TARGET`` times from 500 to 16,000 values (32x the values).
Writes ``<cache>/many-values-results.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from tests.merged_logs import KINDS, write_merged_run

from .cli import checkout, loadavg, log
from .datasets import Dataset, ensure, event_bytes, warm_page_cache
from .measure import ROOT, HarnessError
from .peers import rustboard_load, rustboard_version, tbnb_load

SIZES = (500, 1_000, 4_000, 16_000)
STEPS = 3
RSS_TARGET_MB = 300.0
GROWTH_TARGET = 2.0


def _write(path: Path, params: dict[str, Any]) -> None:
    write_merged_run(path / "run", params["values"], steps=params["steps"], kind=params["kind"],
                     writer="tensorboard")


def dataset(kind: str, values: int) -> Dataset:
    return Dataset("v", f"merged-{kind}-{values}x{STEPS}", f"{STEPS} events of {values:,} {kind} values",
                   {"kind": kind, "values": values, "steps": STEPS}, STEPS, _write)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.many_values", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def measure(path: Path, repeat: int, timeout: float) -> dict[str, Any]:
    tbnb_runs, rb_runs = [], []
    for _ in range(repeat):
        warm_page_cache(path)
        t = tbnb_load(path, timeout)
        if t["problems"]:
            raise HarnessError(f"tbnb reported {t['problems']} problems reading {path}")
        tbnb_runs.append(t)
        warm_page_cache(path)
        rb_runs.append(rustboard_load(path, timeout))
    med = statistics.median
    return {"tbnb_s": med(t["seconds"] for t in tbnb_runs),
            "tbnb_peak_rss_mb": med(t["peak_rss_mb"] for t in tbnb_runs),
            "tbnb_rss_before_mb": med(t["rss_before_mb"] or 0.0 for t in tbnb_runs),
            "rustboard_s": med(r["seconds"] for r in rb_runs),
            "rustboard_peak_rss_mb": med(r["peak_rss_mb"] or 0.0 for r in rb_runs),
            "file_mb": event_bytes(path) / 1e6}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cache = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    sizes = sorted(args.sizes)
    results: dict[str, dict[int, dict[str, Any]]] = {}
    load_start = loadavg()
    try:
        for kind in args.kinds:
            for n in sizes:
                path = ensure(dataset(kind, n), cache, log)
                r = results.setdefault(kind, {})[n] = measure(path, args.repeat, args.timeout)
                log(f"  {kind} x {n:,}: tbnb {r['tbnb_s']:.3f} s, {r['tbnb_peak_rss_mb']:.0f} MB; "
                    f"RustBoard {r['rustboard_s']:.3f} s, {r['rustboard_peak_rss_mb']:.0f} MB")
    except HarnessError as err:
        log(f"benchmark failed: {err}")
        return 2
    print(f"Many values per event ({STEPS} events a run), median of {args.repeat}, "
          f"load average {load_start} -> {loadavg()}, {rustboard_version()}:")
    print(f"  {'kind':<11}{'values':>8}{'file MB':>9}{'tbnb s':>9}{'RB s':>8}{'ratio':>7}"
          f"{'tbnb us/value':>15}{'tbnb MB':>9}{'RB MB':>7}")
    verdicts = []
    for kind, by_n in results.items():
        for n, r in by_n.items():
            r["ratio"] = r["tbnb_s"] / r["rustboard_s"] if r["rustboard_s"] else None
            r["tbnb_us_per_value"] = r["tbnb_s"] / (n * STEPS) * 1e6
            ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
            print(f"  {kind:<11}{n:>8,}{r['file_mb']:>9.1f}{r['tbnb_s']:>9.3f}{r['rustboard_s']:>8.3f}{ratio:>7}"
                  f"{r['tbnb_us_per_value']:>15.2f}{r['tbnb_peak_rss_mb']:>9.0f}{r['rustboard_peak_rss_mb']:>7.0f}")
        small, big = by_n[sizes[0]], by_n[sizes[-1]]
        growth = big["tbnb_us_per_value"] / small["tbnb_us_per_value"]
        ok = growth < GROWTH_TARGET and (sizes[-1] < 16_000 or big["tbnb_peak_rss_mb"] < RSS_TARGET_MB)
        verdicts.append(ok)
        print(f"  {kind}: time per value x{growth:.2f} from {sizes[0]:,} to {sizes[-1]:,} values per event "
              f"(target < {GROWTH_TARGET}); peak RSS at {sizes[-1]:,}: {big['tbnb_peak_rss_mb']:.0f} MB "
              f"(target < {RSS_TARGET_MB:.0f}): {'PASS' if ok else 'FAIL'}")
    out = {"checkout": checkout(), "rustboard": rustboard_version(), "repeat": args.repeat,
           "loadavg_start": load_start, "loadavg_end": loadavg(),
           "results": {k: {str(n): r for n, r in v.items()} for k, v in results.items()},
           "verdict": "PASS" if all(verdicts) else "FAIL"}
    (cache / "many-values-results.json").write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
