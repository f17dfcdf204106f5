"""What the blob dashboards share (tbnb.board.dashboards.media): only sniffed, supported bytes
within the size limit are sent."""

from __future__ import annotations

import pytest

from tbnb.board.dashboards import audio, images, media
from tbnb.testing import encode_png

from .conftest import RGB

SVG = (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
       b'<script>alert(document.cookie)</script><rect width="10" height="10"/></svg>')
NOT_MEDIA = [
    pytest.param(SVG, id="svg-with-script"),
    pytest.param(b'<svg onload="alert(1)"/>', id="bare-svg"),
    pytest.param(b"<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>", id="html"),
    pytest.param(b"", id="empty"),
    pytest.param(bytes(range(256)) * 4, id="garbage"),
    pytest.param(b"BM this is text that starts like a bitmap", id="text-starting-BM"),
    pytest.param(b"RIFF\x10\x00\x00\x00AVI LIST", id="riff-avi"),
    pytest.param(b"\xff\xf1\x50\x80\x02\x1f\xfc", id="aac-adts"),  # frame sync with reserved layer 00
    pytest.param(b"\xff\xd8", id="truncated-jpeg"),
]


@pytest.mark.parametrize("data", NOT_MEDIA)
def test_anything_else_is_unsupported(data: bytes) -> None:
    assert images.sniff_image(data) is None
    assert audio.sniff_audio(data) is None
    fields, buffers = media.blob_fields(data, images.sniff_image(data), 1 << 20)
    assert fields == {"mime": None, "size": len(data), "status": "unsupported"} and buffers == []


# -- the size limit --------------------------------------------------------------------------------

def test_size_limit() -> None:
    png = encode_png(RGB)
    assert media.blob_fields(png, "image/png", len(png)) == (
        {"mime": "image/png", "size": len(png), "status": "ok"}, [png])
    assert media.blob_fields(png, "image/png", len(png) - 1) == (
        {"mime": "image/png", "size": len(png), "status": "too_large"}, [])
