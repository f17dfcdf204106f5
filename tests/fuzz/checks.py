"""One fuzz input: a small logdir made from mutated seeds, read both ways, checked four ways.

Checks per input: no exception escapes the public API; peak memory within ``memory.limit`` of the
input size; every point the oracle claims is read; bulk (``tbnb.load``) and general
(``Logdir(bulk=False)``) readers agree exactly; and, for a quarter of the inputs, reading the main
file in two parts (cut anywhere, then whole, two reloads) ends where reading it at once does, and,
for another quarter, so does a first read as a Board reads a big logdir (a preview of each
run's first bytes, then the rest: ``Logdir.reload(first_bytes=...)``). For half the inputs the bulk read goes through the batch path that a reload of many changed runs
takes (``batch_reload``), however few runs the input has: it must answer as the general path does.

Each failure gets a label: ``class N`` when it matches a failure class of issue 16 that is not
fixed yet (so that those inputs are counted and reported apart, never dropped), ``new`` otherwise.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tbnb.reader.logdir import batch_reload
from tbnb.reader.logdir.logdir import Logdir

from . import damage, memory, mutate, oracle, snapshot

EVENT_NAME = "events.out.tfevents.{:010d}.fuzz.{}"


@dataclass
class Case:
    """A logdir to write: ``{relative path: bytes}``, ``None`` meaning a directory."""

    files: dict[str, bytes | None]
    steps: list[str]
    seeds: list[str]
    purge: bool = False
    #: Bytes that a mutated tensor declares beyond what it holds (see ``mutate.Mutated``).
    declared_excess: int = 0
    #: Reload twice: first with the main file cut here, then whole (None: one load).
    split_at: int | None = None
    #: Read in bulk through the many-runs batch path (``batch_reload``) whatever the run count.
    batch: bool = False
    #: First read as a Board reads a big logdir: a preview of this many bytes, then the rest
    #: (``Logdir.reload(first_bytes=...)``; None: one reload).
    preview: int | None = None

    @property
    def size(self) -> int:
        return sum(len(v) for v in self.files.values() if v)


@dataclass
class Failure:
    label: str  # "class N" or "new"
    kind: str  # crash / hang / over-allocation / points lost / mismatch
    detail: str
    #: What groups failures of one kind: the call and exception, the differing field, the path.
    key: str = ""


@dataclass
class Outcome:
    failures: list[Failure] = field(default_factory=list)
    peak: int = 0


MAIN = "a/" + EVENT_NAME.format(1_000_000_000, 1)


def build_case(seeds: dict[str, bytes], rng: random.Random, extras: dict[str, bytes] | None = None) -> Case:
    """A random input: run ``a`` holds one mutated seed, sometimes a second file; sometimes run
    ``b`` holds an odd file; sometimes projector files ride along, damaged or not."""
    names = sorted(seeds)
    first, second = rng.choice(names), rng.choice(names)
    m = mutate.mutate(seeds[first], seeds[second], rng)
    files: dict[str, bytes | None] = {MAIN: m.data}
    steps = list(m.steps)
    excess = m.declared_excess
    if rng.random() < 0.25:
        other = mutate.mutate(seeds[second], seeds[first], rng, n=rng.choice([0, 1]))
        excess = max(excess, other.declared_excess)
        files["a/" + EVENT_NAME.format(1_000_000_001, 2)] = other.data
        steps += ["second:" + s for s in other.steps]
    if rng.random() < 0.1:
        odd = rng.choice(list(damage.ODD_FILES) + ["directory"])
        path = "b/" + EVENT_NAME.format(1_000_000_000, 3)
        files[path] = None if odd == "directory" else damage.ODD_FILES[odd]
        if odd != "directory":
            files["b/" + EVENT_NAME.format(1_000_000_001, 4)] = seeds[first]
        steps.append("odd:" + odd)
    if extras and rng.random() < 0.05:
        for rel, data in extras.items():
            if rel.startswith(first.split("/")[0] + "/run/"):
                inner = rel.split("/run/", 1)[1]
                files["a/" + inner] = bytes(damage.b_bitflip(bytearray(data), rng)) if rng.random() < 0.5 else data
        steps.append("projector")
    purge = rng.random() < 0.5
    # Read in two parts only when the main file is its run's only file: when two files of a run
    # grow at once, the order of points of equal steps legitimately follows the polls.
    alone = not any(rel.startswith("a/") and rel != MAIN for rel in files)
    split_at = rng.randrange(len(m.data) + 1) if alone and rng.random() < 0.25 else None
    batch = rng.random() < 0.5  # drawn after the files: the files of input i are those of earlier versions
    preview = rng.choice([16, 200, 1024, 4096]) if rng.random() < 0.25 else None
    return Case(files, steps, [first, second], purge, excess, split_at, batch, preview)


def write_case(case: Case, root: Path, main_cut: int | None = None) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for rel, data in case.files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            path.mkdir()
        else:
            path.write_bytes(data if rel != MAIN or main_cut is None else data[:main_cut])


class Hang(Exception):
    """Raised by the alarm when one input runs past its time limit."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise Hang()


