"""Tests for ``tbnb.writer.payloads``: the encoders against PIL and TensorBoard's rules."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from tbnb.writer import encode_png, histogram_buckets

from .readback import decode_png


def test_histogram_tf2_rules_for_special_data() -> None:
    np.testing.assert_array_equal(histogram_buckets(np.zeros(0), 4), np.zeros((4, 3)))
    equal = histogram_buckets(np.full(5, -1.0), 3)
    np.testing.assert_array_equal(equal, [[-1, -1, 0], [-1, -1, 0], [-1, -1, 5]])
    with pytest.raises(ValueError):
        histogram_buckets(np.array([1.0, np.nan]))


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_png_round_trips_through_pil(channels: int) -> None:
    img = np.random.default_rng(channels).integers(0, 256, size=(7, 13, channels), dtype=np.uint8)
    decoded = decode_png(encode_png(img))
    np.testing.assert_array_equal(decoded.reshape(img.shape), img)
    assert Image.open(io.BytesIO(encode_png(img))).mode == {1: "L", 3: "RGB", 4: "RGBA"}[channels]
