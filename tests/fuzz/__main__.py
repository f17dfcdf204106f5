"""The long fuzz run: ``python -m tests.fuzz --inputs 1000000`` (or ``--minutes 60``).

Children (``tests.fuzz.worker``) read the inputs; this parent watches them, so that a hang in C
code or a hard crash is charged to the input that caused it and the run goes on. It prints the
inputs run, the rate, and crashes, hangs, over-allocations, points lost and bulk != general
mismatches, each split into issue 16's known classes and new findings; every failing input
(up to ``--keep`` per kind) is saved under ``--out`` with an ``input.json`` to replay it:
``python -m tests.fuzz --replay DIR``. ``--first N`` starts at input ``N`` of the seed, so that
a run split into chunks covers distinct inputs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from . import checks, memory, seeds
from .worker import ADDRESS_LIMIT, case_for

KINDS = ("crash", "hang", "over-allocation", "points lost", "mismatch")


#: The children's environment: glibc reserves 64 MiB of address space for each thread's malloc
#: arena (up to 8 per core), and the reader starts short threads (inotify's closer, reload
#: pools); under the children's 1 GiB address-space limit, a dozen arenas left no room for a
#: thread's stack, and reads failed with "can't start new thread". Two arenas keep the limit a
#: bound on what the reader allocates.
CHILD_ENV = {"MALLOC_ARENA_MAX": "2"}


class Child:
    def __init__(self, args: argparse.Namespace, start: int, stop: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.worker", str(args.seed), str(start), str(args.jobs), str(stop),
             str(args.time_limit), str(args.scratch_dir)], cwd=seeds.ROOT, stdout=subprocess.PIPE, text=True,
            bufsize=1, env={**os.environ, **CHILD_ENV})
        self.current: int | None = None
        self.since = time.monotonic()


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.seed_files, self.extras = seeds.load_seeds(), seeds.projector_files()
        self.inputs = 0
        self.failing_inputs = 0
        self.by_sig: Counter = Counter()
        self.examples: dict[str, list[str]] = {}
        self.kept: Counter = Counter()
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)

    def record(self, i: int, failures: list[list[str]], steps: list[str]) -> None:
        self.inputs += 1
        if failures:
            self.failing_inputs += 1
        for label, kind, key, detail in failures:
            sig = f"{label} | {kind} | {key}"
            self.by_sig[sig] += 1
            ex = self.examples.setdefault(sig, [])
            if len(ex) < 3:
                ex.append(f"input {i}: {detail} (mutations: {', '.join(steps)})")
            if self.kept[sig] < self.args.keep:
                self.kept[sig] += 1
                self.save(i, sig, failures)

    def label(self, i: int) -> str:
        """The label of a child that hung or died on input ``i``: class 2 if it declares a bomb."""
        case = case_for(self.args.seed, i, self.seed_files, self.extras)
        excess = max([e.declared_excess for e in checks.expected(case).values()] + [case.declared_excess])
        return "class 2" if excess > memory.limit(case.size) else "new"

    def save(self, i: int, sig: str, failures: list[list[str]]) -> None:
        slug = re.sub(r"[^a-z0-9]+", "-", sig.lower()).strip("-")
        where = self.out / slug / f"input-{i}"
        case = case_for(self.args.seed, i, self.seed_files, self.extras)
        checks.write_case(case, where / "logdir")
        (where / "input.json").write_text(json.dumps({
            "seed": self.args.seed, "index": i, "mutations": case.steps, "seeds": case.seeds,
            "purge_orphaned_data": case.purge, "split_at": case.split_at, "batch": case.batch,
            "failures": failures}, indent=1))

    def totals(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {k: Counter() for k in KINDS}
        for sig, n in self.by_sig.items():
            label, kind, _ = sig.split(" | ", 2)
            table[kind][label] += n
        return {k: dict(v) for k, v in table.items()}

    def report(self, elapsed: float, final: bool) -> None:
        rate = self.inputs / elapsed if elapsed else 0.0
        print(f"[{'final' if final else 'progress'}] {time.strftime('%H:%M:%S', time.gmtime())} UTC: "
              f"{self.inputs} inputs in {elapsed:.0f} s "
              f"({rate:.1f}/s), {self.failing_inputs} failing", flush=True)
        for kind, labels in self.totals().items():
            total = sum(labels.values())
            parts = ", ".join(f"{label}: {n}" for label, n in sorted(labels.items()))
            print(f"  {kind:16s} {total:8d}  {parts}", flush=True)
        if final:
            print("by signature:")
            for sig, n in self.by_sig.most_common():
                print(f"  {n:8d}  {sig}")
                for ex in self.examples[sig]:
                    print(f"            {ex[:300]}")
            summary = {"seed": self.args.seed, "first": self.args.first, "inputs": self.inputs, "seconds": elapsed, "rate": rate, "failing_inputs": self.failing_inputs,
                       "totals": self.totals(), "signatures": dict(self.by_sig), "examples": self.examples}
            (self.out / "summary.json").write_text(json.dumps(summary, indent=1))


def fuzz(args: argparse.Namespace) -> Run:
    """Run the children over the inputs; their scratch folders live in one folder of this run,
    removed when the run ends, is interrupted (SIGINT) or stopped (SIGTERM)."""
    signal.signal(signal.SIGTERM, _interrupt)  # a stopped run still prints its figures and cleans up
    args.scratch_dir = Path(tempfile.mkdtemp(prefix="tbnb-fuzz-", dir=args.scratch)) if args.scratch \
        else checks.workdir()
    children: list[Child] = []
    try:
        run = Run(args)
        stop = args.first + args.inputs if args.inputs else 1 << 62
        deadline = time.monotonic() + 60 * args.minutes if args.minutes else float("inf")
        t0 = time.monotonic()
        sel = selectors.DefaultSelector()
        children += [Child(args, args.first + k, stop) for k in range(args.jobs)]
        for c in children:
            sel.register(c.proc.stdout, selectors.EVENT_READ, c)
        live = set(children)
        try:
            _watch(args, run, sel, live, stop, deadline, t0, children)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        _end(children)
        run.report(time.monotonic() - t0, final=True)
        return run
    finally:
        _end(children)  # again: an interrupt may have come before the first _end
        shutil.rmtree(args.scratch_dir, ignore_errors=True)


def _end(children: list[Child]) -> None:
    """Kill the children still running (SIGKILL: their folders go with the run's scratch folder)."""
    for c in children:
        if c.proc.poll() is None:
            c.proc.kill()
        c.proc.wait()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _watch(args: argparse.Namespace, run: Run, sel: selectors.BaseSelector, live: set[Child], stop: int,
           deadline: float, t0: float, children: list[Child]) -> None:
    """Read the children's reports until the deadline; replace children that hang or die."""
    last = t0
    while live and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1.0):
            c = key.data
            line = c.proc.stdout.readline()
            if line:
                msg = json.loads(line)
                if "start" in msg:
                    c.current, c.since = msg["start"], time.monotonic()
                else:
                    run.record(msg["done"], msg["failures"], msg["steps"])
                    c.current = None
                continue
            sel.unregister(c.proc.stdout)
            live.discard(c)
            if c.proc.wait() != 0 and c.current is not None:  # died mid-input: a hard crash
                run.record(c.current, [[run.label(c.current), "crash", "child died",
                                        f"exit status {c.proc.returncode}"]], [])
                live.add(respawn(args, c.current + args.jobs, stop, sel, children))
        now = time.monotonic()
        for c in list(live):
            if c.current is not None and now - c.since > 3 * args.time_limit:
                c.proc.kill()  # a hang beyond the child's own alarm: C code that never returns
                c.proc.wait()
                sel.unregister(c.proc.stdout)
                live.discard(c)
                run.record(c.current, [[run.label(c.current), "hang", "child killed",
                                        f"no answer in {3 * args.time_limit}s"]], [])
                live.add(respawn(args, c.current + args.jobs, stop, sel, children))
        if now - last > 60:
            run.report(now - t0, final=False)
            last = now