@contextmanager
def batch_every_reload(on: bool) -> Iterator[None]:
    """With ``on``, every reload with a changed run takes the batch path (the fuzz worker reads
    one input at a time, on one thread: the module constant is the whole switch)."""
    kept = batch_reload.BATCH_MIN_RUNS
    if on:
        batch_reload.BATCH_MIN_RUNS = 1
    try:
        yield
    finally:
        batch_reload.BATCH_MIN_RUNS = kept


def _read(root: Path, case: Case, bulk: bool, meter: memory.PeakMeter, split: bool
          ) -> tuple[snapshot.Snapshot, int]:
    meter.start()
    lg = Logdir(root, purge_orphaned_data=case.purge, bulk=bulk, threads=1)
    snap = snapshot.Snapshot()
    try:
        with batch_every_reload(bulk and case.batch):
            if split and case.preview is not None:
                lg.reload(first_bytes=case.preview)
            lg.reload()
            if split and case.split_at is not None:
                MAIN_PATH = root / MAIN
                MAIN_PATH.write_bytes(case.files[MAIN] or b"")
                lg.reload()
    except Hang:
        raise
    except Exception as err:  # noqa: BLE001
        snap.raised.append(snapshot.Raised("reload", "", "", type(err).__name__, str(err)[:200]))
        return snap, meter.peak()
    snap = snapshot.take(lg)
    return snap, meter.peak()


def expected(case: Case) -> dict[str, oracle.Expected]:
    runs: dict[str, list[tuple[str, bytes]]] = {}
    for rel, data in case.files.items():
        run, name = rel.rsplit("/", 1)
        if data is not None and "tfevents" in name:
            runs.setdefault(run, []).append((name, data))
    return {run: oracle.expect_run([d for _, d in sorted(files)]) for run, files in runs.items()}


def run_case(case: Case, root: Path, meter: memory.PeakMeter, time_limit: int = 20,
             run_bombs: bool = False) -> Outcome:
    """Write, read both ways, check; the failures come back labelled.

    An input whose intact records declare tensors far larger than the allocation limit (issue 16
    class 2) is only read when ``run_bombs`` is set, which the long run does under an
    address-space limit: unbounded, one such input can take the whole machine's memory.
    """
    out = Outcome()
    exp = expected(case)
    excess = max([e.declared_excess for e in exp.values()] + [case.declared_excess])
    lim = memory.limit(case.size)
    if excess > lim and not run_bombs:
        out.failures.append(Failure("class 2", "over-allocation", f"not run: a tensor declares {excess} B"))
        return out
    snaps: dict[str, snapshot.Snapshot] = {}
    old = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        modes = [("bulk", True, True), ("general", False, True)]
        if case.split_at is not None or case.preview is not None:
            modes.append(("once", False, False))  # the general path reading every file at once
        write_case(case, root)  # once: between the reads only the main file changes
        for mode, bulk, split in modes:
            if case.split_at is not None:
                data = case.files[MAIN] or b""
                (root / MAIN).write_bytes(data[:case.split_at] if split else data)
            signal.alarm(time_limit)
            try:
                snaps[mode], peak = _read(root, case, bulk, meter, split)
            except Hang:
                label = "class 2" if excess > lim else "new"
                out.failures.append(Failure(label, "hang", f"{mode}: over {time_limit}s", mode))
                return out
            except MemoryError:
                label = "class 2" if excess > lim else "new"
                out.failures.append(Failure(label, "over-allocation", f"{mode}: MemoryError", mode))
                return out
            finally:
                signal.alarm(0)
            out.peak = max(out.peak, peak)
            if peak > lim:
                label = "class 2" if excess > lim else "new"
                out.failures.append(Failure(label, "over-allocation", f"{mode}: {peak} B > {lim} B", mode))
    finally:
        signal.signal(signal.SIGALRM, old)
    once = snaps.pop("once", None)
    if once is not None:
        for what, run, tag in snapshot.differences(snaps["general"], once):
            out.failures.append(Failure("new", "mismatch", f"read in parts != read at once: {what} {run!r} {tag!r}",
                                        f"reload {what}"))
    for mode, snap in snaps.items():
        for r in snap.raised:
            label = "class 2" if r.kind == "MemoryError" and excess > lim else _label_raised(r, mode)
            out.failures.append(Failure(label, "crash", f"{mode}: {r.where}({r.run!r}, {r.tag!r}) {r.kind}: {r.message}",
                                        f"{mode} {r.where} {r.kind}"))
    # A reload that raised loses everything after it: those losses carry the reload's label.
    reload_label = {mode: next((f.label for f in out.failures if f.key == f"{mode} reload {r.kind}"), None)
                    for mode, snap in snaps.items() for r in snap.raised if r.where == "reload"}
    for run, e in exp.items():
        for tag, points in e.points.items():
            if case.purge and tag not in e.purge_safe:
                continue
            for mode, snap in snaps.items():
                n = snapshot.lost_points(snap, run, tag, points)
                if n:
                    label = "class 1" if mode == "bulk" and tag in e.mixed_tags else "new"
                    label = reload_label.get(mode) or label
                    out.failures.append(Failure(label, "points lost", f"{mode}: {run}/{tag} lost {n}", mode))
    diffs = snapshot.differences(snaps["bulk"], snaps["general"])
    if diffs or any(f.kind == "points lost" and f.label == "new" for f in out.failures):
        _mixed_forms_anywhere(case, exp)
        for f in out.failures:
            if f.kind == "points lost" and f.label == "new" and f.key == "bulk":
                run, tag = f.detail.split(": ", 1)[1].rsplit(" lost ", 1)[0].split("/", 1)
                if tag in exp[run].mixed_tags:
                    f.label = "class 1"
    for what, run, tag in diffs:
        out.failures.append(Failure(_label_diff(what, run, tag, exp, snaps), "mismatch",
                                    f"bulk != general: {what} {run!r} {tag!r}", what))
    return out


