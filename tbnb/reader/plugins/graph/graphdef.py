"""GraphDef (and MetaGraphDef) bytes to a Graph.

Inputs are written ``name``, ``name:k`` (output k) or ``^name`` (a control dependency); an input
naming no node in the graph is not an edge (torch's tracer names the module a parameter belongs
to, which is no node) and is counted in ``problems``. A graph traced by torch is recognised by
its ops (``prim::``/``aten::``, ``IO Node``) so that its attribute strings are decoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.proto import graph_pb2

from .attrs import Shape, node_attrs, shape_of
from .library import LibraryNodes, library_nodes
from .model import ATTRS_ERROR, Graph, GraphError, Ragged
from .wire import DEVICE, INPUT, NAME, OP, last_of, scan, shapes_ranges


def graph_def_of_meta_graph(data: bytes) -> graph_pb2.GraphDef:
    """The GraphDef inside a MetaGraphDef, or GraphError (unreadable, or no graph inside)."""
    try:
        meta = graph_pb2.MetaGraphDef.FromString(bytes(data))
    except (DecodeError, RuntimeError, TypeError) as err:
        raise GraphError(f"not a readable MetaGraphDef ({len(data)} bytes): {err}") from None
    if not meta.HasField("graph_def"):
        raise GraphError("the MetaGraphDef holds no graph_def")
    return meta.graph_def


def _split_input(text: str) -> tuple[str, int, bool]:
    """(node name, output index, control) of one NodeDef input string."""
    if text.startswith("^"):
        return text[1:], 0, True
    name, sep, port = text.rpartition(":")
    if sep and port.isdigit() and name:
        return name, int(port), False
    return text, 0, False


def is_torch_trace(ops: Sequence[str]) -> bool:
    """True for a graph written by torch's ``add_graph`` (its ops are JIT kinds)."""
    return any(op == "IO Node" or op.startswith(("prim::", "aten::")) for op in ops[:200])


class _Decoded(dict):
    """bytes -> str, decoding each distinct value once (ops and devices repeat)."""

    def __missing__(self, raw: bytes) -> str:
        self[raw] = text = raw.decode("utf-8")
        return text


