"""``python -m tests.bench.groups``: run groups in the kernel, on 64 runs x 16 tags x 20,000 steps
grouped into 8 groups of 8 seeds (``cfg_<k>/run_<seed>``).

From the repository root. Writes its logdir once into ``.bench-cache/`` (``--cache``), loads it as
a Board's source, then per repetition answers the grouped ``series`` request (mean line, std band,
card width 600 px) of the visible cards: the group statistics over every point of every member,
the band, downsampling and encoding, as the page gets them. "Visible" is the first ``VISIBLE``
cards in tag order, what the board benchmark's 1280 x 900 page shows at once (cards of 420 px,
two per row, two rows and a part); every card (all 16) is measured too. Wall-clock and CPU time
(this process; numpy runs on one thread here, so CPU time is what an idle machine's wall clock
would show). Peer in the same run: the same statistics in pandas on the same cards, as a user
would get them (each card's long frame with a group column, ``groupby(["group", "step"])`` mean,
std, min, max, count: the seeds share their steps, so no interpolation is needed), its frames built
before the clock starts. Prints medians of ``--repeat``, the ratio kernel / pandas, the 300 ms
target's verdict (on the visible cards' wall time, and on their CPU time when the machine is
loaded) and the load average; writes ``<cache>/groups-results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from .cli import loadavg, log
from .datasets import Dataset, ensure
from .measure import ROOT

GROUPS, SEEDS, TAGS, STEPS = 8, 8, 16, 20_000
#: Cards on screen at once in the board benchmark's page (module docstring).
VISIBLE = 6
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
    """Per tag, the long frame (group, step, value) of every run: the peer's input."""
    import pandas as pd

    frames = {}
    for tag in tags:
        parts = []
        for run in source.runs():
            s = source.scalars(run, tag)
            parts.append(pd.DataFrame({"group": run.split("/")[0], "step": s.step,
                                       "value": s.value.astype("float64")}))
        frames[tag] = pd.concat(parts, ignore_index=True)
    return frames


def pandas_pass(frames: dict[str, Any]) -> int:
    """The same statistics with pandas; the number of groups answered."""
    answered = 0
    for frame in frames.values():
        stats = frame.groupby(["group", "step"])["value"].agg(["mean", "std", "min", "max", "count"])
        answered += stats.index.get_level_values(0).nunique()
    return answered


def timed(fn: Any, *args: Any) -> tuple[float, float, Any]:
    """(wall ms, CPU ms, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, out


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
    visible = tags[:VISIBLE]
    frames = pandas_frames(source, visible)
    series: dict[str, list[float]] = {k: [] for k in ("visible_wall", "visible_cpu", "all_wall", "all_cpu",
                                                      "pandas_wall", "pandas_cpu")}
    for i in range(args.repeat):
        wall, cpu, answered = timed(kernel_pass, source, visible, runs)
        assert answered == GROUPS * VISIBLE
        series["visible_wall"].append(wall)
        series["visible_cpu"].append(cpu)
        wall, cpu, answered = timed(kernel_pass, source, tags, runs)
        assert answered == GROUPS * TAGS
        series["all_wall"].append(wall)
        series["all_cpu"].append(cpu)
        wall, cpu, answered = timed(pandas_pass, frames)
        assert answered == GROUPS * VISIBLE
        series["pandas_wall"].append(wall)
        series["pandas_cpu"].append(cpu)
        log(f"  repetition {i + 1}: " + ", ".join(f"{k} {v[-1]:.0f} ms" for k, v in series.items()))
    med = {k: statistics.median(v) for k, v in series.items()}
    load = loadavg()
    busy = os.getloadavg()[0] > (os.cpu_count() or 1)
    judged = med["visible_cpu"] if busy else med["visible_wall"]
    result = {"dataset": DATASET.description, "visible_cards": VISIBLE, "cards": TAGS, "groups_per_card": GROUPS,
              **{f"{k}_ms_median": round(v, 1) for k, v in med.items()},
              "kernel_over_pandas_wall": round(med["visible_wall"] / med["pandas_wall"], 3),
              "kernel_over_pandas_cpu": round(med["visible_cpu"] / med["pandas_cpu"], 3),
              "target_ms": TARGET_MS, "judged_on": "cpu (machine loaded)" if busy else "wall",
              "verdict": "PASS" if judged <= TARGET_MS else "FAIL", "repeat": args.repeat, "loadavg": load,
              "samples_ms": {k: [round(x, 1) for x in v] for k, v in series.items()}}
    (args.cache.resolve() / "groups-results.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"Run groups, {DATASET.description}, 8 groups per card (mean line, std band, {WIDTH} px), "
          f"median of {args.repeat}, load average {load}:")
    print(f"  {VISIBLE} visible cards: kernel {med['visible_wall']:.0f} ms wall, {med['visible_cpu']:.0f} ms CPU; "
          f"pandas {med['pandas_wall']:.0f} ms wall, {med['pandas_cpu']:.0f} ms CPU; kernel/pandas "
          f"{result['kernel_over_pandas_wall']:.2f} (wall), {result['kernel_over_pandas_cpu']:.2f} (CPU)")
    print(f"  all {TAGS} cards: kernel {med['all_wall']:.0f} ms wall, {med['all_cpu']:.0f} ms CPU")
    print(f"  target <= {TARGET_MS:.0f} ms for the visible cards ({result['judged_on']}): {result['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
