"""``python -m tests.bench.watch``: what ``tbnb.watch`` costs a training step, on a ~10 M-parameter
model on CPU.

From the repository root (needs torch). The model: an MLP 1024-2048-2048-1024-1024-512-10 (ReLU),
10.0 M float32 parameters in 12 tensors, trained with Adam on random batches of ``--batch`` rows
(the step timed is the whole training step: zero_grad, forward, loss, backward, ``optimizer.step()``).
Three kinds of step are timed, in interleaved blocks so that a shared machine's load falls on all of
them alike: a *plain* step (no watch), and under ``tbnb.watch(..., every=10)`` writing with tbnb's
``EventWriter`` into a temporary directory, a *watched* step (a copy of every parameter before
``step()``, the norms after it, 13 scalars written) and an *unwatched* one (the hooks only).
Reported: the median wall and CPU time of each (CPU time of this process: what a loaded machine
distorts least), the ratios watched / plain and unwatched / plain, and the plain steps' own spread
(interquartile range over median) to read them against. The run checks that exactly one
``update_ratio/all`` point was written per watched step. torch runs on
``--threads`` threads (default 1: two shared cores). Writes ``<cache>/watch-results.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .cli import loadavg, log
from .measure import ROOT

WIDTHS = (1024, 2048, 2048, 1024, 1024, 512, 10)
EVERY = 10


def make_model(torch: Any) -> Any:
    layers: list[Any] = []
    for i, (a, b) in enumerate(zip(WIDTHS, WIDTHS[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i < len(WIDTHS) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def timed_steps(torch: Any, model: Any, optimizer: Any, x: Any, y: Any, n: int) -> list[tuple[float, float]]:
    """``n`` training steps; each one's (wall, CPU) time in ms. CPU time of this process is what an
    idle machine's wall clock would show on one thread, and what a loaded one distorts least."""
    times = []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        times.append(((time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3))
    return times


def iqr_over_median(values: list[float]) -> float:
    q1, _, q3 = statistics.quantiles(values, n=4)
    return (q3 - q1) / statistics.median(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.watch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--repeat", type=int, default=10, help="interleaved blocks of each kind (default 10)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    import torch

    import tbnb
    from tbnb.testing import EventWriter

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    model = make_model(torch)
    params = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    x, y = torch.randn(args.batch, WIDTHS[0]), torch.randint(0, WIDTHS[-1], (args.batch,))
    log(f"model: {params / 1e6:.2f} M parameters; warming up ...")
    timed_steps(torch, model, optimizer, x, y, 3)  # Adam's state allocated, allocator warm
    plain: list[tuple[float, float]] = []
    watched: list[tuple[float, float]] = []
    unwatched: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        writer = EventWriter(Path(tmp) / "run")
        for i in range(args.repeat):
            plain += timed_steps(torch, model, optimizer, x, y, EVERY)
            handle = tbnb.watch(model, optimizer, writer, every=EVERY, step=lambda i=i: i)  # a step per block
            block = timed_steps(torch, model, optimizer, x, y, EVERY)  # step 0 watched, 1-9 not
            handle.remove()
            watched.append(block[0])
            unwatched += block[1:]
            log(f"  block {i + 1}: plain {statistics.median(t for t, _ in plain[-EVERY:]):.1f} ms, "
                f"watched {block[0][0]:.1f} ms, unwatched {statistics.median(t for t, _ in block[1:]):.1f} ms")
        writer.close()
        written = tbnb.load(tmp).scalars("run", "update_ratio/all")
        assert len(written) == args.repeat, len(written)  # one point per watched step, nothing more
    kinds = {"plain": plain, "watched": watched, "unwatched": unwatched}
    med = {f"{k}_{clock}": statistics.median(t[i] for t in v)
           for k, v in kinds.items() for i, clock in enumerate(("wall", "cpu"))}
    load = loadavg()
    result: dict[str, Any] = {
        "parameters": params, "tensors": len(list(model.parameters())), "batch": args.batch,
        "threads": args.threads, "optimizer": "Adam", "every": EVERY, "repeat": args.repeat,
        **{f"{k}_ms_median": round(v, 2) for k, v in med.items()},
        **{f"{k}_over_plain_{c}": round(med[f"{k}_{c}"] / med[f"plain_{c}"], 3)
           for k in ("watched", "unwatched") for c in ("wall", "cpu")},
        **{f"plain_iqr_over_median_{c}": round(iqr_over_median([t[i] for t in plain]), 3)
           for i, c in enumerate(("wall", "cpu"))},
        "loadavg": load,
        "samples_ms": {k: [[round(a, 2), round(b, 2)] for a, b in v] for k, v in kinds.items()}}
    args.cache.resolve().mkdir(parents=True, exist_ok=True)
    (args.cache.resolve() / "watch-results.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"tbnb.watch overhead, MLP of {params / 1e6:.2f} M parameters, Adam, batch {args.batch}, "
          f"{args.threads} thread(s), every={EVERY}, load average {load} (medians; wall / CPU):")
    print(f"  plain step {med['plain_wall']:.1f} / {med['plain_cpu']:.1f} ms (of {len(plain)}; IQR/median "
          f"{result['plain_iqr_over_median_wall']:.2f} / {result['plain_iqr_over_median_cpu']:.2f})")
    for k in ("watched", "unwatched"):
        print(f"  {k} step {med[k + '_wall']:.1f} / {med[k + '_cpu']:.1f} ms (of {len(kinds[k])}): "
              f"x{result[k + '_over_plain_wall']:.3f} / x{result[k + '_over_plain_cpu']:.3f} of plain")
    return 0


if __name__ == "__main__":
    sys.exit(main())