def respawn(args: argparse.Namespace, start: int, stop: int, sel: selectors.BaseSelector,
            children: list[Child]) -> Child:
    c = Child(args, start, stop)
    children.append(c)
    sel.register(c.proc.stdout, selectors.EVENT_READ, c)
    return c


def replay(folder: Path, run_bombs: bool) -> None:
    """Read a saved input again, in this process, and print its failures (inputs that declare
    huge tensors only with ``--run-bombs``, under the children's address-space limit)."""
    info = json.loads((folder / "input.json").read_text())
    files = {str(p.relative_to(folder / "logdir")): (None if p.is_dir() else p.read_bytes())
             for p in sorted((folder / "logdir").rglob("*")) if p.is_file() or "tfevents" in p.name}
    case = checks.Case(files, info["mutations"], info["seeds"], info["purge_orphaned_data"], 0, info["split_at"],
                       info.get("batch", False))
    if run_bombs:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    scratch = checks.workdir()
    try:
        outcome = checks.run_case(case, scratch / "in", memory.PeakMeter("rss"), run_bombs=run_bombs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in outcome.failures:
        print(f"{f.label} | {f.kind} | {f.detail}")
    print(f"{len(outcome.failures)} failures, peak {outcome.peak} B")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=0, help="stop after this many inputs")
    p.add_argument("--minutes", type=float, default=0, help="stop after this long")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--first", type=int, default=0,
                   help="index of the first input: runs in chunks cover distinct inputs of one seed")
    p.add_argument("--jobs", type=int, default=1, help="child processes")
    p.add_argument("--time-limit", type=int, default=10, help="seconds per input before it counts as a hang")
    p.add_argument("--keep", type=int, default=5, help="failing inputs saved per kind of failure")
    p.add_argument("--out", default=str(seeds.CACHE / "failures"))
    p.add_argument("--replay", type=Path, help="replay one saved input folder")
    p.add_argument("--run-bombs", action="store_true", help="with --replay: read class 2 inputs too")
    p.add_argument("--scratch", help="where the run's scratch folder goes (default: /dev/shm if writable, else the "
                   "temporary directory); it is removed when the run ends or is stopped")
    args = p.parse_args(argv)
    if args.replay:
        replay(args.replay, args.run_bombs)
        return
    if not args.inputs and not args.minutes:
        p.error("give --inputs or --minutes")
    fuzz(args)


if __name__ == "__main__":
    main()
