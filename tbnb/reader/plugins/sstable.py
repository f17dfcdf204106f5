"""LevelDB's table format (an "SSTable"), read whole: the layout of a TF checkpoint's ``.index``.

TensorFlow writes its checkpoint index with its copy of LevelDB's table builder (no filter block,
an empty metaindex). Reading it needs only the footer, the block trailers and the prefix-compressed
entries, so we read it here instead of depending on TensorFlow or a LevelDB binding. Every block's
masked CRC-32C is verified, as TensorFlow does, so a damaged file is an error naming the block
rather than wrong tensors. Snappy blocks (type 1) are decoded although TensorFlow's bundle writer
never compresses: another writer of the same format may.
"""

from __future__ import annotations

import struct

import crc32c

FOOTER_SIZE = 48
MAGIC = 0xDB4775248B80FB57
TRAILER_SIZE = 5
_MASK_DELTA = 0xA282EAD8


class TableError(ValueError):
    """The bytes are not a well-formed table (bad footer, block, checksum or entry)."""


def masked_crc32c(data: bytes) -> int:
    """LevelDB's masked CRC-32C: a CRC stored next to the data it covers is rotated and offset, so
    that the CRC of a string holding CRCs stays well distributed."""
    c = crc32c.crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def read_varint(data: bytes, pos: int, limit: int | None = None) -> tuple[int, int]:
    """(value, next position) of the base-128 varint at ``pos``; a truncated one is an error."""
    limit = len(data) if limit is None else limit
    result = shift = 0
    while True:
        if pos >= limit or shift > 63:
            raise TableError(f"truncated or overlong varint at byte {pos}")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def snappy_decompress(data: bytes) -> bytes:
    """Snappy's raw format: a varint length, then literals and back-references."""
    length, pos = read_varint(data, 0)
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            size = tag >> 2
            if size >= 60:
                extra = size - 59
                size = int.from_bytes(data[pos : pos + extra], "little")
                pos += extra
            size += 1
            if pos + size > len(data):
                raise TableError("snappy literal runs past the block")
            out += data[pos : pos + size]
            pos += size
            continue
        if kind == 1:
            size = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            size = (tag >> 2) + 1
            width = 2 if kind == 2 else 4
            offset = int.from_bytes(data[pos : pos + width], "little")
            pos += width
        if offset == 0 or offset > len(out):
            raise TableError("snappy copy refers before the start of the block")
        for _ in range(size):  # overlapping copies repeat bytes, so copy one at a time
            out.append(out[-offset])
    if len(out) != length:
        raise TableError(f"snappy block decodes to {len(out)} bytes, header says {length}")
    return bytes(out)


def read_handle(data: bytes, pos: int, limit: int | None = None) -> tuple[int, int, int]:
    """(offset, size, next position) of a BlockHandle: two varints."""
    offset, pos = read_varint(data, pos, limit)
    size, pos = read_varint(data, pos, limit)
    return offset, size, pos


def read_block(table: bytes, offset: int, size: int, what: str) -> bytes:
    """A block's contents, its trailer's CRC verified and snappy undone."""
    end = offset + size
    if offset < 0 or end + TRAILER_SIZE > len(table):
        raise TableError(f"{what} block [{offset}, {end}) runs past the end of the file ({len(table)} bytes)")
    contents = table[offset:end]
    kind = table[end]
    (stored,) = struct.unpack_from("<I", table, end + 1)
    if masked_crc32c(table[offset : end + 1]) != stored:
        raise TableError(f"{what} block at byte {offset}: CRC-32C mismatch (damaged file)")
    if kind == 0:
        return contents
    if kind == 1:
        return snappy_decompress(contents)
    raise TableError(f"{what} block at byte {offset}: unknown compression type {kind}")


def block_entries(block: bytes, what: str) -> list[tuple[bytes, bytes]]:
    """The (key, value) entries of a block, keys rebuilt from their shared prefixes."""
    if len(block) < 4:
        raise TableError(f"{what} block too short for its restart count")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise TableError(f"{what} block: {num_restarts} restarts do not fit in {len(block)} bytes")
    entries: list[tuple[bytes, bytes]] = []
    key = b""
    pos = 0
    while pos < limit:
        shared, pos = read_varint(block, pos, limit)
        non_shared, pos = read_varint(block, pos, limit)
        value_len, pos = read_varint(block, pos, limit)
        if shared > len(key) or pos + non_shared + value_len > limit:
            raise TableError(f"{what} block: malformed entry at byte {pos}")
        key = key[:shared] + block[pos : pos + non_shared]
        pos += non_shared
        entries.append((key, block[pos : pos + value_len]))
        pos += value_len
    return entries


def read_table(table: bytes) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of a table, in file order (which is key order)."""
    if len(table) < FOOTER_SIZE:
        raise TableError(f"{len(table)} bytes: too short for a table footer ({FOOTER_SIZE} bytes)")
    footer = table[-FOOTER_SIZE:]
    low, high = struct.unpack_from("<II", footer, 40)
    if (high << 32) | low != MAGIC:
        raise TableError("not a table: the footer's magic number is wrong")
    _, _, pos = read_handle(footer, 0, 40)  # the metaindex: TensorFlow writes no meta blocks
    index_offset, index_size, _ = read_handle(footer, pos, 40)
    entries: list[tuple[bytes, bytes]] = []
    for _, handle in block_entries(read_block(table, index_offset, index_size, "index"), "index"):
        offset, size, _ = read_handle(handle, 0)
        entries.extend(block_entries(read_block(table, offset, size, "data"), "data"))
    return entries
