"""A small PNG decoder for sprite atlases, so reading a sprite needs no imaging library.

Writers (torch, tensorboardX, tbnb's own) store sprites as 8-bit, non-interlaced PNGs; those are
decoded here with zlib and numpy. Anything else (16-bit, palette, interlaced, JPEG) is handed to
Pillow when it is installed, and is otherwise a clear error.
"""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel


class ImageError(ValueError):
    """Bytes that cannot be decoded as an image."""


def _unfilter(raw: bytes, height: int, width: int, bpp: int) -> np.ndarray:
    stride = width * bpp
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    pos = 0
    for y in range(height):
        kind = raw[pos]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=pos + 1).astype(np.int32)
        pos += stride + 1
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind in (1, 3, 4):  # these depend on the pixel to the left: one pass per pixel
            cur = line.copy()
            for x in range(stride):
                left = cur[x - bpp] if x >= bpp else 0
                up = prev[x]
                if kind == 1:
                    pred = left
                elif kind == 3:
                    pred = (left + up) >> 1
                else:
                    upleft = prev[x - bpp] if x >= bpp else 0
                    p = left + up - upleft
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
                    pred = left if pa <= pb and pa <= pc else (up if pb <= pc else upleft)
                cur[x] = (cur[x] + pred) & 0xFF
        else:
            raise ImageError(f"PNG row {y}: unknown filter {kind}")
        out[y] = cur
        prev = cur
    return out


def _decode_png(data: bytes) -> np.ndarray | None:
    """The image as uint8 [H, W, C], or None when it uses a feature this decoder leaves to Pillow."""
    pos = len(SIGNATURE)
    header: tuple[int, ...] | None = None
    chunks: list[bytes] = []
    while pos + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ImageError("PNG without an IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or interlace or colour not in _CHANNELS:
        return None
    try:
        raw = zlib.decompress(b"".join(chunks))
    except zlib.error as err:
        raise ImageError(f"PNG image data: {err}") from None
    channels = _CHANNELS[colour]
    if len(raw) < height * (width * channels + 1):
        raise ImageError("PNG image data is shorter than its size says")
    return _unfilter(raw, height, width, channels).reshape(height, width, channels)


def decode_image(data: bytes) -> np.ndarray:
    """An image file's pixels as uint8 [H, W, C]."""
    if data.startswith(SIGNATURE):
        pixels = _decode_png(data)
        if pixels is not None:
            return pixels
    try:
        from PIL import Image
    except ImportError:
        raise ImageError("image format needs Pillow (pip install pillow)") from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            return np.asarray(img.convert("RGBA" if "A" in img.getbands() else "RGB"))
    except Exception as err:  # Pillow raises many types for bad data
        raise ImageError(f"cannot decode image: {err}") from None
