"""Computed proposals for logs that repeat a pattern of record lengths (``frame_periodic``): the
bulk framer must still give exactly what ``records.frame`` gives, on generated logs whose pattern
changes (the step's varint grows at 128 and 16,384, another kind of record comes in, a run
restarts), that are cut short or damaged; and on a clean log the pattern must carry the framing
(the search of every byte, ``_propose``, then sees almost nothing)."""

from __future__ import annotations

import struct
from collections.abc import Iterable

import numpy as np
import pytest

from tbnb.format.proto import event_pb2, summary_pb2
from tbnb.reader.records import frame_bulk as frame_bulk_module
from tbnb.reader.records import frame_periodic
from tbnb.reader.records.frame_bulk import _LENGTH_CRC, frame_bulk
from tbnb.writer import encode_record

from .test_bulk import assert_same_framing, damage


def scalar_event(step: int, tag: str, value: float, tf2: bool, wall: float) -> bytes:
    v = summary_pb2.Summary.Value(tag=tag)
    if tf2:
        v.tensor.dtype = 1
        v.tensor.float_val.append(value)
        v.metadata.plugin_data.plugin_name = "scalars"
    else:
        v.simple_value = value
    return encode_record(event_pb2.Event(wall_time=wall, step=step, summary=summary_pb2.Summary(value=[v])).SerializeToString())


def periodic_log(rng: np.random.Generator, steps: Iterable[int], tags: int, *, tf2: bool = False,
                 odd_every: int = 0) -> bytes:
    """A scalar log: a file_version, then every tag at every step (tags of several lengths);
    with ``odd_every``, a text record every that many steps (a break in the pattern)."""
    names = [f"g{t % 3}/{'m' * (1 + t % 4)}_{t}" for t in range(tags)]
    out = [encode_record(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())]
    for step in steps:
        for name in names:
            out.append(scalar_event(step, name, float(rng.normal()), tf2, 1.6e9 + step))
        if odd_every and step % odd_every == odd_every - 1:
            text = event_pb2.Event(wall_time=1.6e9, step=step, summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag="notes", simple_value=1.0, node_name="x" * int(rng.integers(1, 9)))]))
            out.append(encode_record(text.SerializeToString()))
    return b"".join(out)


@pytest.fixture
def any_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a pattern carry the framing however few bytes it covers (these logs are small)."""
    monkeypatch.setattr(frame_periodic, "SHORT_ATTEMPT_BYTES", 0)


CASES = [
    {"steps": range(400), "tags": 5},  # the step's varint grows at 128
    {"steps": range(16_300, 16_500), "tags": 3},  # and at 16,384
    {"steps": range(300), "tags": 16, "tf2": True},
    {"steps": range(300), "tags": 7, "odd_every": 37},
    {"steps": range(200), "tags": 1},
    {"steps": range(100), "tags": 40},  # a pattern longer than MAX_PERIOD: searched for
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("seed", range(3))
def test_periodic_logs_frame_as_the_sequential_framer_does(any_pattern: None, case: int, seed: int) -> None:
    rng = np.random.default_rng(1000 * case + seed)
    buf = periodic_log(rng, **CASES[case])
    restarted = buf + periodic_log(rng, **{**CASES[case], "steps": range(50, 90)})  # a restart after
    for data in (buf, restarted):
        assert_same_framing(data)
        assert_same_framing(data[: len(data) - int(rng.integers(1, 200))])  # a record being written
        for _ in range(4):
            assert_same_framing(damage(rng, data))
        flipped = bytearray(data)
        flipped[int(rng.integers(0, len(data) // 16)) * 16] ^= 0x04  # in a length, a CRC or the data
        assert_same_framing(bytes(flipped))


@pytest.mark.parametrize("seed", range(4))
def test_the_chain_is_sound_wherever_it_stops(any_pattern: None, seed: int) -> None:
    """What ``periodic_chain`` proposes passes the checks the search's proposals pass: each head
    holds its length and that length's CRC, its record is complete, and each follows the last."""
    rng = np.random.default_rng(seed)
    buf = damage(rng, periodic_log(rng, range(300), int(rng.integers(1, 20))))
    a = np.frombuffer(buf, dtype=np.uint8)
    heads, lengths, end = frame_periodic.periodic_chain(a, memoryview(buf), _LENGTH_CRC)
    assert len(heads) > 0 and heads[0] == 0
    assert np.array_equal(heads[1:], heads[:-1] + 16 + lengths[:-1])
    assert end == heads[-1] + 16 + lengths[-1] <= len(buf)
    for h, n in zip(heads.tolist(), lengths.tolist()):
        stored, crc = struct.unpack_from("<QI", buf, h)
        assert stored == n and crc == _LENGTH_CRC[n]


