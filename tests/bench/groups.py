"""``python -m tests.bench.groups``: run groups in the kernel, on 64 runs x 16 tags x 20,000 steps
grouped into 8 groups of 8 seeds (``cfg_<k>/run_<seed>``).

From the repository root. Writes its logdir once into ``.bench-cache/`` (``--cache``), loads it as
a Board's source, then per repetition answers the ``series`` request of every scalar card (all
16 tags: every card visible) with ``groups`` on (mean line, std band, card width 600 px): the
group statistics over every point of every member, the band, downsampling and encoding, as the
page gets them. Peer in the same run: the same aggregation in pandas (each tag's long frame
pivoted to steps x runs, each group's columns interpolated inside their range, then mean, std,
min, max and count across them), its input frames built before the clock starts. Prints the
medians of ``--repeat``, their ratio, the 300 ms target's verdict and the load average, and
writes ``<cache>/groups-results.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from .cli import loadavg, log
from .datasets import Dataset, ensure
from .measure import ROOT

GROUPS, SEEDS, TAGS, STEPS = 8, 8, 16, 20_000
PATTERN = r"(?P<group>cfg_\d+)/run_\d+"
TARGET_MS = 300.0
WIDTH = 600


def _write(path: Path, params: dict[str, Any]) -> None:
    from tbnb.testing import write_scalar_logdir

    for k in range(params["groups"]):
        write_scalar_logdir(path / f"cfg_{k}", runs=params["seeds"], tags=params["tags"], steps=params["steps"],
                            seed=k)


DATASET = Dataset("g", "groups-64x16x20000", "64 runs (8 configs x 8 seeds) x 16 tags x 20,000 steps",
                  {"groups": GROUPS, "seeds": SEEDS, "tags": TAGS, "steps": STEPS},
                  GROUPS * SEEDS * TAGS * STEPS, _write)


def kernel_pass(source: Any, tags: list[str], runs: list[str]) -> int:
    """Every card's grouped ``series`` reply; the number of groups answered (a check)."""
    from tbnb.board.dashboards.scalars import answer_series
    from tbnb.board.request import Settings

    settings = Settings(x_axis="step", max_blob_bytes=1 << 22)
    answered = 0
    for i, tag in enumerate(tags):
        content = {"type": "series", "id": i, "tag": tag, "runs": runs, "width": WIDTH,
                   "groups": {"by": PATTERN, "line": "mean", "band": "std"}}
        reply, _ = answer_series(source, content, settings)
        answered += len(reply["groups"])
    return answered


def pandas_frames(source: Any, tags: list[str]) -> dict[str, Any]:
    """Per tag, the long frame (run, step, value) of every run: the peer's input."""
    import pandas as pd

    frames = {}
    for tag in tags:
        parts = []
        for run in source.runs():
            s = source.scalars(run, tag)
            parts.append(pd.DataFrame({"run": run, "step": s.step, "value": s.value.astype("float64")}))
        frames[tag] = pd.concat(parts, ignore_index=True)
    return frames


def pandas_pass(frames: dict[str, Any]) -> int:
    """The same statistics with pandas; the number of groups answered."""
    import numpy as np

    answered = 0
    for frame in frames.values():
        wide = frame.pivot(index="step", columns="run", values="value").replace([np.inf, -np.inf], np.nan)
        for k in range(GROUPS):
            members = wide[[c for c in wide.columns if c.startswith(f"cfg_{k}/")]]
            members = members.interpolate(method="index", limit_area="inside")
            stats = {"mean": members.mean(axis=1), "std": members.std(axis=1), "min": members.min(axis=1),
                     "max": members.max(axis=1), "n": members.count(axis=1)}
            answered += int(len(stats["mean"]) > 0)
    return answered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.groups", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    from tbnb.board.sources import MultiLogdir

    path = ensure(DATASET, args.cache.resolve(), log)
    log("loading ...")
    source = MultiLogdir.open(str(path))
    source.reload()
    runs = source.runs()
    tags = sorted(t for t, p in source.tags(runs[0]).items() if p == "scalars")
    assert len(runs) == GROUPS * SEEDS and len(tags) == TAGS, (len(runs), len(tags))
    frames = pandas_frames(source, tags)
    kernel, peer = [], []
    for i in range(args.repeat):
        began = time.perf_counter()
        assert kernel_pass(source, tags, runs) == GROUPS * TAGS
        kernel.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        assert pandas_pass(frames) == GROUPS * TAGS
        peer.append((time.perf_counter() - began) * 1000)
        log(f"  repetition {i + 1}: kernel {kernel[-1]:.0f} ms, pandas {peer[-1]:.0f} ms")
    k_ms, p_ms = statistics.median(kernel), statistics.median(peer)
    result = {"dataset": DATASET.description, "cards": TAGS, "groups_per_card": GROUPS,
              "kernel_ms_median": round(k_ms, 1), "pandas_ms_median": round(p_ms, 1),
              "kernel_over_pandas": round(k_ms / p_ms, 3), "target_ms": TARGET_MS,
              "verdict": "PASS" if k_ms <= TARGET_MS else "FAIL", "repeat": args.repeat, "loadavg": loadavg(),
              "kernel_ms": [round(v, 1) for v in kernel], "pandas_ms": [round(v, 1) for v in peer]}
    (args.cache.resolve() / "groups-results.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"Run groups, {DATASET.description}, {TAGS} cards x {GROUPS} groups (mean line, std band, "
          f"{WIDTH} px), median of {args.repeat}:")
    print(f"  kernel {k_ms:.0f} ms (target <= {TARGET_MS:.0f} ms: {result['verdict']}); "
          f"pandas {p_ms:.0f} ms; kernel/pandas = {k_ms / p_ms:.2f}; load average {result['loadavg']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
