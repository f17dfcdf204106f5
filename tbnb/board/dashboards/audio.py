"""The audio dashboard: audio tensors ``[k, 2]`` of (encoded clip, label), or ``[k]`` of clips
with no labels (what TF2's ``tf.summary.audio`` writes), listed by step and fetched one clip at a
time through the shared ``blobs``/``blob`` requests (media.py).

``Logdir.tensors`` reads audio as TensorBoard's loader does, clips only; the dashboard reads
the tensors as written (``as_written=True``, media.py), so ``clip_label`` is this dashboard's
accessor of the labels.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from ..request import Handler, PushKey
from .media import BlobKind, Item, as_bytes, as_text


def _mpeg_frame_sync(data: bytes) -> bool:
    """An MPEG audio frame header: 11 sync bits, and neither the version nor the layer reserved
    (the reserved layer 00 is what AAC's ADTS headers have)."""
    if len(data) < 4 or data[0] != 0xFF or data[1] & 0xE0 != 0xE0:
        return False
    version, layer = (data[1] >> 3) & 0b11, (data[1] >> 1) & 0b11
    return version != 0b01 and layer != 0b00


def sniff_audio(data: bytes) -> str | None:
    """The MIME type of WAV, OGG, MP3 or FLAC audio, by its magic number; else None."""
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"fLaC"):
        return "audio/flac"
    if data.startswith(b"ID3") or _mpeg_frame_sync(data):
        return "audio/mpeg"
    return None


def wav_sample_rate(data: bytes) -> float | None:
    """The sample rate in a WAV file's ``fmt `` chunk, or None (not WAV, or malformed)."""
    if not (len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WAVE"):
        return None
    pos = 12
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if chunk == b"fmt ":
            if size < 8 or pos + 16 > len(data):
                return None
            return float(struct.unpack_from("<I", data, pos + 12)[0])
        pos += 8 + size + (size & 1)  # chunks are padded to an even length
    return None


def _clips(arr: np.ndarray) -> np.ndarray:
    """An audio tensor as rows of (clip[, label]): ``[k, 2]`` as it is, ``[k]`` (TF2, no
    labels) as ``[k, 1]``."""
    arr = np.asarray(arr, dtype=object)
    if arr.ndim == 2:
        return arr
    if arr.ndim == 1:
        return arr[:, None]
    if arr.ndim == 0:
        return arr.reshape(1, 1)
    return arr.reshape(-1, arr.shape[-1])


def clip_count(arr: np.ndarray) -> int:
    """Audio clips in an audio tensor (``[k, 2]`` of (wav, label): k)."""
    clips = _clips(arr)
    return clips.shape[0] if clips.shape[1] else 0


def clip_bytes(arr: np.ndarray, index: int) -> bytes:
    """Audio clip ``index`` of an audio tensor; IndexError if there is no such clip."""
    n = clip_count(arr)
    if not 0 <= index < n:
        raise IndexError(f"audio index {index} is out of range: this step has {n} clip(s)")
    return as_bytes(_clips(arr)[index, 0])


def clip_label(arr: np.ndarray, index: int = 0) -> str:
    """The label of clip ``index`` (plain text; "" when the writer gave none)."""
    clips = _clips(arr)
    if clips.shape[1] < 2 or not 0 <= index < clips.shape[0]:
        return ""
    return as_text(clips[index, 1])


def listing(values: list[np.ndarray]) -> dict[str, Any]:
    """``blobs`` fields of an audio run: clips per step, each step's first clip's label (plain
    text), and its WAV sample rate (null where it is not WAV)."""
    return {"counts": [clip_count(v) for v in values], "labels": [clip_label(v) for v in values],
            "sample_rates": [wav_sample_rate(clip_bytes(v, 0)) if clip_count(v) else None for v in values]}


def item(value: np.ndarray, index: int) -> Item:
    """Clip ``index`` of a step and its sniffed MIME type (no width or height)."""
    data = clip_bytes(value, index)
    return data, sniff_audio(data), None, None


REQUESTS: dict[str, Handler] = {}
PUSHED: dict[str, PushKey] = {}
BLOBS = BlobKind("audio", listing, item)
