"""GraphDef (and MetaGraphDef) bytes to a Graph.

Inputs are written ``name``, ``name:k`` (output k) or ``^name`` (a control dependency); an input
naming no node in the graph is not an edge (torch's tracer names the module a parameter belongs
to, which is no node) and is counted in ``problems``. A graph traced by torch is recognised by
its ops (``prim::``/``aten::``, ``IO Node``) so that its attribute strings are decoded.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from google.protobuf.message import DecodeError

from ...proto import graph_pb2
from .attrs import Shape, node_attrs, output_shapes
from .model import Graph, GraphError


def parse_graph_def(data: bytes) -> graph_pb2.GraphDef:
    """The GraphDef message, or GraphError for bytes that are not one."""
    try:
        return graph_pb2.GraphDef.FromString(bytes(data))
    except (DecodeError, RuntimeError, TypeError) as err:
        raise GraphError(f"not a readable GraphDef ({len(data)} bytes): {err}") from None


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


def graph_from_nodes(node_lists: Sequence[tuple[str, Sequence[graph_pb2.NodeDef]]], kind: str,
                     graph_def: bytes | None = None) -> Graph:
    """A Graph from NodeDefs; each list's names (and the inputs inside it) get its prefix.

    Several lists (a run's function graphs) are merged into one graph, each under its own prefix
    such as ``graph_0/``: names are unique only within one function graph.
    """
    names: list[str] = []
    ops: list[str] = []
    devices: list[str] = []
    inputs: list[list[str]] = []
    shapes: list[list[Shape]] = []
    prefixes: list[str] = []
    protos: list[graph_pb2.NodeDef] = []
    for prefix, nodes in node_lists:
        for node in nodes:
            names.append(prefix + node.name)
            ops.append(node.op)
            devices.append(node.device)
            inputs.append(list(node.input))
            shapes.append(output_shapes(node.attr))
            prefixes.append(prefix)
            protos.append(node)
    problems: list[str] = []
    index: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in index:
            problems.append(f"node name {name!r} appears twice; edges go to its first node")
        else:
            index[name] = i
    src: list[int] = []
    dst: list[int] = []
    port: list[int] = []
    control: list[bool] = []
    dangling = 0
    for i, node_inputs in enumerate(inputs):
        prefix = prefixes[i]
        for text in node_inputs:
            name, k, c = _split_input(text)
            j = index.get(prefix + name)
            if j is None:
                dangling += 1
                continue
            src.append(j)
            dst.append(i)
            port.append(k)
            control.append(c)
    if dangling:
        problems.append(f"{dangling} inputs name no node of the graph and are not edges")
    torch = is_torch_trace(ops)

    def attrs_of(i: int) -> dict:
        return node_attrs(protos[i].attr, torch)

    return Graph(kind=kind, names=names, ops=ops, devices=devices, inputs=inputs, output_shapes=shapes,
                 edge_src=np.array(src, dtype=np.int32), edge_dst=np.array(dst, dtype=np.int32),
                 edge_output=np.array(port, dtype=np.int32), edge_control=np.array(control, dtype=bool),
                 attrs_of=attrs_of, graph_def=graph_def, problems=problems)


def graph_from_graph_def(data: bytes) -> Graph:
    """A Graph from serialized GraphDef bytes (``Event.graph_def``; torch, tensorboardX, TF)."""
    data = bytes(data)
    return graph_from_nodes([("", parse_graph_def(data).node)], "op", graph_def=data)


def graph_from_meta_graph_def(data: bytes) -> Graph:
    """A Graph from serialized MetaGraphDef bytes (``Event.meta_graph_def``): its graph_def."""
    graph_def = graph_def_of_meta_graph(data)
    return graph_from_nodes([("", graph_def.node)], "op", graph_def=graph_def.SerializeToString())
