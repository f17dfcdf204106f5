"""``Logdir.reload(first_bytes=N)``: a preview of each file's first bytes, which the next reload
continues; together they read exactly what one reload reads (a Board's first read,
tbnb/board/first_read.py, relies on it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tbnb.reader.logdir.batch_reload import BATCH_MIN_RUNS
from tbnb.reader.logdir.logdir import Logdir
from tbnb.testing import EventWriter


def write_runs(root: Path, runs: int, steps: int, *, image_every: int = 0, big_image_at: int | None = None) -> Path:
    rng = np.random.default_rng(runs * 1000 + steps)
    for r in range(runs):
        with EventWriter(root / f"run_{r}", start_time=1_700_000_000.0 + r) as w:
            for s in range(steps):
                w.add_scalar("loss", float(rng.normal()), s, wall_time=1_700_000_010.0 + s)
                w.add_scalar("acc", float(s) / steps, s, tf2=s % 3 == 0)
                if image_every and s % image_every == 0:
                    w.add_image("sample", rng.integers(0, 255, (8, 8, 3), dtype=np.uint8), s)
                if big_image_at == s:  # one record far longer than a preview
                    w.add_image("big", rng.integers(0, 255, (256, 256, 3), dtype=np.uint8), s)
    return root


def snapshot(lg: Logdir) -> dict[str, Any]:
    """Everything a reader answers: runs, tags, every scalar point, sampled steps and values."""
    out: dict[str, Any] = {}
    for run in lg.runs():
        tags = lg.tags(run)
        entry: dict[str, Any] = {"tags": tags}
        for tag, plugin in tags.items():
            if plugin == "scalars":
                s = lg.scalars(run, tag)
                entry[tag] = (s.step.tolist(), s.wall_time.tolist(), s.value.tolist())
            else:
                t = lg.tensors(run, tag)
                arrays = [np.asarray(v) for v in t.values]
                entry[tag] = (t.step.tolist(), [(a.dtype.str, a.shape, a.ravel().tolist()) for a in arrays])
        out[run] = entry
    return out


def test_a_preview_then_the_rest_reads_what_one_reload_reads(tmp_path: Path) -> None:
    root = write_runs(tmp_path / "logs", runs=3, steps=2000, image_every=100)
    whole = Logdir(root)
    whole.reload()
    assert whole.unread_bytes() == 0

    lg = Logdir(root)
    preview = lg.reload(first_bytes=4096)
    assert sorted(preview.new_runs) == whole.runs()
    assert lg.unread_bytes() > 0
    assert not lg.problems  # a preview ends at a record boundary, silently
    held = {run: lg.count(run, "loss") for run in lg.runs()}
    assert all(0 < n < 2000 for n in held.values()), held
    assert lg.tags("run_0") == {"acc": "scalars", "loss": "scalars", "sample": "images"}

    rest = lg.reload()
    assert lg.unread_bytes() == 0
    assert {(run, "loss"): 2000 - held[run] for run in held}.items() <= rest.points.items()
    assert not lg.problems
    assert snapshot(lg) == snapshot(whole)


def test_a_record_longer_than_the_preview_waits_for_the_next_reload(tmp_path: Path) -> None:
    root = write_runs(tmp_path / "logs", runs=1, steps=40, big_image_at=20)
    lg = Logdir(root)
    lg.reload(first_bytes=2048)  # returns: no loop on a record it cannot finish
    assert "big" not in lg.tags("run_0") and lg.unread_bytes() > 150_000
    while lg.unread_bytes():  # previews go on from where the last stopped...
        before = lg.unread_bytes()
        lg.reload(first_bytes=2048)
        if lg.unread_bytes() == before:  # ...until the big record: a full reload takes it
            lg.reload()
    whole = Logdir(root)
    whole.reload()
    assert not lg.problems and snapshot(lg) == snapshot(whole)
    assert lg.count("run_0", "big") == 1


def test_many_small_runs_are_read_whole_by_the_batch_path_in_a_preview(tmp_path: Path) -> None:
    root = write_runs(tmp_path / "logs", runs=BATCH_MIN_RUNS + 2, steps=30)
    lg = Logdir(root)
    lg.reload(first_bytes=64)
    assert lg.unread_bytes() == 0  # nothing left: a Board then skips the second pass
    whole = Logdir(root)
    whole.reload()
    assert snapshot(lg) == snapshot(whole)
