"""The two logdirs tbnb writes for itself: the benchmark's scalars and the demo's every plugin.

They are product code, not test code: ``tbnb demo`` writes the demo logdir on a user's machine,
and the benchmark compares loaders on the scalar logdir. Both are deterministic (seeded data,
fixed wall times) apart from event file names.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from tbnb.format.framing import encode_record
from tbnb.format.proto import event_pb2, graph_pb2, types_pb2
from tbnb.writer.event_writer import FILE_VERSION, EventWriter, event_file_name
from tbnb.writer.scalar_events import scalar_records

# The benchmark's scalar logdir: events are hand-encoded by ``scalar_records``, one numpy block
# per tag and run of equal-length records, then interleaved so that each step writes every tag.


def scalar_run_data(run: int, tags: int, steps: int, seed: int) -> tuple[float, np.ndarray, np.ndarray]:
    """Deterministic (start_time, wall_times [steps, tags] float64, values [steps, tags] float32):
    decaying loss-like curves plus a seeded random walk, 50 ms per step, 1 ms between tags."""
    rng = np.random.default_rng([seed, run])
    start = 1_600_000_000.0 + 3600.0 * run
    step_axis = np.arange(steps, dtype=np.float64)[:, None]
    wall = start + 1.0 + 0.05 * step_axis + 0.001 * np.arange(tags, dtype=np.float64)[None, :]
    scale = 1.0 + 0.25 * np.arange(tags) + 0.1 * run
    trend = scale * np.exp(-step_axis / max(steps / 4.0, 1.0))
    walk = np.cumsum(rng.normal(0.0, 0.01, size=(steps, tags)), axis=0)
    return start, wall, (trend + walk).astype(np.float32)


def scalar_tag(t: int) -> str:
    """The name of tag ``t``: four tags a group, so the benchmark exercises tag grouping too."""
    return f"group_{t // 4}/metric_{t}"


def write_scalar_logdir(
    logdir: str | os.PathLike[str],
    *,
    runs: int = 8,
    tags: int = 16,
    steps: int = 20000,
    tf2: bool = False,
    seed: int = 0,
) -> pathlib.Path:
    """The benchmark dataset: runs ``run_00``..., one event file each, tags
    ``group_{t//4}/metric_{t}``, steps ``0..steps-1`` with one scalar per event, round-robin over
    tags within each step as a training loop writes. Deterministic for a given ``seed``."""
    root = pathlib.Path(logdir)
    tag_names = [scalar_tag(t) for t in range(tags)]
    step_array = np.arange(steps, dtype=np.int64)
    # Cut the steps where the record length changes: after step 0 (no step field, and the TF2
    # metadata) and wherever the varint of the step gets one byte longer.
    cuts = [0] + [b for b in (1, 1 << 7, 1 << 14, 1 << 21, 1 << 28, 1 << 35) if b < steps] + [steps]
    for run in range(runs):
        start, wall, values = scalar_run_data(run, tags, steps, seed)
        run_dir = root / f"run_{run:02d}"
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / event_file_name(start, "")
        with open(path, "wb") as out:
            first = event_pb2.Event(wall_time=start, file_version=FILE_VERSION)
            out.write(encode_record(first.SerializeToString()))
            for a, b in zip(cuts[:-1], cuts[1:]):
                if a == b:
                    continue  # steps == 0: an empty run
                blocks = [
                    scalar_records(
                        name, step_array[a:b], wall[a:b, t], values[a:b, t], tf2=tf2, metadata=a == 0
                    )
                    for t, name in enumerate(tag_names)
                ]
                out.write(np.concatenate(blocks, axis=1).tobytes())  # row = one step, all tags
    return root


# The demo logdir: every plugin tbnb shows, written through ``EventWriter`` as a user's loop would.


def _tiny_graph_def() -> bytes:
    """A four-node GraphDef (x, W -> MatMul -> Relu) so the demo has a graph to show."""
    graph = graph_pb2.GraphDef(versions=graph_pb2.VersionDef(producer=27))
    nodes = [("x", "Placeholder", []), ("W", "VariableV2", []), ("MatMul", "MatMul", ["x", "W"])]
    for name, op, inputs in nodes + [("Relu", "Relu", ["MatMul"])]:
        node = graph.node.add(name=name, op=op, input=inputs)
        node.attr["T"].type = types_pb2.DT_FLOAT
    return graph.SerializeToString()


_DEMO_CONFIG = """# Hyperparameters

| name | value |
|------|-------|
| learning rate | {lr} |
| batch size | 64 |
| optimizer | {opt} |

*written by `tbnb.writer`*"""


def _demo_run(w: EventWriter, rng: np.random.Generator, lr: float, start: float, tf2: bool) -> None:
    """300 steps of a fake classifier: every plugin, at the cadences real training loops use."""
    w.add_graph_def(_tiny_graph_def(), wall_time=start)
    w.add_text("config", _DEMO_CONFIG.format(lr=lr, opt="adam" if tf2 else "sgd"), 0, wall_time=start)
    yy, xx = np.mgrid[0:28, 0:28]
    for step in range(300):
        t = start + 1.0 + 0.5 * step
        progress = 1.0 - np.exp(-step * lr / 3.0)
        loss = 2.3 * (1.0 - progress) + 0.05 + 0.05 * rng.standard_normal()
        accuracy = np.clip(0.1 + 0.88 * progress + 0.02 * rng.standard_normal(), 0.0, 1.0)
        w.add_scalar("loss/train", float(loss), step, wall_time=t, tf2=tf2)
        w.add_scalar("accuracy/train", float(accuracy), step, wall_time=t, tf2=tf2)
        w.add_scalar("learning_rate", lr * 0.99 ** (step // 10), step, wall_time=t, tf2=tf2)
        if step % 10 == 0:
            val_loss = loss + 0.1 + 0.03 * rng.standard_normal()
            w.add_scalar("loss/val", float(val_loss), step, wall_time=t, tf2=tf2)
            w.add_scalar("accuracy/val", float(0.08 + 0.85 * progress), step, wall_time=t, tf2=tf2)
        if step % 25 == 0:
            weights = rng.normal(0.1 * progress, 1.0 - 0.5 * progress, 1000)
            w.add_histogram("weights/dense_1", weights, step, wall_time=t, tf2=tf2)
            relu = np.maximum(rng.normal(progress, 1.0, 1000), 0.0)
            w.add_histogram("activations/relu", relu, step, wall_time=t, tf2=tf2)
        if step % 50 == 0:
            blob = 255 * np.exp(-((xx - 14) ** 2 + (yy - 14) ** 2) / (20.0 + step / 5))
            w.add_image("inputs/sample", blob.astype(np.uint8), step, wall_time=t, tf2=tf2)
            batch = rng.integers(0, 256, size=(4, 32, 32, 3), dtype=np.uint8)
            batch[:, :, :, step // 50 % 3] = np.linspace(0, 255, 32, dtype=np.uint8)[None, :, None]
            w.add_image("inputs/batch", batch, step, wall_time=t, tf2=tf2)
            labels = rng.random(200) < 0.4
            scores = np.clip(labels * progress * 0.6 + rng.random(200) * (1 - 0.5 * progress), 0, 1)
            w.add_pr_curve("pr/positive_class", labels, scores, step, wall_time=t)
        if step % 100 == 0:
            tone = 0.5 * np.sin(2 * np.pi * (220.0 + step) * np.arange(4000) / 8000.0)
            samples = np.stack([tone, tone[::-1]], axis=1) if tf2 else tone
            w.add_audio("audio/tone", samples, 8000, step, wall_time=t, tf2=tf2, label=f"{220 + step} Hz")
            notes = np.array([["step", str(step)], ["loss", f"{loss:.3f}"]])
            w.add_text("notes", notes, step, wall_time=t)


def write_demo_logdir(logdir: str | os.PathLike[str]) -> pathlib.Path:
    """A small logdir showing every plugin: TF1-style runs ``mnist/lr_0.1`` and ``mnist/lr_0.01``
    and a TF2-style run ``tf2/lr_0.05``, 300 steps each, deterministic apart from file names."""
    root = pathlib.Path(logdir)
    runs = [("mnist/lr_0.1", 0.1, False), ("mnist/lr_0.01", 0.01, False), ("tf2/lr_0.05", 0.05, True)]
    for index, (run, lr, tf2) in enumerate(runs):
        start = 1_700_000_000.0 + 10_000.0 * index
        with EventWriter(root / run, start_time=start) as writer:
            _demo_run(writer, np.random.default_rng(index), lr, start, tf2)
    return root
