"""Images, audio and text for the page: MIME types from magic numbers, size limits, text items.

The page is handed bytes only when their type is one it can show safely. The type comes from
the bytes' first bytes, never from a writer's claim (``content_type``, a file name): an SVG or
HTML "image" can carry script, so anything that is not one of the raster image or audio
formats below is "unsupported" and no bytes are sent. Text is sent as Markdown source or as
table cells of plain text; the kernel never produces HTML (the page renders and sanitises).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

#: ``status`` values of ``blob`` replies and text items (protocol.py).
OK, TOO_LARGE, UNSUPPORTED = "ok", "too_large", "unsupported"
#: BITMAPINFOHEADER and its relatives: the sizes a BMP's DIB header may have.
_BMP_DIB_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})


def sniff_image(data: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF, WebP or BMP image, by its magic number; else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    # "BM" alone is two bytes any text may start with: also ask for a known DIB header size.
    if len(data) >= 18 and data[:2] == b"BM" and struct.unpack_from("<I", data, 14)[0] in _BMP_DIB_SIZES:
        return "image/bmp"
    return None


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


def as_bytes(item: Any) -> bytes:
    """One element of a string tensor as bytes (the reader gives bytes; str is encoded)."""
    if isinstance(item, bytes):
        return item
    if isinstance(item, (bytearray, memoryview)):
        return bytes(item)
    if isinstance(item, np.bytes_):
        return bytes(item)
    return str(item).encode("utf-8")


def as_text(item: Any) -> str:
    """One element of a string tensor as text: UTF-8, invalid bytes replaced (U+FFFD)."""
    if isinstance(item, (bytes, bytearray, memoryview, np.bytes_)):
        return bytes(item).decode("utf-8", errors="replace")
    return str(item)


# -- images and audio in TensorBoard's tensor forms -------------------------------------------------

def _parse_int(item: Any) -> int | None:
    try:
        value = int(as_text(item).strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def image_count(arr: np.ndarray) -> int:
    """Images in an images tensor ``[b"W", b"H", img0, img1, ...]``."""
    arr = np.asarray(arr, dtype=object)
    return max(arr.size - 2, 0) if arr.ndim == 1 else 0


def image_size(arr: np.ndarray) -> tuple[int | None, int | None]:
    """(width, height) from an images tensor's first two entries, each None if not an integer."""
    arr = np.asarray(arr, dtype=object)
    if arr.ndim != 1 or arr.size < 2:
        return None, None
    return _parse_int(arr[0]), _parse_int(arr[1])


def image_bytes(arr: np.ndarray, index: int) -> bytes:
    """Image ``index`` of an images tensor; IndexError if the batch has no such image."""
    n = image_count(arr)
    if not 0 <= index < n:
        raise IndexError(f"image index {index} is out of range: this step has {n} image(s)")
    return as_bytes(np.asarray(arr, dtype=object)[2 + index])


def _clips(arr: np.ndarray) -> np.ndarray:
    """An audio tensor as rows of (clip[, label]): ``[k, 2]``, or one clip ``[2]`` / ``[1]``."""
    arr = np.asarray(arr, dtype=object)
    if arr.ndim == 2:
        return arr
    if arr.ndim == 1:
        return arr[None, :]
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


def blob_fields(data: bytes, mime: str | None, max_bytes: int) -> tuple[dict[str, Any], list[bytes]]:
    """``mime``, ``size``, ``status`` of a blob reply and its buffers (the bytes only if "ok").

    Unsupported wins over too large: enlarging ``max_blob_bytes`` would not make it showable.
    """
    size = len(data)
    if mime is None:
        status = UNSUPPORTED
    elif size > max_bytes:
        status = TOO_LARGE
    else:
        status = OK
    return {"mime": mime, "size": size, "status": status}, [data] if status == OK else []


# -- text ---------------------------------------------------------------------------------------

def text_item(arr: np.ndarray, max_bytes: int) -> dict[str, Any]:
    """One step of a text tag as the ``text`` reply's item fields (protocol.py).

    Rank 0: Markdown source. Rank 1: a one-column table; rank 2: a table; rank > 2: the table
    ``arr[0, ..., 0, :, :]`` (TensorBoard's reduction). A single string of any rank (torch's
    ``add_text`` writes a one-element list) is Markdown too: TensorBoard renders table cells as
    Markdown, so a one-cell table would look the same. ``size`` counts the UTF-8 bytes of the
    strings that would be sent; over ``max_bytes`` the item is "too_large" without them.
    """
    arr = np.asarray(arr, dtype=object)
    if arr.ndim > 2:
        arr = arr[(0,) * (arr.ndim - 2)]
    if arr.size == 1:
        arr = arr.reshape(())
    kind = "markdown" if arr.ndim == 0 else "table"
    size = sum(len(as_bytes(x)) for x in arr.reshape(-1))
    item: dict[str, Any] = {"kind": kind, "markdown": None, "rows": None, "size": size}
    if size > max_bytes:
        item["status"] = TOO_LARGE
        return item
    item["status"] = OK
    if arr.ndim == 0:
        item["markdown"] = as_text(arr[()])
    elif arr.ndim == 1:
        item["rows"] = [[as_text(x)] for x in arr]
    else:
        item["rows"] = [[as_text(x) for x in row] for row in arr]
    return item
