"""codec: arrays <-> buffer descriptors, the Python half of the wire format."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tbnb.board.codec import decode, encode


def test_arrays_become_descriptors_and_little_endian_buffers() -> None:
    x = np.array([1.5, -2.0, np.nan], dtype=">f8")  # big-endian in memory
    step = np.arange(6, dtype=np.int64).reshape(2, 3)
    content, buffers = encode({"type": "series", "series": [{"x": x, "step": step, "run": "a"}]})
    entry = content["series"][0]
    assert entry["x"] == {"buffer": 0, "dtype": "float64", "shape": [3]}
    assert entry["step"] == {"buffer": 1, "dtype": "int64", "shape": [2, 3]}
    assert entry["run"] == "a"
    assert all(isinstance(b, memoryview) for b in buffers)
    assert bytes(buffers[0]) == np.array([1.5, -2.0, np.nan], dtype="<f8").tobytes()
    assert bytes(buffers[1]) == step.astype("<i8").tobytes()


def test_roundtrip_is_exact() -> None:
    rng = np.random.default_rng(0)
    obj = {"a": rng.normal(size=100), "b": [np.arange(5, dtype=np.int64), {"c": np.zeros((2, 0), np.float32)}],
           "u": np.array([0, 255], dtype=np.uint8), "s": "text", "n": 3, "none": None}
    back = decode(*encode(obj))
    np.testing.assert_array_equal(back["a"], obj["a"])
    np.testing.assert_array_equal(back["b"][0], obj["b"][0])
    assert back["b"][1]["c"].shape == (2, 0) and back["b"][1]["c"].dtype == np.float32
    assert back["u"].tolist() == [0, 255]
    assert (back["s"], back["n"], back["none"]) == ("text", 3, None)


def test_non_contiguous_and_odd_dtypes_are_normalised() -> None:
    base = np.arange(10, dtype=np.int32)
    content, buffers = encode({"v": base[::2], "b": np.array([True, False]), "h": np.array([1.5], np.float16)})
    assert content["v"]["dtype"] == "int64"
    assert decode(content, buffers)["v"].tolist() == [0, 2, 4, 6, 8]
    assert content["b"]["dtype"] == "uint8" and content["h"]["dtype"] == "float64"
    with pytest.raises(TypeError):
        encode({"bad": np.array(["x"])})


def test_content_scalars_are_json_safe() -> None:
    content, _ = encode({"f": np.float64(2.5), "i": np.int64(7), "nan": math.nan, "inf": np.float64(np.inf)})
    assert content == {"f": 2.5, "i": 7, "nan": None, "inf": None}
    assert type(content["i"]) is int


def test_decode_rejects_inconsistent_descriptors() -> None:
    buf = [np.arange(3, dtype="<f8").tobytes()]
    with pytest.raises(ValueError, match="buffer 1"):
        decode({"buffer": 1, "dtype": "float64", "shape": [3]}, buf)
    with pytest.raises(ValueError, match="shape"):
        decode({"buffer": 0, "dtype": "float64", "shape": [4]}, buf)
    with pytest.raises(ValueError, match="dtype"):
        decode({"buffer": 0, "dtype": "complex128", "shape": [1]}, buf)
    # a dict that merely has a "buffer" key is content, not an array
    assert decode({"buffer": 0, "note": "x"}, buf) == {"buffer": 0, "note": "x"}