def _gathered_strings(a: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> list[str] | None:
    """The strings at the given byte ranges, decoded in one call: None where that cannot be exact.

    The ranges of one GraphDef's fields come in order and never touch (a field header lies between
    two of them), so the bytes to keep are one boolean run-length pattern over the buffer; the byte
    after each range becomes a NUL, and the kept bytes are decoded and split once: one C call
    instead of a slice and a decode per string. A string holding a NUL (legal in protobuf, never
    seen in a node name) would split in two; the part count shows it, and the caller then decodes
    one by one, as it does for ranges out of order. UTF-8 errors stay local: the NUL is ASCII, so a
    string that is not UTF-8 alone is not UTF-8 in the buffer either; the caller's slow path names it.
    """
    n = len(starts)
    full = stops > starts
    lo, hi = starts[full].astype(np.int64), stops[full].astype(np.int64)
    m = len(lo)
    if m > 1 and (lo[1:] <= hi[:-1]).any():
        return None
    padded = np.zeros(len(a) + 1, dtype=np.uint8)
    padded[:-1] = a
    padded[hi] = 0
    runs = np.empty(2 * m + 1, dtype=np.int64)
    runs[0:-1:2] = lo - np.concatenate(([0], hi[:-1] + 1))  # skipped before each string
    runs[1::2] = hi - lo + 1  # the string and its NUL
    runs[-1] = len(padded) - (hi[-1] + 1 if m else 0)
    pattern = np.zeros(2 * m + 1, dtype=bool)
    pattern[1::2] = True
    keep = np.repeat(pattern, runs)
    try:
        parts = padded[keep].tobytes().decode("utf-8").split("\x00")
    except UnicodeDecodeError:
        return None
    if len(parts) != m + 1:
        return None
    parts.pop()
    if m == n:
        return parts
    out = np.full(n, "", dtype=object)
    out[full] = parts
    return out.tolist()


def _strings(blob: bytes, starts: np.ndarray, stops: np.ndarray, repeated: bool = False) -> list[str]:
    """The UTF-8 strings at the given byte ranges of ``blob``.

    With ``repeated`` (ops, devices), equal strings share one object: a 100,000-node graph
    holds a few hundred distinct ops.
    """
    if len(starts):
        fast = _gathered_strings(np.frombuffer(blob, dtype=np.uint8), starts, stops)
        if fast is not None:
            if repeated:
                shared: dict[str, str] = {}
                return list(map(shared.setdefault, fast, fast))
            return fast
    try:
        if repeated:
            return list(map(_Decoded().__getitem__, map(blob.__getitem__, map(slice, starts.tolist(), stops.tolist()))))
        return [blob[lo:hi].decode("utf-8") for lo, hi in zip(starts.tolist(), stops.tolist())]
    except UnicodeDecodeError as err:
        raise GraphError(f"a node's name, op, input or device is not UTF-8: {err}") from None


@dataclass
class _Columns:
    nodes: list[bytes]
    names: list[str]
    ops: list[str]
    devices: list[str]
    input_node: np.ndarray
    inputs: list[str]
    shapes: list[list[Shape]]


def _columns(data: bytes) -> _Columns:
    """One GraphDef's node columns, scanned from its bytes."""
    try:
        raw = graph_pb2.GraphDefNodes.FromString(data)
    except (DecodeError, RuntimeError, TypeError) as err:
        raise GraphError(f"not a readable GraphDef ({len(data)} bytes): {err}") from None
    nodes = list(raw.node)
    n = len(nodes)
    lens = np.fromiter(map(len, nodes), dtype=np.int64, count=n)
    stops = np.cumsum(lens)
    starts = stops - lens
    blob = b"".join(nodes)
    a = np.frombuffer(blob, dtype=np.uint8)
    fields = scan(a, starts, stops)
    names = _strings(blob, *last_of(fields, NAME, n))
    ops, devices = (_strings(blob, *last_of(fields, f, n), repeated=True) for f in (OP, DEVICE))
    sel = fields.field == INPUT
    inputs = _strings(blob, fields.start[sel], fields.stop[sel])
    s_start, s_stop = shapes_ranges(a, fields, n)
    keys = list(map(blob.__getitem__, map(slice, s_start.tolist(), s_stop.tolist())))
    decoded: dict[bytes, list[Shape]] = {b"": []}
    for key in set(keys).difference(decoded):  # each distinct value decoded once
        try:
            value = graph_pb2.AttrValue.FromString(key)
        except DecodeError as err:
            raise GraphError(f"a node's _output_shapes is damaged: {err}") from None
        decoded[key] = [shape_of(s) for s in value.list.shape]
    shapes = list(map(decoded.__getitem__, keys))
    cols = _Columns(nodes, names, ops, devices, fields.node[sel], inputs, shapes)
    if raw.library.function:
        _add_library(cols, library_nodes(raw.library))
    return cols


def _add_library(cols: _Columns, lib: LibraryNodes) -> None:
    n = len(cols.names)
    counts = [len(i) for i in lib.inputs]
    cols.input_node = np.concatenate([cols.input_node, np.repeat(np.arange(n, n + len(counts)), counts)])
    cols.inputs += [t for inputs in lib.inputs for t in inputs]
    cols.names += lib.names
    cols.ops += lib.ops
    cols.devices += lib.devices
    cols.shapes += lib.shapes
    cols.nodes += lib.nodes


def _edges(input_node: np.ndarray, inputs: list[str], index: dict[str, int],
           prefixes: list[str] | None) -> tuple[np.ndarray, ...]:
    """(src, dst, output, control, inputs naming no node) from every input string.

    Plain names (output 0) are looked up all at once; only the rest (``^name``, ``name:k``, or
    names of no node) are split one by one.
    """
    keys = [prefixes[i] + t for i, t in zip(input_node.tolist(), inputs)] if prefixes else inputs
    src = np.fromiter(map(index.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
    port = np.zeros(len(keys), dtype=np.int64)
    control = np.zeros(len(keys), dtype=bool)
    for k in np.flatnonzero(src < 0).tolist():
        name, port[k], control[k] = _split_input(inputs[k])
        src[k] = index.get(prefixes[int(input_node[k])] + name if prefixes else name, -1)
    found = src >= 0
    return src[found], input_node[found], port[found], control[found], int((~found).sum())


def graph_from_graph_defs(graphs: Sequence[tuple[str, bytes]], kind: str, graph_def: bytes | None = None) -> Graph:
    """A Graph from serialized GraphDefs; each one's names (and the inputs inside it) get its prefix.

    Several graphs (a run's function graphs) are merged into one, each under its own prefix such
    as ``graph_0/``: names are unique only within one function graph. Output shapes are decoded
    once per distinct ``_output_shapes`` value, and nodes with the same shapes share one list.
    """
    parts = [(prefix, _columns(data)) for prefix, data in graphs]
    if len(parts) == 1 and not parts[0][0]:
        cols = parts[0][1]
        names, ops, devices, shapes = cols.names, cols.ops, cols.devices, cols.shapes
        input_node, inputs, nodes, prefixes = cols.input_node, cols.inputs, cols.nodes, None
    else:
        names, ops, devices, shapes, nodes, prefixes = [], [], [], [], [], []
        input_nodes, inputs = [], []
        for prefix, cols in parts:
            input_nodes.append(cols.input_node + len(names))
            inputs += cols.inputs
            names += [prefix + name for name in cols.names]
            prefixes += [prefix] * len(cols.names)
            ops += cols.ops
            devices += cols.devices
            shapes += cols.shapes
            nodes += cols.nodes
        input_node = np.concatenate(input_nodes) if input_nodes else np.zeros(0, np.int64)
    problems: list[str] = []
    index = dict(zip(reversed(names), range(len(names) - 1, -1, -1)))  # the first of a name wins
    if len(index) < len(names):
        problems.append(f"{len(names) - len(index)} node names appear more than once; edges go to the first")
    src, dst, port, control, dangling = _edges(input_node, inputs, index, prefixes)
    if dangling:
        problems.append(f"{dangling} inputs name no node of the graph and are not edges")
    torch = is_torch_trace(ops)

    def attrs_of(i: int) -> dict:
        try:
            return node_attrs(graph_pb2.NodeDef.FromString(nodes[i]).attr, torch)
        except DecodeError as err:  # the node's own fields were readable, its attributes are not
            return {ATTRS_ERROR: f"the node's attributes are damaged: {err}"}

    offsets = np.searchsorted(input_node, np.arange(len(names) + 1))
    graph = Graph(kind=kind, names=names, ops=ops, devices=devices, inputs=Ragged(inputs, offsets),
                  output_shapes=shapes, edge_src=src.astype(np.int32), edge_dst=dst.astype(np.int32),
                  edge_output=port.astype(np.int32), edge_control=control, attrs_of=attrs_of, graph_def=graph_def,
                  problems=problems)
    graph.adopt_index(index)
    return graph


def graph_from_graph_def(data: bytes) -> Graph:
    """A Graph from serialized GraphDef bytes (``Event.graph_def``; torch, tensorboardX, TF)."""
    data = bytes(data)
    return graph_from_graph_defs([("", data)], "op", graph_def=data)


def graph_from_meta_graph_def(data: bytes) -> Graph:
    """A Graph from serialized MetaGraphDef bytes (``Event.meta_graph_def``): its graph_def."""
    graph_def = graph_def_of_meta_graph(data).SerializeToString()
    return graph_from_graph_defs([("", graph_def)], "op", graph_def=graph_def)
