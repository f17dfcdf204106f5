"""Event files a remote-logdir test uploads: a small sweep, and one run of it growing."""

from __future__ import annotations

from pathlib import Path

from tbnb.testing import EventWriter


def sweep(root: Path) -> dict[str, EventWriter]:
    """Writers of runs ``train``, ``eval`` and ``sweep/t1`` (a nested run), 200 steps of
    ``loss`` each, flushed; the caller closes them."""
    writers = {name: EventWriter(root / name) for name in ("train", "eval", "sweep/t1")}
    for step in range(200):
        for w in writers.values():
            w.add_scalar("loss", 1.0 / (step + 1), step)
    for w in writers.values():
        w.flush()
    return writers


def grow(w: EventWriter, steps: range) -> int:
    """Append ``loss`` at ``steps`` to one writer's file and flush; the bytes it grew by."""
    size = w.path.stat().st_size
    for step in steps:
        w.add_scalar("loss", 0.0, step)
    w.flush()
    return w.path.stat().st_size - size
