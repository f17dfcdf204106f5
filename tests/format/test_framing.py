"""Tests for ``tbnb.format.framing``: ``encode_record`` frames bytes as the reader expects them."""

from __future__ import annotations

import struct

import crc32c
import numpy as np

from tbnb.format.crc import masked_crc32c
from tbnb.reader.records.records import frame
from tbnb.writer import encode_record


def test_layout_is_length_crc_data_crc() -> None:
    data = b"\x00 any payload, not necessarily an Event \xff"
    rec = encode_record(data)
    assert len(rec) == 8 + 4 + len(data) + 4
    assert struct.unpack_from("<Q", rec)[0] == len(data)
    assert struct.unpack_from("<I", rec, 8)[0] == masked_crc32c(rec[:8])
    assert rec[12:-4] == data
    assert struct.unpack_from("<I", rec, 12 + len(data))[0] == masked_crc32c(data)
    # The mask is applied: a plain CRC-32C would let a reader mistake data for a header.
    assert struct.unpack_from("<I", rec, 12 + len(data))[0] != crc32c.crc32c(data)


def test_records_frame_back_to_the_same_payloads() -> None:
    rng = np.random.default_rng(0)
    payloads = [b""] + [rng.bytes(int(n)) for n in rng.integers(1, 500, 30)]
    buf = b"".join(map(encode_record, payloads))
    framed = frame(buf)
    assert framed.problems == [] and framed.consumed == len(buf)
    assert [buf[s : s + n] for s, n in zip(framed.starts, framed.lengths)] == payloads
