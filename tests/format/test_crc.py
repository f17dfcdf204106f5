"""Masked CRC-32C: vectors from TensorBoard's format, and the vectorised forms agree with crc32c."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tbnb.format import crc
from tbnb.format.crc import crc_rows, mask, mask_array, masked_crc32c
from tbnb.writer import encode_record


def test_crc_vectors_from_the_format() -> None:
    import crc32c

    assert crc32c.crc32c(bytes(32)) == 0x8A9136AA
    assert masked_crc32c(b"\x1a\x11CRC test, one two") == 0x5794D08A
    assert masked_crc32c(struct.pack("<Q", 24)) == 0x224B7FA3


def test_vectorised_header_check_agrees_with_the_scalar_one() -> None:
    rng = np.random.default_rng(1)
    good = b"".join(encode_record(rng.bytes(int(n))) for n in rng.integers(0, 300, 50))
    buf = np.frombuffer(good + rng.bytes(200), dtype=np.uint8)
    positions = np.arange(len(buf) - 12)
    fast = crc.header_crc_ok(buf, positions)
    slow = [masked_crc32c(bytes(buf[p : p + 8])) == struct.unpack_from("<I", buf, p + 8)[0] for p in positions]
    assert fast.tolist() == slow
    assert fast.sum() >= 50


def test_the_array_mask_is_the_mask() -> None:
    crcs = np.random.default_rng(2).integers(0, 1 << 32, 1000, dtype=np.uint64).astype(np.uint32)
    assert mask_array(crcs).tolist() == [mask(int(c)) for c in crcs.tolist()]


@pytest.mark.parametrize("length", [1, 2, 7, 8, 55, 56, 200, 255, 256])
def test_crc_rows_match_crc32c_per_record(length: int) -> None:
    """The numpy CRC of many records at once is crc32c of each, record by record, for odd and
    even lengths up to the widest, over more rows than one chunk."""
    import crc32c

    rng = np.random.default_rng(length)
    m = crc._CHUNK + 123
    width = length + (length & 1)
    rows = np.zeros((m, width), dtype=np.uint8)
    rows[:, width - length :] = rng.integers(0, 256, (m, length), dtype=np.uint8)
    want = [crc32c.crc32c(bytes(r[width - length :])) for r in rows]
    assert crc_rows(rows, length).tolist() == want
