"""Masked CRC-32C: vectors from TensorBoard's format, and the vectorised forms agree with crc32c."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tbnb.format import crc
from tbnb.format.byte_columns import FOLD
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


@pytest.mark.parametrize("seed", range(12))
def test_crc_rows_of_records_alike_match_crc32c_per_record(seed: int) -> None:
    """Records that share most of their bytes (a log's tag, the high bytes of its wall times),
    whose shared byte pairs ``crc_rows`` looks up once a chunk: the CRC of each is still crc32c's,
    whichever columns are shared (some only within a chunk, one byte of a pair only), with
    columns past ``width`` that are not part of the record, over row counts around the search's
    and the fold's limits, in a C-contiguous array and in a view that is not."""
    import crc32c

    rng = np.random.default_rng(seed)
    length = int(rng.integers(1, crc.MAX_WIDTH + 1))
    width = length + (length & 1)
    extra = int(rng.integers(0, 9))
    m = int(rng.choice([1, FOLD - 1, crc._SEARCH_MIN_ROWS - 1, crc._SEARCH_MIN_ROWS + FOLD + 3,
                        crc._CHUNK + int(rng.integers(1, 3000))]))
    rows = rng.integers(0, 256, (m, width + extra), dtype=np.uint8)
    template = rng.integers(0, 256, width + extra, dtype=np.uint8)
    shared = rng.random(width + extra) < rng.random()  # each byte column shared by every row, or not
    rows[:, shared] = template[shared]
    if m > crc._CHUNK:  # shared within the first chunk only
        column = int(rng.integers(0, width))
        rows[: crc._CHUNK, column] = template[column]
        rows[crc._CHUNK :, column] = rng.integers(0, 256, m - crc._CHUNK, dtype=np.uint8)
    rows[:, : width - length] = 0
    want = [crc32c.crc32c(bytes(r[width - length : width])) for r in rows]
    assert crc_rows(rows, length, width).tolist() == want
    assert crc_rows(rows[:, :width], length).tolist() == want  # not C-contiguous unless extra == 0
    assert crc_rows(np.ascontiguousarray(rows[:, :width]), length).tolist() == want


def test_shared_byte_pairs_are_found_exactly() -> None:
    """The search finds a pair shared only when both its bytes are the same in every row."""
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 256, (1000, 12), dtype=np.uint8)
    rows[:, 0:2] = 7  # pair 0 shared
    rows[:, 2] = 7  # pair 1: one byte shared
    rows[:, 4:6] = 9
    rows[999, 5] = 8  # pair 2: all rows but the last
    rows[:, 10:12] = 3  # pair 5, past width 10: not asked
    assert crc._same_pairs(rows, 10) == [True, False, False, False, False]
    assert crc._same_pairs(rows, 12) == [True, False, False, False, False, True]