@pytest.mark.parametrize("tf2", [False, True])
def test_a_clean_log_is_proposed_by_its_pattern(monkeypatch: pytest.MonkeyPatch, tf2: bool) -> None:
    """Across the step's varint growing twice, the pattern proposes every record: the byte
    search is handed only the last bytes of the buffer, after the last whole record."""
    searched: list[int] = []
    real = frame_bulk_module._propose
    monkeypatch.setattr(frame_bulk_module, "_propose", lambda a: searched.append(len(a)) or real(a))
    rng = np.random.default_rng(7)
    steps = [*range(128), *range(128, 16_384, 61), *range(16_384, 16_700)]
    buf = periodic_log(rng, steps, 12, tf2=tf2)
    assert len(buf) > 4 * frame_periodic.SHORT_ATTEMPT_BYTES
    cut = buf[: len(buf) - 30]  # the last record incomplete
    framed = frame_bulk(cut, "f", 0)
    assert framed.problems == [] and len(framed.starts) == 1 + 12 * len(steps) - 1
    assert sum(searched) < 200, searched
    assert_same_framing(cut)


def test_many_small_files_framed_together_are_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small logs one after another (a sweep's batch): the pattern of the first file covers too
    little to pay for its checks, and the whole buffer is searched, as before."""
    searched: list[int] = []
    real = frame_bulk_module._propose
    monkeypatch.setattr(frame_bulk_module, "_propose", lambda a: searched.append(len(a)) or real(a))
    rng = np.random.default_rng(11)
    buf = b"".join(periodic_log(rng, range(100), 10) for _ in range(40))
    assert len(buf) > 4 * frame_periodic.SHORT_ATTEMPT_BYTES
    a = np.frombuffer(buf, dtype=np.uint8)
    _, _, end = frame_periodic.periodic_chain(a, memoryview(buf), _LENGTH_CRC)
    assert 0 < end < frame_periodic.SHORT_ATTEMPT_BYTES  # one attempt: the first file
    framed = frame_bulk(buf, "f", 0)
    assert len(framed.starts) == 40 * (1 + 100 * 10) and searched == [len(buf)]
    assert_same_framing(buf)


def test_a_pattern_longer_than_the_longest_looked_for_goes_to_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    searched: list[int] = []
    real = frame_bulk_module._propose
    monkeypatch.setattr(frame_bulk_module, "_propose", lambda a: searched.append(len(a)) or real(a))
    buf = periodic_log(np.random.default_rng(3), range(60), frame_periodic.MAX_PERIOD + 9)
    framed = frame_bulk(buf, "f", 0)
    assert len(framed.starts) == 1 + 60 * (frame_periodic.MAX_PERIOD + 9)
    assert sum(searched) > len(buf) // 2  # no pattern found: searched as before
    assert_same_framing(buf)


@pytest.mark.parametrize("back", range(1, 7))
def test_a_damaged_header_in_the_last_unfinished_period(any_pattern: None, back: int) -> None:
    """The buffer ends inside a period: the records of it that are there are proposed one by
    one, each header checked (a damaged one among them is not taken on trust)."""
    rng = np.random.default_rng(back)
    buf = periodic_log(rng, range(400), 7)
    a = np.frombuffer(buf, dtype=np.uint8)
    heads, _, _ = frame_periodic.periodic_chain(a, memoryview(buf), _LENGTH_CRC)
    cut = bytearray(buf[: int(heads[-1]) + 10])  # the last record unfinished
    cut[int(heads[-1 - back])] ^= 0x01  # the length of one of the records before it
    assert_same_framing(bytes(cut))
    assert_same_framing(bytes(cut[: int(heads[-1])]))
