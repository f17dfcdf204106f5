"""The read buffer is reused from read to read: what a load keeps must be copied out of it."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

import tbnb
from tbnb.reader.files.read_buffer import ReadBuffer
from tbnb.testing import EventWriter


def test_reads_grow_and_end_short() -> None:
    data = bytes(range(256)) * 100
    fh = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]
    buffer = ReadBuffer()
    first = buffer.read(fh, 1000)
    assert first.tobytes() == data[:1000]
    second = buffer.read(fh, 30000)  # grows the buffer
    assert second.tobytes() == data[1000:31000]
    assert buffer.read(fh, 5000).tobytes() == data[31000:]  # a short read at the end
    assert len(buffer.read(fh, 10)) == 0


def test_kept_records_survive_the_next_runs_reads(tmp_path: Path) -> None:
    """One thread, one buffer for all runs: every kept record is its own bytes, and decodes to
    what its run wrote after later runs have overwritten the buffer."""
    rng = np.random.default_rng(1)
    written = {}
    for run in ("a", "b", "c"):
        data = [rng.normal(loc=i, size=40) for i in range(300)]
        written[run] = data
        with EventWriter(tmp_path / run) as w:
            for i, d in enumerate(data):
                w.add_histogram("h", d, i)
                w.add_text("t", f"{run} step {i}", i)
    lg = tbnb.Logdir(tmp_path, threads=1)
    lg.reload()
    for run in ("a", "b", "c"):
        items = lg._runs[run].data.sampled("h")
        assert items and all(type(it.payload.data) is bytes for it in items)
        hist = lg.tensors(run, "h")
        for step, value in zip(hist.step.tolist(), hist.values):
            assert value[:, 2].sum() == len(written[run][step])  # bucket counts add up to the sample
        text = lg.tensors(run, "t")
        assert [v.reshape(-1)[0] for v in text.values] == [f"{run} step {s}".encode() for s in text.step.tolist()]
