"""Arrays in messages: numpy arrays travel as binary buffers described in the JSON content.

A message's arrays are replaced by ``{"buffer": i, "dtype": ..., "shape": [...]}`` and their
bytes (little-endian, C order) go in the message's buffer list, so nothing numeric is ever
written as a JSON list. This module and ``js/src/core/codec.js`` are the only places that pack and
unpack them (protocol.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

#: The dtypes the page knows (each has a JS typed array); anything else is widened to one of them.
WIRE_DTYPES = ("float64", "float32", "int64", "uint8")

Buffer = Union[memoryview, bytes, bytearray]


def _wire_array(arr: np.ndarray) -> np.ndarray:
    """The array as one of WIRE_DTYPES, little-endian and C-contiguous.

    Widening (not failing) keeps callers simple: bools become uint8, other integers int64,
    other floats float64, which is lossless for everything the reader produces.
    """
    kind = arr.dtype.kind
    if arr.dtype.name in WIRE_DTYPES:
        target = arr.dtype
    elif kind == "b":
        target = np.dtype(np.uint8)
    elif kind in "iu":
        target = np.dtype(np.int64)
    elif kind == "f":
        target = np.dtype(np.float64)
    else:
        raise TypeError(f"cannot send an array of dtype {arr.dtype} to the page")
    return np.ascontiguousarray(arr, dtype=target.newbyteorder("<"))


def _scalar(value: Any) -> Any:
    """A JSON-safe scalar: numpy scalars become Python ones; NaN and infinities become None.

    Jupyter's session serialises content with ``allow_nan=False`` and JS's ``JSON.parse`` has no
    NaN, so a non-finite float in content (not in a buffer) can only travel as null.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def encode(obj: Any) -> tuple[Any, list[memoryview]]:
    """Split ``obj`` (dicts, lists, tuples, scalars, arrays) into JSON content and buffers.

    Buffers are byte views (``memoryview`` of format "B") in the order of their ``buffer`` index.
    """
    buffers: list[memoryview] = []

    def walk(node: Any) -> Any:
        if isinstance(node, np.ndarray):
            arr = _wire_array(node)
            buffers.append(memoryview(arr.reshape(-1)).cast("B"))
            return {"buffer": len(buffers) - 1, "dtype": arr.dtype.name, "shape": list(arr.shape)}
        if isinstance(node, dict):
            return {str(k): walk(v) for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [walk(v) for v in node]
        return _scalar(node)

    return walk(obj), buffers


def _is_descriptor(node: dict[str, Any]) -> bool:
    return (node.keys() == {"buffer", "dtype", "shape"} and isinstance(node["buffer"], int)
            and not isinstance(node["buffer"], bool))


def decode(content: Any, buffers: Sequence[Buffer]) -> Any:
    """The inverse of ``encode``: array descriptors become numpy arrays over the buffers.

    Arrays are read-only views of the received bytes (no copy). Raises ValueError for a
    descriptor that names a missing buffer or a dtype/shape that does not fit its bytes.
    """

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if _is_descriptor(node):
                return _array(node, buffers)
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(content)


def _array(desc: dict[str, Any], buffers: Sequence[Buffer]) -> np.ndarray:
    index, name, shape = desc["buffer"], desc["dtype"], desc["shape"]
    if name not in WIRE_DTYPES:
        raise ValueError(f"unknown dtype {name!r}; expected one of {WIRE_DTYPES}")
    if not 0 <= index < len(buffers):
        raise ValueError(f"array refers to buffer {index}, but the message has {len(buffers)}")
    dtype = np.dtype(name).newbyteorder("<")
    data = memoryview(buffers[index]).cast("B")
    if len(data) % dtype.itemsize:
        raise ValueError(f"buffer {index} has {len(data)} bytes, not a whole number of {name}")
    flat = np.frombuffer(data, dtype=dtype)
    try:
        return flat.reshape([int(d) for d in shape])
    except (TypeError, ValueError) as err:
        raise ValueError(f"buffer {index} ({flat.size} {name}) does not fit shape {shape}") from err
