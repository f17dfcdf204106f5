"""Blob sniffing, size limits and text items (tbnb.board.media), on real encoded bytes."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from tbnb.board import media
from tbnb.testing import encode_png, encode_wav

RGB = (np.arange(4 * 5 * 3) * 7 % 256).astype(np.uint8).reshape(4, 5, 3)


def pil_bytes(fmt: str, **kwargs: object) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(RGB).save(out, fmt, **kwargs)
    return out.getvalue()


def strings(*items: object, shape: tuple[int, ...] | None = None) -> np.ndarray:
    arr = np.empty(len(items), dtype=object)
    arr[:] = list(items)
    return arr.reshape(shape) if shape is not None else arr


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
    assert media.sniff_image(data) == mime
    assert media.sniff_audio(data) is None


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
    assert media.sniff_image(data) is None
    assert media.sniff_audio(data) is None
    fields, buffers = media.blob_fields(data, media.sniff_image(data), 1 << 20)
    assert fields == {"mime": None, "size": len(data), "status": "unsupported"} and buffers == []


def test_image_tensor_form() -> None:
    pngs = [encode_png(RGB), encode_png(RGB[::-1])]
    arr = strings(b"5", b"4", *pngs)
    assert media.image_count(arr) == 2 and media.image_size(arr) == (5, 4)
    assert media.image_bytes(arr, 1) == pngs[1]
    with pytest.raises(IndexError, match="index 2 is out of range: this step has 2 image"):
        media.image_bytes(arr, 2)
    with pytest.raises(IndexError):
        media.image_bytes(arr, -1)
    assert media.image_size(strings(b"wide", b"", pngs[0])) == (None, None)  # not integers: null
    assert media.image_size(strings("7", b"-3", pngs[0])) == (7, None)
    assert media.image_count(strings(b"5", b"4")) == 0


# -- audio ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "mime"), [
    (encode_wav(np.sin(np.linspace(0, 20, 400)), 8000), "audio/wav"),
    (b"OggS\x00\x02" + bytes(22) + b"\x01\x1evorbis", "audio/ogg"),
    (b"fLaC\x00\x00\x00\x22" + bytes(34), "audio/flac"),
    (b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x64" + bytes(100), "audio/mpeg"),
    (b"\xff\xfb\x90\x64" + bytes(413), "audio/mpeg"),  # MPEG-1 layer III frame header
    (b"\xff\xf3\x60\xc4" + bytes(100), "audio/mpeg"),  # MPEG-2 layer III
])
def test_audio_is_sniffed_by_magic_number(data: bytes, mime: str) -> None:
    assert media.sniff_audio(data) == mime
    assert media.sniff_image(data) is None


def test_wav_sample_rate_from_the_fmt_chunk() -> None:
    assert media.wav_sample_rate(encode_wav(np.zeros(10), 44100)) == 44100.0
    wav = encode_wav(np.zeros((10, 2)), 8000)
    # a LIST chunk (odd length, so padded) before fmt, as some encoders write
    extra = b"LIST" + struct.pack("<I", 5) + b"INFOx\x00"
    moved = wav[:12] + extra + wav[12:]
    assert media.wav_sample_rate(moved) == 8000.0
    assert media.wav_sample_rate(encode_png(RGB)) is None
    assert media.wav_sample_rate(b"RIFF\x00\x00\x00\x00WAVE") is None


def test_audio_tensor_form() -> None:
    wavs = [encode_wav(np.zeros(4), 16000), encode_wav(np.ones(4) / 2, 16000)]
    batch = strings(wavs[0], b"first *label*", wavs[1], "second", shape=(2, 2))  # TF2: [k, 2]
    assert media.clip_count(batch) == 2
    assert media.clip_bytes(batch, 1) == wavs[1]
    assert (media.clip_label(batch, 0), media.clip_label(batch, 1)) == ("first *label*", "second")
    with pytest.raises(IndexError, match="this step has 2 clip"):
        media.clip_bytes(batch, 2)
    tf1 = strings(wavs[0], b"", shape=(1, 2))  # what compat makes of a TF1 Summary.Audio
    assert media.clip_count(tf1) == 1 and media.clip_label(tf1) == ""
    assert media.clip_bytes(strings(wavs[0]), 0) == wavs[0]  # one clip, no label column


# -- the size limit --------------------------------------------------------------------------------

def test_size_limit() -> None:
    png = encode_png(RGB)
    assert media.blob_fields(png, "image/png", len(png)) == (
        {"mime": "image/png", "size": len(png), "status": "ok"}, [png])
    assert media.blob_fields(png, "image/png", len(png) - 1) == (
        {"mime": "image/png", "size": len(png), "status": "too_large"}, [])


# -- text -----------------------------------------------------------------------------------------

def test_rank_0_is_markdown_source() -> None:
    source = "# Title\n\n**bold** <script>alert(1)</script>"
    item = media.text_item(np.array(source.encode(), dtype=object), 1 << 20)
    # the source as written: the kernel renders nothing and escapes nothing (the page sanitises)
    assert item == {"kind": "markdown", "markdown": source, "rows": None, "size": len(source.encode()),
                    "status": "ok"}
    assert "html" not in item


def test_a_single_string_of_any_rank_is_markdown() -> None:
    for arr in (np.array([b"**x**"], dtype=object), np.array([[b"**x**"]], dtype=object)):
        item = media.text_item(arr, 100)
        assert (item["kind"], item["markdown"], item["rows"]) == ("markdown", "**x**", None)


def test_rank_1_is_a_one_column_table() -> None:
    item = media.text_item(strings(b"a", b"b|c", "d"), 100)
    assert (item["kind"], item["markdown"], item["rows"], item["size"]) == ("table", None, [["a"], ["b|c"], ["d"]], 5)


def test_rank_2_is_a_table() -> None:
    item = media.text_item(strings(b"k", b"v", b"lr", b"0.1", shape=(2, 2)), 100)
    assert item["kind"] == "table" and item["rows"] == [["k", "v"], ["lr", "0.1"]]


def test_rank_3_and_more_show_the_first_2d_slice() -> None:
    cube = strings(*[f"{i}{j}{k}".encode() for i in range(2) for j in range(3) for k in range(2)], shape=(2, 3, 2))
    assert media.text_item(cube, 100)["rows"] == [["000", "001"], ["010", "011"], ["020", "021"]]
    assert media.text_item(cube, 100)["size"] == 18  # of the slice sent
    four = strings(*[str(n).encode() for n in range(16)], shape=(2, 2, 2, 2))
    assert media.text_item(four, 100)["rows"] == [["0", "1"], ["2", "3"]]


def test_invalid_utf8_is_replaced() -> None:
    item = media.text_item(np.array(b"caf\xe9 \xff ok", dtype=object), 100)
    assert item["markdown"] == "caf\ufffd \ufffd ok" and item["size"] == 9
    assert media.text_item(strings(b"\xc3", "é"), 100)["rows"] == [["\ufffd"], ["é"]]


def test_text_size_limit() -> None:
    big = "x" * 1000
    item = media.text_item(np.array(big.encode(), dtype=object), 999)
    assert item == {"kind": "markdown", "markdown": None, "rows": None, "size": 1000, "status": "too_large"}
    table = media.text_item(strings("é" * 10, "abc"), 22)  # 20 + 3 UTF-8 bytes
    assert (table["kind"], table["rows"], table["size"], table["status"]) == ("table", None, 23, "too_large")
    assert media.text_item(strings("é" * 10, "abc"), 23)["status"] == "ok"
