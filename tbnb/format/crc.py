"""Checksums as used by TFRecords: masked CRC-32C, of one record or of many at once.

Every event-file record carries the masked CRC-32C of its length and of its data. ``mask`` and
``mask_array`` are the one statement of TFRecord's (LevelDB's) mask; ``masked_crc32c`` checks
one record, ``header_crc_ok`` many 8-byte length fields at once (resynchronising after damage),
and ``crc_rows`` the data of many equal-length records at once (the bulk framer).

``crc_rows`` avoids a ``crc32c`` call per record, whose Python overhead outweighs everything
else the reader does to a small scalar record. CRC-32C is affine in its input, so the CRC of
an L-byte record is ``~(R0(L) ^ XOR_k T[d_k][pair_k])``: ``pair_k`` is the k-th little-endian
byte pair of the record, ``d_k`` the number of bytes after it, ``T[d]`` a 65,536-entry table of
what a pair contributes from that distance and ``R0(L)`` the register after L zero bytes. So a
group of equal-length records costs one table gather per byte pair and an XOR, all in numpy,
column by column: each column reads one 256 KiB table, which stays in cache (gathering all
columns at once from all tables and reducing across them is slower); a column whose pair is
the same in every row of a chunk (half or more of a scalar record's: its tag, the high bytes of
its wall time) is one look-up for the chunk. The result is the exact CRC of every record, not an
aggregate.
"""

from __future__ import annotations

import threading

import crc32c as _crc32c
import numpy as np

from .byte_columns import byte_extremes

#: The constant TFRecord's mask adds after rotating the CRC right by 15 bits.
MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_INIT = np.uint32(_U32)
#: Records whose padded width exceeds this are checked one ``crc32c`` call each.
MAX_WIDTH = 256
#: Rows per chunk: the running XOR and each column's gathered values stay in cache.
_CHUNK = 1 << 14


def mask(crc: int) -> int:
    """Apply TFRecord's (LevelDB's) CRC mask: rotate right by 15 bits and add a constant."""
    return ((((crc >> 15) | (crc << 17)) & _U32) + MASK_DELTA) & _U32


def mask_array(crc: np.ndarray) -> np.ndarray:
    """``mask`` on an array of CRCs (uint32 arithmetic wraps as ``& 0xFFFFFFFF`` does)."""
    crc = crc.astype(np.uint32)
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(MASK_DELTA)


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """Return the masked CRC-32C of ``data``, as stored in event files."""
    return mask(_crc32c.crc32c(data))


def _make_table() -> np.ndarray:
    """The byte-at-a-time CRC-32C (Castagnoli, reflected) table."""
    poly = 0x82F63B78
    base = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        base[i] = c
    return base


TABLE = _make_table()


