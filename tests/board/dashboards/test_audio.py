"""Audio sniffing, WAV sample rates and TensorBoard's audio tensor form
(tbnb.board.dashboards.audio), on real encoded bytes."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tbnb.board.dashboards import audio, images
from tbnb.testing import encode_png, encode_wav

from .conftest import RGB, strings

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
    assert audio.sniff_audio(data) == mime
    assert images.sniff_image(data) is None


def test_wav_sample_rate_from_the_fmt_chunk() -> None:
    assert audio.wav_sample_rate(encode_wav(np.zeros(10), 44100)) == 44100.0
    wav = encode_wav(np.zeros((10, 2)), 8000)
    # a LIST chunk (odd length, so padded) before fmt, as some encoders write
    extra = b"LIST" + struct.pack("<I", 5) + b"INFOx\x00"
    moved = wav[:12] + extra + wav[12:]
    assert audio.wav_sample_rate(moved) == 8000.0
    assert audio.wav_sample_rate(encode_png(RGB)) is None
    assert audio.wav_sample_rate(b"RIFF\x00\x00\x00\x00WAVE") is None


def test_audio_tensor_form() -> None:
    wavs = [encode_wav(np.zeros(4), 16000), encode_wav(np.ones(4) / 2, 16000)]
    batch = strings(wavs[0], b"first *label*", wavs[1], "second", shape=(2, 2))  # TF2: [k, 2]
    assert audio.clip_count(batch) == 2
    assert audio.clip_bytes(batch, 1) == wavs[1]
    assert (audio.clip_label(batch, 0), audio.clip_label(batch, 1)) == ("first *label*", "second")
    with pytest.raises(IndexError, match="this step has 2 clip"):
        audio.clip_bytes(batch, 2)
    tf1 = strings(wavs[0], b"", shape=(1, 2))  # what compat makes of a TF1 Summary.Audio
    assert audio.clip_count(tf1) == 1 and audio.clip_label(tf1) == ""
    assert audio.clip_bytes(strings(wavs[0]), 0) == wavs[0]  # one clip, no label column


def test_tf2_audio_without_labels_is_k_clips() -> None:
    """TF2's tf.summary.audio writes a ``[k]`` string tensor: k clips, no labels."""
    wavs = [encode_wav(np.full(4, i / 4), 16000) for i in range(3)]
    batch = strings(*wavs, shape=(3,))
    assert audio.clip_count(batch) == 3
    assert [audio.clip_bytes(batch, i) for i in range(3)] == wavs
    assert audio.clip_label(batch, 1) == ""
    listed = audio.listing([batch])
    assert listed["counts"] == [3] and listed["labels"] == [""] and listed["sample_rates"] == [16000.0]
