"""TensorProto decoding without TensorFlow, checked against TensorBoard's own make_ndarray."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.format.proto import tensor_pb2
from tbnb.reader.events.tensors import TensorDecodeError, from_ndarray, to_ndarray

ARRAYS = [
    np.float32(3.5),
    np.arange(6, dtype=np.float64).reshape(2, 3),
    np.arange(6, dtype=np.int64).reshape(3, 2),
    np.array([1, -2], dtype=np.int32),
    np.array([[1, 2]], dtype=np.uint8),
    np.array([True, False]),
    np.array([1.5, -2.25], dtype=np.float16),
    np.array([1 + 2j], dtype=np.complex64),
    np.array([b"a", b"bc"], dtype=object),
]


@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_round_trip(arr: np.ndarray) -> None:
    out = to_ndarray(from_ndarray(arr))
    assert out.shape == arr.shape and out.dtype == arr.dtype
    assert np.array_equal(out, arr)


@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_agrees_with_tensorboard(arr: np.ndarray) -> None:
    from tensorboard.compat.proto import tensor_pb2 as tb_tensor_pb2
    from tensorboard.util import tensor_util

    tb = tensor_util.make_tensor_proto(arr)
    ours = to_ndarray(tensor_pb2.TensorProto.FromString(tb.SerializeToString()))
    theirs = tensor_util.make_ndarray(tb_tensor_pb2.TensorProto.FromString(tb.SerializeToString()))
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)


def test_single_value_broadcasts() -> None:
    p = tensor_pb2.TensorProto(dtype=1, float_val=[2.0])
    p.tensor_shape.dim.add(size=3)
    assert to_ndarray(p).tolist() == [2.0, 2.0, 2.0]


def test_half_and_bfloat16_from_val_fields() -> None:
    half = tensor_pb2.TensorProto(dtype=19, half_val=[np.float16(1.5).view(np.uint16)])
    assert to_ndarray(half) == np.float16(1.5)
    bf = tensor_pb2.TensorProto(dtype=14, half_val=[int(np.float32(2.5).view(np.uint32) >> 16)])
    assert to_ndarray(bf) == 2.5


def test_wrong_sizes_are_errors_not_crashes() -> None:
    p = tensor_pb2.TensorProto(dtype=1, float_val=[1.0, 2.0])
    p.tensor_shape.dim.add(size=3)
    with pytest.raises(TensorDecodeError):
        to_ndarray(p)
    q = tensor_pb2.TensorProto(dtype=2, tensor_content=b"\x00" * 7)
    with pytest.raises(TensorDecodeError):
        to_ndarray(q)
    with pytest.raises(TensorDecodeError):
        to_ndarray(tensor_pb2.TensorProto(dtype=20))


@pytest.mark.parametrize("dtype,field,value,dims", [
    (1, "float_val", [1.0], [2**28]),  # one value for a quarter of a billion elements
    (1, "float_val", [1.0], [2**31]),
    (1, "float_val", [1.0], [2**40, 2**40]),  # a product past int64
    (7, "string_val", [b"x"], [2**26]),
    (1, "float_val", [1.0, 2.0], [-2]),
])
def test_declared_shape_is_checked_before_allocating(dtype: int, field: str, value: list, dims: list[int]) -> None:
    p = tensor_pb2.TensorProto(dtype=dtype, **{field: value})
    for d in dims:
        p.tensor_shape.dim.add(size=d)
    with pytest.raises(TensorDecodeError, match="shape"):
        to_ndarray(p)


def test_broadcast_up_to_the_cap_is_kept() -> None:
    from tbnb.reader.events.tensors import MAX_BROADCAST

    p = tensor_pb2.TensorProto(dtype=1, float_val=[2.0])
    p.tensor_shape.dim.add(size=MAX_BROADCAST)
    assert to_ndarray(p).shape == (MAX_BROADCAST,)
    p.tensor_shape.dim[0].size = MAX_BROADCAST + 1
    with pytest.raises(TensorDecodeError):
        to_ndarray(p)


def test_odd_complex_floats_are_an_error() -> None:
    p = tensor_pb2.TensorProto(dtype=8, scomplex_val=[1.0, 2.0, 3.0])
    with pytest.raises(TensorDecodeError, match="pairs"):
        to_ndarray(p)