def _mixed_forms_anywhere(case: Case, exp: dict[str, oracle.Expected]) -> None:
    """Widen each run's mixed-form tags to what a resynchronising reader could see (to label)."""
    for rel, data in case.files.items():
        run, name = rel.rsplit("/", 1)
        if data and "tfevents" in name and run in exp:
            exp[run].mixed_tags |= oracle.mixed_form_tags([data])


def _label_raised(r: snapshot.Raised, mode: str) -> str:
    if r.where == "scalars" and r.kind == "KeyError":
        return "class 3"
    if r.where == "values" and r.kind == "DecodeError" and mode == "bulk":
        return "class 4"
    if r.where == "values" and r.kind in ("TensorDecodeError", "ValueError", "MemoryError"):
        return "class 5"
    if r.where == "graph" and r.kind == "DecodeError":
        return "class 6"
    return "new"


def _label_diff(what: str, run: str, tag: str, exp: dict[str, oracle.Expected],
                snaps: dict[str, snapshot.Snapshot]) -> str:
    e = exp.get(run)
    if what == "scalars" and e is not None and tag in e.mixed_tags:
        return "class 1"
    if what == "tensors":
        b, g = snaps["bulk"].tensors.get((run, tag)), snaps["general"].tensors.get((run, tag))
        if b is not None and g is not None and len(b[1]) > len(g[1]):
            return "class 4"
        # a value that raised on one side only (class 4's DecodeError), or raised on both
        if b is not None and g is not None and any(p[0] == "raised" for p in b[1] + g[1]):
            return "class 4" if any(p == ("raised", "DecodeError") for p in b[1]) else "class 5"
    if what in ("tags", "scalars", "tensors") and e is not None and tag in e.mixed_tags:
        return "class 1"  # tensors too: TF1 simple values in a series of another plugin
    return "new"


def signature(f: Failure) -> str:
    """A short key that groups failures of one kind."""
    return f"{f.label} | {f.kind} | {f.key}"


def summarize(outcomes: list[Outcome]) -> Counter:
    c: Counter = Counter()
    for o in outcomes:
        for f in o.failures:
            c[signature(f)] += 1
    return c


def warm_up(root: Path) -> None:
    """Read, both ways, a file whose records span every width the bulk CRC check handles.

    The bulk reader grows process-wide CRC tables to the widest record group it has checked
    (tens of MiB, kept for the life of the process). Paid once here, that fixed cost stays out
    of the per-input peaks, which must scale with the input.
    """
    from tbnb.format.proto import event_pb2

    payloads = []
    for width in range(8, 300, 4):
        ev = event_pb2.Event(wall_time=1.0, step=1)
        ev.summary.value.add(tag="w", simple_value=1.0)
        ev.file_version = "x" * max(0, width - len(ev.SerializeToString()) - 2)
        payloads += [ev.SerializeToString()] * 70
    write_case(Case({MAIN: b"".join(damage.frame(p) for p in payloads)}, [], []), root)
    for bulk in (True, False):
        Logdir(root, bulk=bulk, threads=1).reload()


def workdir() -> Path:
    """A scratch folder in tmpfs when there is one (the loop writes thousands of small logdirs)."""
    base = Path("/dev/shm") if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    import tempfile

    return Path(tempfile.mkdtemp(prefix="tbnb-fuzz-", dir=base))
