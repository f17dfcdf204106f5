"""The soak's writer: scalars appended at about 1 kHz to several runs, with the events of real
training jobs along the way, and a ledger of every point written and of what became optional.

Timeline (fractions of the duration):

* from 0: runs ``r0``, ``r1``, ``r2``; ``r1`` always writes each record in two halves, flushed
  apart (a writer mid-flush, as a reader sees it between two polls);
* 0.3 and 0.7: ``r0`` restarts into a new event file (a resumed job: steps go on);
* 0.4: run ``r3`` is created;
* 0.5: ``r2``'s file is truncated to nothing and rewritten with new points;
* 0.6: ``r1``'s directory is deleted; 3 s later it is recreated, steps from 0 again.

Ledger rule (what the reader must hold at the end): every point written to a file that still
exists and was never truncated is present exactly once. Points of ``r2`` written before the
truncation are optional: a reader may have dropped them or kept them (at most once each); the
rewritten content is required. Points of ``r1``'s deleted incarnation must be absent: the run
vanished for 3 poll intervals, so the reader had to see it go.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tbnb.format.proto import event_pb2
from tests.fuzz.damage import frame

RATE = 1000.0
TAGS = ("loss", "acc")


def value_of(run: str, life: int, step: int, tag: str) -> float:
    """A value unique to (run, life, step, tag), exact in float32, so duplicates show."""
    return float((sum(map(ord, f"{run}{life}{tag}")) % 100) * 100000 + step % 100000)


@dataclass
class Ledger:
    required: dict[tuple[str, str], Counter] = field(default_factory=dict)
    optional: dict[tuple[str, str], Counter] = field(default_factory=dict)
    forbidden: dict[tuple[str, str], Counter] = field(default_factory=dict)
    written: int = 0

    def add(self, run: str, tag: str, step: int, value: float) -> None:
        self.required.setdefault((run, tag), Counter())[(step, value)] += 1
        self.written += 1

    def demote(self, run: str, to: str) -> None:
        """Move a run's required points to ``optional`` or ``forbidden``."""
        target = self.optional if to == "optional" else self.forbidden
        for (r, tag) in [k for k in self.required if k[0] == run]:
            target.setdefault((r, tag), Counter()).update(self.required.pop((r, tag)))


class RunWriter:
    """One run's current event file, written record by record (or in halves)."""

    def __init__(self, root: Path, run: str, life: int, halves: bool, start_step: int = 0) -> None:
        self.root, self.run, self.life, self.halves = root, run, life, halves
        self.step = start_step
        self.pending = b""
        self.files = 0
        self.fh = None
        self.open_file()

    def open_file(self) -> None:
        if self.fh is not None:
            self.fh.write(self.pending)
            self.pending = b""
            self.fh.close()
        d = self.root / self.run
        d.mkdir(parents=True, exist_ok=True)
        self.files += 1
        name = f"events.out.tfevents.{int(time.time()):010d}.soak.{self.life}.{self.files:04d}"
        self.path = d / name
        self.fh = open(self.path, "wb")  # noqa: SIM115 - closed by close()
        self.fh.write(frame(event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2").SerializeToString()))
        self.fh.flush()

    def write(self, ledger: Ledger) -> None:
        """One event holding one scalar per tag; in halves, the first half now, the rest next time."""
        ev = event_pb2.Event(wall_time=time.time(), step=self.step)
        for tag in TAGS:
            v = value_of(self.run, self.life, self.step, tag)
            ev.summary.value.add(tag=tag, simple_value=v)
            ledger.add(self.run, tag, self.step, v)
        rec = frame(ev.SerializeToString())
        if self.halves:
            self.fh.write(self.pending + rec[: len(rec) // 2])
            self.pending = rec[len(rec) // 2:]
        else:
            self.fh.write(rec)
        self.fh.flush()
        self.step += 1

    def close(self) -> None:
        if self.fh is not None:
            self.fh.write(self.pending)
            self.pending = b""
            self.fh.close()
            self.fh = None


class Scenario:
    """Drives the timeline; ``tick()`` is called by the soak loop as often as it can."""

    def __init__(self, root: Path, duration: float) -> None:
        self.root, self.duration = root, duration
        self.ledger = Ledger()
        self.writers = {r: RunWriter(root, r, 0, halves=(r == "r1")) for r in ("r0", "r1", "r2")}
        self.t0 = time.monotonic()
        self.done: set[str] = set()
        self.events: list[str] = []
        self.deleted_at: float | None = None
        self.written = 0

    def _once(self, name: str, at: float) -> bool:
        if name not in self.done and self.elapsed() >= at * self.duration:
            self.done.add(name)
            self.events.append(f"{self.elapsed():7.1f}s {name}")
            return True
        return False

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def tick(self) -> None:
        if self._once("r0 restarts into a new file", 0.3) or self._once("r0 restarts again", 0.7):
            self.writers["r0"].open_file()
        if self._once("r3 created", 0.4):
            self.writers["r3"] = RunWriter(self.root, "r3", 0, halves=False)
        if self._once("r2 truncated and rewritten", 0.5):
            w = self.writers["r2"]
            w.close()
            self.ledger.demote("r2", "optional")
            with open(w.path, "r+b") as fh:
                fh.truncate(0)
            w.fh = open(w.path, "ab")  # noqa: SIM115 - the writer goes on in the same file
            w.fh.write(frame(event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2").SerializeToString()))
            w.life += 1
        if self._once("r1 deleted", 0.6):
            self.writers.pop("r1").close()
            shutil.rmtree(self.root / "r1")
            self.ledger.demote("r1", "forbidden")
            self.deleted_at = self.elapsed()
        if self.deleted_at is not None and self.elapsed() > self.deleted_at + 3 and self._once("r1 recreated", 0):
            self.writers["r1"] = RunWriter(self.root, "r1", 1, halves=True)
        # About RATE events per second over all runs, round-robin.
        due = int(self.elapsed() * RATE) - self.written
        names = sorted(self.writers)
        for _ in range(max(0, min(due, 200))):
            self.writers[names[self.written % len(names)]].write(self.ledger)
            self.written += 1

    def finish(self) -> None:
        for w in self.writers.values():
            w.close()