def header_crc_ok(buf: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """For each position p, whether ``buf[p+8:p+12]`` is the masked CRC of ``buf[p:p+8]``.

    ``buf`` is a uint8 array and every position must have 12 bytes after it. Used to
    resynchronise after a damaged header without a Python loop over every byte position.
    """
    crc = np.full(positions.shape, _U32, dtype=np.uint32)
    for k in range(8):
        byte = buf[positions + k].astype(np.uint32)
        crc = TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= np.uint32(_U32)
    stored = (
        buf[positions + 8].astype(np.uint32)
        | (buf[positions + 9].astype(np.uint32) << 8)
        | (buf[positions + 10].astype(np.uint32) << 16)
        | (buf[positions + 11].astype(np.uint32) << 24)
    )
    return mask_array(crc) == stored


def _zero_bytes(reg: np.ndarray, count: int) -> np.ndarray:
    """Advance CRC registers over ``count`` zero bytes."""
    for _ in range(count):
        reg = TABLE[reg & 0xFF] ^ (reg >> 8)
    return reg


def _pair_table() -> np.ndarray:
    v = np.arange(65536, dtype=np.uint32)
    reg = TABLE[v & 0xFF]  # first byte from a zero register
    return TABLE[(reg ^ (v >> 8)) & 0xFF] ^ (reg >> 8)


class _Tables:
    """Pair tables for even distances 0, 2, 4, ...: row ``d // 2`` holds distance ``d``.

    Grown on demand (scalar records need about 30 rows, 256 KiB each) in one array made for all
    the rows ``MAX_WIDTH`` needs, so that one ``np.take`` serves every column of a group and
    growing never copies the rows made before: the array's pages are only taken as rows are
    written (a copy made each growth cost more, in page faults, than making the rows). A row
    is made from two 256-entry tables, what the pair's low byte and its high byte contribute
    (the CRC is linear: a pair contributes the XOR of what its two bytes do), by one outer XOR.
    """

    def __init__(self) -> None:
        self._store = np.empty((MAX_WIDTH // 2, 65536), dtype=np.uint32)
        self._store[0] = _pair_table()
        self.rows = self._store[:1]
        self._low, self._high = self.rows[0, :256].copy(), self.rows[0, ::256].copy()
        self.zero_registers: dict[int, np.uint32] = {}
        self._lock = threading.Lock()  # runs are reloaded on several threads

    def upto(self, distance: int) -> np.ndarray:
        need = distance // 2 + 1
        if need > len(self.rows):
            with self._lock:
                self._grow(need)
        return self.rows

    def _grow(self, need: int) -> None:
        have = len(self.rows)
        if need > have:
            low, high = self._low, self._high
            for i in range(have, need):
                low, high = _zero_bytes(low, 2), _zero_bytes(high, 2)
                # entry hi << 8 | lo of the row: what pair (lo, hi) contributes
                np.bitwise_xor(high[:, None], low[None, :], out=self._store[i].reshape(256, 256))
            self._low, self._high = low, high
            self.rows = self._store[:need]

    def zero_register(self, length: int) -> np.uint32:
        reg = self.zero_registers.get(length)
        if reg is None:
            reg = np.uint32(_zero_bytes(np.array([_INIT], dtype=np.uint32), length)[0])
            self.zero_registers[length] = reg
        return reg


_tables = _Tables()

#: The record width (bytes) the tables are grown for ahead of a first read (``prepare``): a
#: scalar Event with a tag of up to ~30 characters.
PREPARED_WIDTH = 64


def prepare(width: int = PREPARED_WIDTH) -> None:
    """Grow the tables now for records up to ``width`` bytes, which a first read of a scalar
    log would otherwise grow (~20-60 ms, on the way to the first cards): ``%load_ext tbnb``
    calls it, well before a Board reads."""
    _tables.upto(min(int(width), MAX_WIDTH) - 2)


def crc_rows(rows: np.ndarray, length: int, width: int | None = None) -> np.ndarray:
    """Unmasked CRC-32C of the first ``width`` bytes (all, by default) of each row of ``rows``
    ([m, W'] uint8, its last axis contiguous; ``width`` even, at most ``MAX_WIDTH``).

    Each record is right-aligned in its ``width``: the ``width - length`` leading bytes (0 or 1)
    must be zero, so that they contribute nothing. A byte pair that is the same in every row
    of a chunk (a log's tag and metadata, the high bytes of its wall times and steps) is one
    table look-up for the chunk instead of one a row; the rows are searched for such pairs when
    ``rows`` is C-contiguous (the bulk framer gathers each group's records and their stored CRCs
    into such an array, hence ``width``).
    """
    m, wide = rows.shape
    width = wide if width is None else int(width)
    if width % 2 or width > MAX_WIDTH or width > wide:
        raise ValueError(f"rows of width {width}: need an even width up to {MAX_WIDTH} (and {wide})")
    tables = _tables.upto(width - 2)
    last = (width - 2) // 2  # pair k of a row has width - 2 - 2k bytes after it: table row last - k
    search = rows.flags.c_contiguous
    out = np.empty(m, dtype=np.uint32)
    for lo in range(0, m, _CHUNK):
        part = rows[lo : lo + _CHUNK]
        pairs = part[:, :width].view("<u2")
        same = _same_pairs(part, width) if search and len(part) >= _SEARCH_MIN_ROWS else None
        acc = np.zeros(len(part), dtype=np.uint32)
        common = 0
        first = pairs[0].tolist()
        for k in range(width // 2):
            if same is not None and same[k]:
                common ^= int(tables[last - k, first[k]])
            else:
                acc ^= tables[last - k].take(pairs[:, k])
        acc ^= np.uint32(common)
        out[lo : lo + _CHUNK] = acc
    return ~(_tables.zero_register(length) ^ out)


#: Rows per chunk from which ``crc_rows`` looks for byte pairs the same in every row: the search
#: costs about three table look-ups a row, repaid by the first few pairs found.
_SEARCH_MIN_ROWS = 256


def _same_pairs(part: np.ndarray, width: int) -> list[bool]:
    """Whether each byte pair of the first ``width`` bytes is the same in every row of ``part``
    ([n, W'] uint8, C-contiguous): both its bytes' least and greatest values agree."""
    low, high = byte_extremes(part)
    same = low[:width] == high[:width]
    return (same[0::2] & same[1::2]).tolist()
