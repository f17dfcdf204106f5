"""TFRecord framing: damage skipped and reported, resumable."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tbnb.format.crc import masked_crc32c
from tbnb.reader.records import records
from tbnb.reader.records.records import frame
from tbnb.writer import encode_record


def payloads(n: int) -> list[bytes]:
    return [f"record {i} ".encode() * (i % 7 + 1) for i in range(n)]


def test_frames_every_record() -> None:
    data = payloads(20)
    buf = b"".join(map(encode_record, data))
    f = frame(buf)
    assert [buf[s : s + n] for s, n in zip(f.starts, f.lengths)] == data
    assert f.consumed == len(buf) and f.problems == []


def test_truncated_last_record_waits_and_resumes() -> None:
    data = payloads(5)
    buf = b"".join(map(encode_record, data))
    for cut in range(len(buf) - len(encode_record(data[-1])) + 1, len(buf)):
        f = frame(buf[:cut])
        assert len(f.starts) == 4 and f.problems == []
        rest = frame(buf[f.consumed :], base=f.consumed)
        assert [buf[f.consumed + s : f.consumed + s + n] for s, n in zip(rest.starts, rest.lengths)] == [data[-1]]


def test_data_crc_mismatch_skips_only_that_record() -> None:
    data = payloads(6)
    parts = [bytearray(encode_record(d)) for d in data]
    parts[2][14] ^= 0x40  # a data byte of record 2
    buf = b"".join(parts)
    f = frame(buf, "f")
    got = [buf[s : s + n] for s, n in zip(f.starts, f.lengths)]
    assert got == data[:2] + data[3:]
    assert len(f.problems) == 1 and "data CRC" in f.problems[0].reason
    assert f.problems[0].offset == sum(map(len, parts[:2]))


def test_bad_length_crc_resynchronises_on_next_header() -> None:
    data = payloads(6)
    parts = [bytearray(encode_record(d)) for d in data]
    parts[1][9] ^= 0x01  # the length CRC of record 1
    buf = b"".join(parts)
    f = frame(buf, "f")
    got = [buf[s : s + n] for s, n in zip(f.starts, f.lengths)]
    assert got == [data[0]] + data[2:]
    assert len(f.problems) == 1 and "length CRC" in f.problems[0].reason


def test_garbage_between_records_is_skipped() -> None:
    data = payloads(4)
    buf = encode_record(data[0]) + b"\x00\xff garbage \x13" * 50 + b"".join(map(encode_record, data[1:]))
    f = frame(buf, "f")
    assert [buf[s : s + n] for s, n in zip(f.starts, f.lengths)] == data
    assert len(f.problems) == 1


def test_absurd_length_with_valid_crc_is_never_allocated() -> None:
    header = struct.pack("<Q", 1 << 40)
    bogus = header + struct.pack("<I", masked_crc32c(header)) + b"x" * 10
    buf = bogus + encode_record(b"after")
    f = frame(buf, "f")
    assert [buf[s : s + n] for s, n in zip(f.starts, f.lengths)] == [b"after"]
    assert "impossible record length" in f.problems[0].reason


@pytest.mark.parametrize("blob", [b"", b"hello world, not an event file\n" * 40, bytes(range(256)) * 30])
def test_non_event_bytes_give_problems_not_records(blob: bytes) -> None:
    f = frame(blob, "f")
    assert len(f.starts) == 0
    assert (f.problems != []) == (len(blob) >= records.HEADER_SIZE)
    assert f.consumed <= len(blob)


def test_random_corruption_never_crashes_and_keeps_intact_records() -> None:
    rng = np.random.default_rng(7)
    data = [rng.bytes(int(n)) for n in rng.integers(1, 200, 200)]
    clean = b"".join(map(encode_record, data))
    for trial in range(30):
        buf = bytearray(clean)
        hits = rng.integers(0, len(buf), 3)
        for h in hits:
            buf[h] ^= int(rng.integers(1, 256))
        f = frame(bytes(buf), "f")
        got = {bytes(buf[s : s + n]) for s, n in zip(f.starts, f.lengths)}
        # every record the damage did not touch is found again
        pos, untouched = 0, []
        for d in data:
            end = pos + len(d) + 16
            if not any(pos <= h < end for h in hits):
                untouched.append(d)
            pos = end
        assert set(untouched) <= got, trial
        assert len(got - set(data)) == 0  # nothing invented
