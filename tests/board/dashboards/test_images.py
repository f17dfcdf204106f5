"""Image sniffing and TensorBoard's image tensor form (tbnb.board.dashboards.images), on real
encoded bytes."""

from __future__ import annotations

import struct

import pytest

from tbnb.board.dashboards import audio, images
from tbnb.testing import encode_png

from .conftest import RGB, pil_bytes, strings

# -- images ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("make", "mime"), [
    (lambda: encode_png(RGB), "image/png"),
    (lambda: pil_bytes("JPEG"), "image/jpeg"),
    (lambda: pil_bytes("GIF"), "image/gif"),  # PIL writes GIF87a
    (lambda: b"GIF89a" + struct.pack("<HHBBB", 5, 4, 0, 0, 0) + b"\x3b", "image/gif"),
    (lambda: pil_bytes("WEBP"), "image/webp"),
    (lambda: pil_bytes("BMP"), "image/bmp"),
])
def test_images_are_sniffed_by_magic_number(make, mime: str) -> None:
    data = make()
    assert images.sniff_image(data) == mime
    assert audio.sniff_audio(data) is None


def test_image_tensor_form() -> None:
    pngs = [encode_png(RGB), encode_png(RGB[::-1])]
    arr = strings(b"5", b"4", *pngs)
    assert images.image_count(arr) == 2 and images.image_size(arr) == (5, 4)
    assert images.image_bytes(arr, 1) == pngs[1]
    with pytest.raises(IndexError, match="index 2 is out of range: this step has 2 image"):
        images.image_bytes(arr, 2)
    with pytest.raises(IndexError):
        images.image_bytes(arr, -1)
    assert images.image_size(strings(b"wide", b"", pngs[0])) == (None, None)  # not integers: null
    assert images.image_size(strings("7", b"-3", pngs[0])) == (7, None)
    assert images.image_count(strings(b"5", b"4")) == 0
