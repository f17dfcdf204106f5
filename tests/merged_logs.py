"""Event files whose every event holds many values: TF1's merged summaries.

TF1 code (``tf.summary.merge_all`` then one ``FileWriter.add_summary`` per step) writes every
summary of a step into one Event, so a model that logs each layer's weights, gradients and
activations writes thousands of values per event. Written two ways, for the reader tests and for
``python -m tests.bench.many_values``:

* ``writer="tbnb"``: tbnb's ``EventWriter`` (``add_event`` with tbnb's own protobufs);
* ``writer="tensorboard"``: TensorBoard's own protobufs and record writer, as TensorBoard itself
  would frame them (imported only then).

Kinds: ``histograms`` (TF1 ``histo``, 30 buckets), ``scalars`` (``simple_value``), ``images``
(a small PNG each), and ``mixed`` (the three in turn). Values are seeded: two calls write the same
bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tbnb.testing import EventWriter, encode_png

KINDS = ("histograms", "scalars", "images", "mixed")
BUCKETS = 30
START = 1_600_000_000.0


def _fill(value: Any, kind: str, i: int, step: int, rng: np.random.Generator, png: bytes) -> None:
    """Make ``value`` (a ``Summary.Value`` of either protobuf package) the ``i``-th of its kind."""
    if kind == "mixed":
        kind = KINDS[i % 3]
    value.tag = f"layer{i:05d}/{kind}"
    if kind == "scalars":
        value.simple_value = float(rng.normal()) + step
    elif kind == "histograms":
        h = value.histo
        h.min, h.max, h.num = -1.0, 1.0, 100.0
        h.sum, h.sum_squares = float(i), 30.0 + step
        h.bucket_limit.extend(np.linspace(-1.0, 1.0, BUCKETS).tolist())
        h.bucket.extend(rng.integers(0, 10, BUCKETS).astype(float).tolist())
    elif kind == "images":
        img = value.image
        img.height, img.width, img.colorspace = 4, 4, 3
        img.encoded_image_string = png
    else:
        raise ValueError(f"unknown kind {kind!r}: one of {KINDS}")


def _png(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    return encode_png(rng.integers(0, 256, (4, 4, 3), dtype=np.uint8))


def write_merged_run(run_dir: Path, values: int, *, steps: int = 3, kind: str = "histograms",
                     writer: str = "tbnb", seed: int = 0) -> Path:
    """One run of ``steps`` events of ``values`` values each; returns the event file's path."""
    rng = np.random.default_rng(seed)
    png = _png(seed)
    if writer == "tbnb":
        from tbnb.format.proto import event_pb2

        with EventWriter(run_dir, start_time=START) as w:
            for step in range(steps):
                event = event_pb2.Event(wall_time=START + 1 + step, step=step)
                for i in range(values):
                    _fill(event.summary.value.add(), kind, i, step, rng, png)
                w.add_event(event)
            return w.path
    if writer == "tensorboard":
        from tensorboard.compat.proto import event_pb2 as tb_event_pb2
        from tensorboard.summary.writer.record_writer import RecordWriter

        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / f"events.out.tfevents.{int(START)}.merged"
        with open(path, "wb") as fh:
            records = RecordWriter(fh)
            records.write(tb_event_pb2.Event(wall_time=START, file_version="brain.Event:2").SerializeToString())
            for step in range(steps):
                event = tb_event_pb2.Event(wall_time=START + 1 + step, step=step)
                for i in range(values):
                    _fill(event.summary.value.add(), kind, i, step, rng, png)
                records.write(event.SerializeToString())
            records.flush()
        return path
    raise ValueError(f"unknown writer {writer!r}: 'tbnb' or 'tensorboard'")
