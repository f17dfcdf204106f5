"""Small logs framed in bulk (as they are when many small files are framed together, and with
``MIN_BULK_BYTES`` lowered) give exactly what ``records.frame`` gives: a differential test on
generated logs, clean, cut short mid-record and damaged."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.format.proto import event_pb2, summary_pb2
from tbnb.reader.records import frame_bulk as frame_bulk_module
from tbnb.reader.records.frame_bulk import MIN_BULK_BYTES, frame_bulk
from tbnb.writer import encode_record

from .test_bulk import assert_same_framing, damage, random_log


@pytest.fixture(autouse=True)
def bulk_from_32_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frame_bulk_module, "MIN_BULK_BYTES", 32)


def scalar_log(steps: int, tags: int) -> bytes:
    """A small TF1 scalar log as a many-runs sweep writes it: a file_version, then every tag
    at every step."""
    records = [encode_record(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())]
    for step in range(steps):
        for t in range(tags):
            value = summary_pb2.Summary.Value(tag=f"tag_{t}", simple_value=0.5 * step + t)
            event = event_pb2.Event(wall_time=1.6e9 + step, step=step, summary=summary_pb2.Summary(value=[value]))
            records.append(encode_record(event.SerializeToString()))
    return b"".join(records)


def test_a_small_scalar_log_is_proposed_in_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    """No sequential framing at all for a clean small log: every record is proposed, chained
    and checked in bulk (the rows gathered for the CRC check are handed on to the decoder)."""
    buf = scalar_log(50, 5)
    assert len(buf) < MIN_BULK_BYTES
    calls: list[int] = []
    real = frame_bulk_module.frame
    monkeypatch.setattr(frame_bulk_module, "frame", lambda *a, **k: calls.append(1) or real(*a, **k))
    framed = frame_bulk(buf, "f", 0)
    assert calls == []
    assert len(framed.starts) == 251 and framed.consumed == len(buf) and framed.problems == []
    assert sum(len(starts) for starts, _ in framed.rows.values()) >= 245
    assert_same_framing(buf)


@pytest.mark.parametrize("seed", range(40))
def test_small_buffers_frame_as_the_sequential_framer(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    buf = random_log(rng, int(rng.integers(30, 600)))[: MIN_BULK_BYTES - 1]
    assert_same_framing(buf)  # (cut at the end: an incomplete record waits for the writer)
    assert_same_framing(damage(rng, buf))
    assert_same_framing(damage(rng, damage(rng, buf)))
    small = scalar_log(int(rng.integers(1, 60)), int(rng.integers(1, 8)))
    assert_same_framing(small)
    assert_same_framing(small[: int(rng.integers(0, len(small)))])
    assert_same_framing(damage(rng, small))


@pytest.mark.parametrize("size", [0, 1, 12, 31, 32, 33, 1000, 4000])
def test_sizes_around_the_thresholds(size: int) -> None:
    buf = scalar_log(40, 3)[:size]
    assert_same_framing(buf)
    assert_same_framing(bytes(reversed(buf)))
