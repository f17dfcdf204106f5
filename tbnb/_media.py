"""Payload encoders for ``tbnb.testing``, so that writing logdirs needs neither PIL nor TF.

Only what event files need: 8-bit PNG (grey, grey+alpha, RGB, RGBA), 16-bit PCM WAV, and the
histogram and PR-curve tensors that TensorBoard's numpy summary functions compute. All are
deterministic (fixed zlib level, no timestamps), so files written twice are byte-identical.
"""

from __future__ import annotations

import io
import struct
import wave
import zlib

import crc32c
import numpy as np

from tbnb.reader.proto import plugin_data_pb2, summary_pb2, types_pb2
from tbnb.reader.records import mask

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG colour type per channel count: grey, grey+alpha, RGB, RGBA.
_PNG_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data and the CRC-32 (zlib's, not CRC-32C) of type+data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(image: np.ndarray, *, level: int = 6) -> bytes:
    """Encode an 8-bit image of shape [H, W] or [H, W, C] (C in 1..4) as PNG.

    Every row uses filter type 0 (none): the output is larger than an optimising encoder's but
    the encoder stays a dozen lines and is fast because zlib does all the work.
    """
    arr = np.asarray(image)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3 or arr.shape[2] not in _PNG_COLOR_TYPE:
        raise ValueError(f"expected an image [H, W] or [H, W, C] with C in 1..4, got shape {arr.shape}")
    if arr.dtype != np.uint8:
        raise TypeError(f"expected uint8 pixels, got {arr.dtype}")
    height, width, channels = arr.shape
    if height == 0 or width == 0:
        raise ValueError("PNG images must have at least one pixel")
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)  # leading 0 = filter "none"
    rows[:, 1:] = arr.reshape(height, width * channels)
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPE[channels], 0, 0, 0)
    return b"".join(
        (
            _PNG_SIGNATURE,
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), level)),
            _png_chunk(b"IEND", b""),
        )
    )


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """Encode float samples in [-1, 1] of shape [frames] or [frames, channels] as 16-bit PCM WAV.

    Values are clipped to [-1, 1] and scaled by 32767 with rounding, so decoding and dividing by
    32767 returns every sample within half a quantisation step (1/65534).
    """
    arr = np.asarray(samples, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(f"expected samples [frames] or [frames, channels], got shape {arr.shape}")
    if sample_rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    pcm = np.round(np.clip(np.nan_to_num(arr), -1.0, 1.0) * 32767.0).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as out:
        out.setnchannels(arr.shape[1])
        out.setsampwidth(2)
        out.setframerate(int(sample_rate))
        out.writeframes(pcm.tobytes())
    return buf.getvalue()


def histogram_buckets(values: np.ndarray, bins: int = 30) -> np.ndarray:
    """TensorBoard's TF2 histogram ``[k, 3]`` (left, right, count) as ``summary_v2.histogram_pb``.

    Equal-width buckets from min to max; a value goes to ``floor((x - min) / width)``, clamped to
    the last bucket (which is closed). Empty data gives zeros ``[bins, 3]``; if every value is
    equal, all edges are that value and only the last bucket counts.
    """
    data = np.asarray(values, dtype=np.float64).ravel()
    if not np.all(np.isfinite(data)):
        raise ValueError("histogram values must be finite")
    if bins < 0:
        raise ValueError(f"bins must be >= 0, got {bins}")
    if bins == 0 or data.size == 0:
        return np.zeros((bins, 3), dtype=np.float64)
    lo, hi = float(data.min()), float(data.max())
    if hi == lo:
        counts = np.zeros(bins, dtype=np.float64)
        counts[-1] = data.size
        return np.stack([np.full(bins, lo), np.full(bins, lo), counts], axis=1)
    index = np.minimum(np.floor((data - lo) / ((hi - lo) / bins)).astype(np.int64), bins - 1)
    counts = np.bincount(index, minlength=bins).astype(np.float64)
    edges = np.linspace(lo, hi, bins + 1)
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def pr_curve_data(labels: np.ndarray, predictions: np.ndarray, num_thresholds: int = 201) -> np.ndarray:
    """The pr_curves plugin's float32 ``[6, T]`` (TP, FP, TN, FN, precision, recall).

    Same algorithm as TensorBoard's numpy ``pr_curve.summary.pb``: predictions are bucketed by
    ``floor(p * (T - 1))`` and threshold i counts predictions in buckets >= i as positive.
    """
    if num_thresholds < 2:
        raise ValueError(f"num_thresholds must be >= 2, got {num_thresholds}")
    pred = np.asarray(predictions, dtype=np.float64).ravel()
    pos = np.asarray(labels).ravel().astype(np.float64)
    if pred.shape != pos.shape:
        raise ValueError(f"labels {pos.shape} and predictions {pred.shape} differ in size")
    index = np.clip(np.floor(pred * (num_thresholds - 1)).astype(np.int64), 0, num_thresholds - 1)
    tp = np.cumsum(np.bincount(index, weights=pos, minlength=num_thresholds)[::-1])[::-1]
    fp = np.cumsum(np.bincount(index, weights=1.0 - pos, minlength=num_thresholds)[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall]).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Scalar events encoded by hand, fields in number order, so that the bytes equal protobuf's
# Event(wall_time, step, summary{value{tag, simple_value | tensor, metadata}}).SerializeToString()
# while millions of them cost numpy time instead of one protobuf object each.

def _varint(n: int) -> bytes:
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
    u32 = np.uint64(0xFFFFFFFF)
    masked = ((((raw >> np.uint64(15)) | (raw << np.uint64(17))) & u32) + np.uint64(0xA282EAD8)) & u32
    header = struct.pack("<Q", length)
    records = np.empty((n, 12 + length + 4), dtype=np.uint8)
    records[:, :12] = np.frombuffer(header + struct.pack("<I", mask(crc(header))), dtype=np.uint8)
    records[:, 12:-4] = data
    records[:, -4:] = masked.astype("<u4").view(np.uint8).reshape(n, 4)
    return records
