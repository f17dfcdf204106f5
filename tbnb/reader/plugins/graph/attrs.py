"""Node attributes as Python values: TensorFlow's AttrValue, and the strings torch's tracer writes.

Attributes are decoded only when asked for (a node's info, ``Graph.nodes``), never while a
graph loads: a large graph has far more attribute bytes than names, and most are never looked at.
Tensors above ``MAX_TENSOR_ELEMENTS`` are described rather than decoded, as TensorBoard drops
attributes larger than its ``limit_attr_size``, so that a node's info stays small.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any, Optional

from tbnb.format.proto import graph_pb2, tensor_pb2, types_pb2

from ...events.tensors import TensorDecodeError, to_ndarray

#: Tensor attributes with more elements than this are described, not decoded.
MAX_TENSOR_ELEMENTS = 1024

#: The attribute that holds output shapes in TensorFlow's and torch's GraphDefs.
OUTPUT_SHAPES = "_output_shapes"

#: torch's tracer keeps every node attribute in one string attribute of this name.
TORCH_ATTR = "attr"

Shape = Optional[tuple[int, ...]]  # None: unknown rank; -1 in a dimension: unknown size


def shape_of(proto: tensor_pb2.TensorShapeProto) -> Shape:
    """A TensorShapeProto as a tuple of sizes (-1 unknown), or None for an unknown rank."""
    if proto.unknown_rank:
        return None
    return tuple(int(d.size) for d in proto.dim)


def elements(shape: Shape) -> float:
    """How many elements a tensor of this shape holds (unknown sizes count as one), NaN if the
    rank is unknown: edge widths sum these, and an unknown never pretends to be zero."""
    if shape is None:
        return math.nan
    n = 1
    for d in shape:
        n *= d if d > 0 else 1
    return float(n)


def _text(raw: bytes) -> str | bytes:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def _dtype_name(number: int) -> str:
    try:
        return types_pb2.DataType.Name(number)
    except ValueError:
        return f"DT_{number}"


def tensor_value(proto: tensor_pb2.TensorProto) -> Any:
    """A small tensor as a numpy array; a large or undecodable one as a short description."""
    shape = tuple(int(d.size) for d in proto.tensor_shape.dim)
    size = math.prod(max(d, 0) for d in shape)
    description = f"{_dtype_name(proto.dtype)} tensor of shape {shape}"
    if size > MAX_TENSOR_ELEMENTS:
        return description
    try:
        return to_ndarray(proto)
    except TensorDecodeError as err:
        return f"{description} ({err})"


def _list_value(lv: graph_pb2.AttrValue.ListValue) -> list[Any]:
    if lv.s:
        return [_text(s) for s in lv.s]
    if lv.i:
        return [int(i) for i in lv.i]
    if lv.f:
        return [float(f) for f in lv.f]
    if lv.b:
        return [bool(b) for b in lv.b]
    if lv.type:
        return [_dtype_name(t) for t in lv.type]
    if lv.shape:
        return [shape_of(s) for s in lv.shape]
    if lv.tensor:
        return [tensor_value(t) for t in lv.tensor]
    return [func_value(f) for f in lv.func]


def func_value(f: graph_pb2.NameAttrList) -> dict[str, Any]:
    """A function reference: its name and its own attributes."""
    return {"name": f.name, "attr": {k: attr_value(v) for k, v in sorted(f.attr.items())}}


def attr_value(value: graph_pb2.AttrValue) -> Any:
    """One AttrValue as a Python value: str (bytes when not UTF-8), int, float, bool, a dtype's
    name, a shape tuple, a numpy array, a list, or a function reference."""
    which = value.WhichOneof("value")
    if which == "s":
        return _text(value.s)
    if which in ("i", "f", "b"):
        return getattr(value, which)
    if which == "type":
        return _dtype_name(value.type)
    if which == "shape":
        return shape_of(value.shape)
    if which == "tensor":
        return tensor_value(value.tensor)
    if which == "list":
        return _list_value(value.list)
    if which == "func":
        return func_value(value.func)
    if which == "placeholder":
        return f"${value.placeholder}"
    return None


# torch writes str(dict) with every quote replaced by a space: {'value': 1} -> "{ value : 1}".
_TORCH_KEY = re.compile(r"(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s")


def _torch_scalar(text: str) -> Any:
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def torch_attrs(text: str) -> dict[str, Any]:
    """torch's attribute string as the dict it was made from: ``"{ value : 1}"`` -> ``{"value": 1}``,
    ``"{ name :  bias }"`` -> ``{"name": "bias"}``. Values that are not Python literals (tensors,
    devices) stay text; a string that is not a dict is kept whole under ``"attr"``."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return {TORCH_ATTR: text} if text else {}
    body = text[1:-1]
    keys = list(_TORCH_KEY.finditer(body))
    if not keys and body.strip():
        return {TORCH_ATTR: text}
    result: dict[str, Any] = {}
    for k, match in enumerate(keys):
        end = keys[k + 1].start() if k + 1 < len(keys) else len(body)
        result[match.group(1)] = _torch_scalar(body[match.end():end])
    return result


def node_attrs(attr: Any, torch: bool) -> dict[str, Any]:
    """A NodeDef's attribute map decoded, in key order; for torch traces, the ``attr`` string is
    replaced by the entries it spells."""
    result = {k: attr_value(v) for k, v in sorted(attr.items())}
    if torch and isinstance(result.get(TORCH_ATTR), str):
        result.update(torch_attrs(result.pop(TORCH_ATTR)))
    return result
