"""Random changes to a logdir on disk, as a sweep's writers or a user make them: what the
discovery tests (stats, change notification) apply between polls."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterable
from pathlib import Path

#: The changes that move entries of directories (what a stat of each directory can see).
ENTRY_CHANGES = ("run", "run", "event", "other", "rm_file", "rm_dir", "rename", "empty")
#: Those, and changes only the files or whole trees show: files grown or truncated, a run replaced
#: by another directory under its name, trees and files moved in or out of the logdir.
ALL_CHANGES = ENTRY_CHANGES + ("grow", "grow", "grow", "truncate", "replace", "arrive", "depart", "file_out")


def dirs(root: Path) -> list[Path]:
    """The logdir and its directories (not the symlinked ones), in name order."""
    return [root] + sorted(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())


def make_runs(root: Path, names: Iterable[str]) -> None:
    """One empty event file in each of the runs ``names``."""
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "events.out.tfevents.1.h").write_bytes(b"")


def mutate(root: Path, rng: random.Random, changes: tuple[str, ...] = ENTRY_CHANGES) -> None:
    """One change, drawn from ``changes``, somewhere under ``root``."""
    where = rng.choice(dirs(root))
    files = [p for p in where.iterdir() if p.is_file()]
    op = rng.choice(changes)
    if op == "run":
        d = where / f"r{rng.randrange(40)}" / (f"s{rng.randrange(3)}" if rng.random() < 0.4 else "")
        d.mkdir(parents=True, exist_ok=True)
        (d / f"events.out.tfevents.{rng.randrange(10**6)}.host").write_bytes(b"x")
    elif op == "event":
        (where / f"events.out.tfevents.{rng.randrange(10**6)}.h").write_bytes(b"")
    elif op == "other":
        name = rng.choice(["notes.txt", "x.profile-empty", "events.out.tfevents.1.h.profile-empty", "ckpt"])
        (where / name).write_bytes(b"z")
    elif op == "rm_file" and files:
        rng.choice(files).unlink()
    elif op == "rm_dir" and where != root:
        shutil.rmtree(where)
    elif op == "rename" and where != root:
        target = where.parent / f"moved{rng.randrange(100)}"
        if not target.exists():
            where.rename(target)
    elif op == "empty":
        (where / f"e{rng.randrange(20)}").mkdir(exist_ok=True)
    elif op == "grow" and files:
        with open(rng.choice(files), "ab") as fh:
            fh.write(b"y" * rng.randrange(1, 50))
    elif op == "truncate" and files:
        os.truncate(rng.choice(files), 0)
    elif op == "replace" and where != root:  # another directory, another inode, the same path
        other = root.parent / f"other{rng.randrange(10**6)}"
        other.mkdir()
        (other / "events.out.tfevents.9.h").write_bytes(b"w" * rng.randrange(5))
        shutil.rmtree(where)
        other.rename(where)
    elif op == "arrive":  # a finished trial moved in from elsewhere (its only trace: a move)
        outside = root.parent / f"out{rng.randrange(10**6)}"
        (outside / "inner").mkdir(parents=True)
        (outside / "inner" / "events.out.tfevents.3.h").write_bytes(b"v")
        if not (where / outside.name).exists():
            outside.rename(where / outside.name)
    elif op == "depart" and where != root:  # moved out of the logdir
        where.rename(root.parent / f"gone{rng.randrange(10**9)}")
    elif op == "file_out" and files:  # an event file moved out of the logdir
        rng.choice(files).rename(root.parent / f"file{rng.randrange(10**9)}")


def write_more(root: Path, logs: list[bytes], written: list[int], grow: Iterable[int], name: str = "run_{}") -> None:
    """Append to run ``name.format(r)``'s one event file the next ``grow`` bytes of ``logs[r]``
    (cut anywhere: a record may be left half written), ``written[r]`` of it being there."""
    for r, (buf, more) in enumerate(zip(logs, grow)):
        cut = min(len(buf), written[r] + more)
        path = root / name.format(r) / "events.out.tfevents.1.test"
        path.parent.mkdir(exist_ok=True)
        with open(path, "ab") as fh:
            fh.write(buf[written[r] : cut])
        written[r] = cut
