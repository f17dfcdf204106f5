"""A TF checkpoint V2 writer for tests, following TensorFlow's code byte for byte.

It mirrors ``tensor_bundle.cc`` (``BundleWriter``: header under the empty key, entries sorted,
tensor bytes appended to ``.data-00000-of-00001`` with their masked CRC-32C) and LevelDB's
``table_builder.cc``/``block_builder.cc``/``format.cc`` (prefix-compressed entries with a restart
every 16 keys, a 5-byte trailer per block, an empty metaindex block, an index block with a restart
at every key, and the 48-byte footer ending with the magic number). Nothing here is imported from
the reader, so a reader bug is not mirrored into its own test data.
"""

from __future__ import annotations

import struct
from pathlib import Path

import crc32c
import numpy as np

from tbnb.format.proto import tensor_bundle_pb2

MAGIC_BYTES = bytes.fromhex("57fb808b247547db")  # 0xdb4775248b80fb57, two fixed32 low half first
DTYPES = {np.dtype("<f4"): 1, np.dtype("<f8"): 2, np.dtype("<i4"): 3, np.dtype("<i8"): 9, np.dtype("<f2"): 19}


def mask(c: int) -> int:
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def build_block(entries: list[tuple[bytes, bytes]], restart_interval: int) -> bytes:
    """LevelDB's BlockBuilder: shared-prefix entries, then the restart offsets and their count."""
    out = bytearray()
    restarts = [0]
    last = b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            if i:
                restarts.append(len(out))
        else:
            while shared < min(len(last), len(key)) and last[shared] == key[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value)) + key[shared:] + value
        last = key
    for r in restarts:
        out += struct.pack("<I", r)
    return bytes(out + struct.pack("<I", len(restarts)))


def snappy_literal(data: bytes) -> bytes:
    """Valid snappy: the length, then the whole input as one literal (60 + 4-byte length form)."""
    return varint(len(data)) + bytes([63 << 2]) + struct.pack("<I", len(data) - 1) + data


def build_table(entries: list[tuple[bytes, bytes]], block_size: int = 4096, snappy: bool = False) -> bytes:
    """LevelDB's TableBuilder without filters: data blocks, metaindex, index, footer."""
    out = bytearray()

    def write_block(contents: bytes, compress: bool = False) -> bytes:
        kind = 0
        if compress:
            contents, kind = snappy_literal(contents), 1
        handle = varint(len(out)) + varint(len(contents))
        out.extend(contents + bytes([kind]) + struct.pack("<I", mask(crc32c.crc32c(contents + bytes([kind])))))
        return handle

    index: list[tuple[bytes, bytes]] = []
    pending: list[tuple[bytes, bytes]] = []
    size = 0
    for key, value in entries:
        pending.append((key, value))
        size += len(key) + len(value) + 8
        if size >= block_size:
            index.append((key, write_block(build_block(pending, 16), snappy)))
            pending, size = [], 0
    if pending:
        index.append((pending[-1][0], write_block(build_block(pending, 16), snappy)))
    metaindex = write_block(build_block([], 16))
    index_handle = write_block(build_block(index, 1))
    footer = (metaindex + index_handle).ljust(40, b"\0") + MAGIC_BYTES
    return bytes(out + footer)


def write_bundle(prefix: Path, tensors: dict[str, np.ndarray], block_size: int = 4096,
                 snappy: bool = False, extra: dict[str, tensor_bundle_pb2.BundleEntryProto] | None = None) -> None:
    """Write ``<prefix>.index`` and ``<prefix>.data-00000-of-00001`` holding ``tensors``."""
    data = bytearray()
    entries: list[tuple[bytes, bytes]] = []
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=1, endianness=0)
    header.version.producer = 1
    entries.append((b"", header.SerializeToString()))
    for name, array in tensors.items():
        array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        raw = array.tobytes()
        entry = tensor_bundle_pb2.BundleEntryProto(dtype=DTYPES[array.dtype], shard_id=0,
                                                   offset=len(data), size=len(raw), crc32c=mask(crc32c.crc32c(raw)))
        for d in array.shape:
            entry.shape.dim.add(size=d)
        entries.append((name.encode(), entry.SerializeToString()))
        data += raw
    for name, entry in (extra or {}).items():
        entries.append((name.encode(), entry.SerializeToString()))
    entries.sort(key=lambda kv: kv[0])
    Path(f"{prefix}.index").write_bytes(build_table(entries, block_size, snappy))
    Path(f"{prefix}.data-00000-of-00001").write_bytes(bytes(data))


def write_state(directory: Path, prefix_name: str) -> None:
    """TensorFlow's ``checkpoint`` state file naming the latest prefix."""
    (directory / "checkpoint").write_text(
        f'model_checkpoint_path: "{prefix_name}"\nall_model_checkpoint_paths: "{prefix_name}"\n')
