"""The images dashboard (and the time series dashboard's image cards): image tensors in
TensorBoard's form ``[b"W", b"H", img0, img1, ...]``, listed by step and fetched one image at a
time through the shared ``blobs``/``blob`` requests (media.py); and the segmentation card's
requests (segmentation.py), as that card is shown in this tab.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from ..request import Handler, PushKey
from . import segmentation
from .media import BlobKind, Item, as_bytes, as_text

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


def listing(values: list[np.ndarray]) -> dict[str, Any]:
    """``blobs`` fields of an images run: the images in each step's batch."""
    return {"counts": [image_count(v) for v in values]}


def item(value: np.ndarray, index: int) -> Item:
    """Image ``index`` of a step, its sniffed MIME type and its stated width and height."""
    data = image_bytes(value, index)
    width, height = image_size(value)
    return data, sniff_image(data), width, height


#: The segmentation card (segmentation.py) is a card of this tab; its steps are pushed.
REQUESTS: dict[str, Handler] = dict(segmentation.REQUESTS)
PUSHED: dict[str, PushKey] = dict(segmentation.PUSHED)
BLOBS = BlobKind("images", listing, item)
