"""Payload encoders, so that writing event files needs neither PIL nor TensorFlow.

Only what event files need: 8-bit PNG (grey, grey+alpha, RGB, RGBA), 16-bit PCM WAV, and the
histogram and PR-curve tensors that TensorBoard's numpy summary functions compute. All are
deterministic (fixed zlib level, no timestamps), so files written twice are byte-identical.
"""

from __future__ import annotations

import io
import struct
import wave
import zlib

import numpy as np

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
