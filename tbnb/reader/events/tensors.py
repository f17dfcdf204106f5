"""TensorProto -> numpy, without TensorFlow.

Rules (TensorFlow's ``make_ndarray``): ``tensor_content`` holds the packed little-endian values
and wins when present; otherwise the typed ``*_val`` field holds them, and a single value is
broadcast to the whole shape. Strings become an object array of ``bytes``.

A shape is only a claim: a few bytes can declare ``[2**31]``. So the element count is checked
before anything is allocated (``_element_count``): dimensions must be non-negative, and a
broadcast may fill at most ``MAX_BROADCAST`` elements or as many as the proto holds values.
Writers serialise real tensors in full (``tensor_content``) and use the one-value form for
constants, so no summary relies on a larger broadcast, and the cap bounds what a damaged or
hostile record can make the reader allocate (one value of 16 bytes per element at most).
"""

from __future__ import annotations

import numpy as np

from tbnb.format.proto import tensor_pb2, types_pb2

T = types_pb2

#: dtype enum -> (numpy dtype for tensor_content, name of the *_val field)
_DTYPES: dict[int, tuple[np.dtype, str]] = {
    T.DT_FLOAT: (np.dtype("<f4"), "float_val"),
    T.DT_DOUBLE: (np.dtype("<f8"), "double_val"),
    T.DT_INT32: (np.dtype("<i4"), "int_val"),
    T.DT_UINT8: (np.dtype("u1"), "int_val"),
    T.DT_INT16: (np.dtype("<i2"), "int_val"),
    T.DT_INT8: (np.dtype("i1"), "int_val"),
    T.DT_UINT16: (np.dtype("<u2"), "int_val"),
    T.DT_INT64: (np.dtype("<i8"), "int64_val"),
    T.DT_UINT32: (np.dtype("<u4"), "uint32_val"),
    T.DT_UINT64: (np.dtype("<u8"), "uint64_val"),
    T.DT_BOOL: (np.dtype("?"), "bool_val"),
    T.DT_HALF: (np.dtype("<f2"), "half_val"),
    T.DT_COMPLEX64: (np.dtype("<c8"), "scomplex_val"),
    T.DT_COMPLEX128: (np.dtype("<c16"), "dcomplex_val"),
}


class TensorDecodeError(ValueError):
    """A TensorProto whose content does not fit its dtype and shape."""


def shape_of(proto: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The tensor's shape; an unknown rank is read as a scalar."""
    return tuple(int(d.size) for d in proto.tensor_shape.dim)


#: Elements a broadcast (fewer values than the shape holds) may fill, beyond the values present.
MAX_BROADCAST = 1 << 20


def _element_count(shape: tuple[int, ...], present: int, what: str) -> int:
    """The shape's element count, checked against the ``present`` values before any allocation."""
    if any(d < 0 for d in shape):
        raise TensorDecodeError(f"{what}: negative dimension in shape {shape}")
    size = 1
    for d in shape:  # Python integers: a product of large dimensions cannot wrap around
        size *= d
    if size != present and size > max(present, MAX_BROADCAST):
        raise TensorDecodeError(f"{what}: shape {shape} declares {size} elements for {present} values")
    return size


def _fill(values: np.ndarray, shape: tuple[int, ...], what: str) -> np.ndarray:
    size = _element_count(shape, values.size, what)
    if values.size == size:
        return values.reshape(shape)
    if values.size == 1:
        return np.full(shape, values.reshape(())[()], dtype=values.dtype)
    if values.size == 0:
        return np.zeros(shape, dtype=values.dtype)
    raise TensorDecodeError(f"{what}: {values.size} values for shape {shape}")


def to_ndarray(proto: tensor_pb2.TensorProto) -> np.ndarray:
    """Decode a TensorProto into a numpy array (strings as an object array of bytes)."""
    shape = shape_of(proto)
    dtype = proto.dtype
    if dtype == T.DT_STRING:
        _element_count(shape, len(proto.string_val), "string tensor")  # before the strings are copied
        strings = np.empty(max(len(proto.string_val), 1), dtype=object)
        strings[:] = list(proto.string_val) or [b""]  # an empty tensor broadcasts b""
        return _fill(strings, shape, "string tensor")
    if dtype == T.DT_BFLOAT16:
        if proto.tensor_content:
            bits = np.frombuffer(proto.tensor_content, dtype="<u2")
        else:
            bits = np.asarray(proto.half_val, dtype=np.uint32).astype(np.uint16)
        values = (bits.astype(np.uint32) << 16).view(np.float32)
        return _fill(values, shape, "bfloat16 tensor")
    if dtype not in _DTYPES:
        raise TensorDecodeError(f"unsupported tensor dtype {dtype}")
    np_dtype, field = _DTYPES[dtype]
    if proto.tensor_content:
        content = proto.tensor_content
        if len(content) % np_dtype.itemsize:
            raise TensorDecodeError(f"tensor_content of {len(content)} bytes is not a whole number of {np_dtype}")
        return _fill(np.frombuffer(content, dtype=np_dtype).copy(), shape, "tensor_content")
    raw = getattr(proto, field)
    if dtype == T.DT_HALF:
        values = np.asarray(raw, dtype=np.uint32).astype(np.uint16).view(np.float16)
    elif dtype in (T.DT_COMPLEX64, T.DT_COMPLEX128):
        pairs = np.asarray(raw, dtype=np.float32 if dtype == T.DT_COMPLEX64 else np.float64)
        if len(pairs) % 2:
            raise TensorDecodeError(f"{field}: {len(pairs)} floats are not (real, imaginary) pairs")
        values = pairs[0::2] + 1j * pairs[1::2]
        values = values.astype(np_dtype)
    else:
        values = np.asarray(raw, dtype=np_dtype)
    return _fill(values, shape, field)


def from_ndarray(array: np.ndarray) -> tensor_pb2.TensorProto:
    """Encode a numpy array as a TensorProto (used by writers and tests)."""
    arr = np.asarray(array)
    proto = tensor_pb2.TensorProto()
    for size in arr.shape:
        proto.tensor_shape.dim.add(size=int(size))
    if arr.dtype == object or arr.dtype.kind in "SU":
        proto.dtype = T.DT_STRING
        proto.string_val.extend(v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1))
        return proto
    for enum, (np_dtype, _field) in _DTYPES.items():
        if np_dtype == arr.dtype.newbyteorder("<") or np_dtype == arr.dtype:
            proto.dtype = enum
            proto.tensor_content = np.ascontiguousarray(arr, dtype=np_dtype).tobytes()
            return proto
    raise TypeError(f"cannot encode dtype {arr.dtype} as a TensorProto")
