"""Scalar events encoded by hand in numpy, for logdirs of millions of points.

The benchmark needs logdirs far larger than one protobuf object per event can write in
reasonable time. Here fields are laid out in field-number order, so that the bytes equal
protobuf's ``Event(wall_time, step, summary{value{tag, simple_value | tensor, metadata}})
.SerializeToString()`` framed by ``encode_record`` (a test holds them to that), while the cost
is numpy column assignment plus one ``crc32c`` call per record.
"""

from __future__ import annotations

import struct

import crc32c
import numpy as np

from tbnb.format.crc import mask
from tbnb.format.proto import plugin_data_pb2, summary_pb2, types_pb2


def _varint(n: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative ``n``, low group first."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _varint_len(n: int) -> int:
    """Bytes in the varint of step n; 0 for step 0, which proto3 omits."""
    return 0 if n == 0 else (n.bit_length() + 6) // 7


_TF2_SCALAR_METADATA = summary_pb2.SummaryMetadata(
    plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="scalars", content=plugin_data_pb2.ScalarPluginData().SerializeToString()
    )
).SerializeToString()


def scalar_records(
    tag: str, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray, *, tf2: bool, metadata: bool
) -> np.ndarray:
    """Framed records ``[n, record_length]`` (one row per step) for one tag.

    Every step must be >= 0 with the same varint length, so that every record has the same
    length; wall times must be nonzero (proto3 omits 0.0). ``metadata`` puts the TF2 scalar
    metadata on every row, so callers pass only a tag's first value with it. The data CRC is one
    ``crc32c`` call per record; the rest is numpy column assignment.
    """
    n = len(steps)
    k = _varint_len(int(steps[0]))
    tag_bytes = tag.encode("utf-8")
    value_head = b"\x0a" + _varint(len(tag_bytes)) + tag_bytes
    if tf2:  # tensor{dtype=DT_FLOAT, tensor_shape{}, float_val=[v]} then metadata
        tensor_head = b"\x08" + _varint(types_pb2.DT_FLOAT) + b"\x12\x00\x2a\x04"
        value_head += b"\x42" + _varint(len(tensor_head) + 4) + tensor_head
        tail = b"\x4a" + _varint(len(_TF2_SCALAR_METADATA)) + _TF2_SCALAR_METADATA if metadata else b""
    else:  # simple_value (a oneof member, so written even when 0.0)
        value_head += b"\x15"
        tail = b""
    value_len = len(value_head) + 4 + len(tail)
    summary_len = 1 + len(_varint(value_len)) + value_len
    head = b"\x2a" + _varint(summary_len) + b"\x0a" + _varint(value_len) + value_head
    step_len = 1 + k if k else 0
    length = 9 + step_len + len(head) + 4 + len(tail)
    data = np.empty((n, length), dtype=np.uint8)
    data[:, 0] = 0x09
    data[:, 1:9] = np.ascontiguousarray(wall_times, dtype="<f8").view(np.uint8).reshape(n, 8)
    if k:
        data[:, 9] = 0x10
        s = np.asarray(steps, dtype=np.uint64)
        for i in range(k):
            data[:, 10 + i] = ((s >> np.uint64(7 * i)) & np.uint64(0x7F)) | (0x80 if i < k - 1 else 0)
    pos = 9 + step_len
    data[:, pos : pos + len(head)] = np.frombuffer(head, dtype=np.uint8)
    pos += len(head)
    data[:, pos : pos + 4] = np.ascontiguousarray(values, dtype="<f4").view(np.uint8).reshape(n, 4)
    data[:, pos + 4 :] = np.frombuffer(tail, dtype=np.uint8)
    view = memoryview(data.tobytes())
    crc = crc32c.crc32c
    raw = np.fromiter((crc(view[i : i + length]) for i in range(0, n * length, length)), np.uint64, n)
    masked = mask(raw)  # plain integer arithmetic, so it masks a whole uint64 array at once
    header = struct.pack("<Q", length)
    records = np.empty((n, 12 + length + 4), dtype=np.uint8)
    records[:, :12] = np.frombuffer(header + struct.pack("<I", mask(crc(header))), dtype=np.uint8)
    records[:, 12:-4] = data
    records[:, -4:] = np.asarray(masked).astype("<u4").view(np.uint8).reshape(n, 4)
    return records
