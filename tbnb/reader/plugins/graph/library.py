"""A GraphDef's function library as nodes, under ``__function_library__/<function>/``.

TensorFlow 2 graphs keep most of their ops in functions (a Keras ``train_function`` is a few
call nodes at the top and everything else in the library), so the library is shown, as
TensorBoard does, as one scope per function: its input arguments (op ``_Arg``), its nodes and
its outputs (op ``_Retval``). Inside a function an input is written ``arg``, ``node:out_arg:k``
or ``^node``; here it becomes the prefixed ``node`` (output ``k``), as in a GraphDef.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tbnb.format.proto import graph_pb2

from .attrs import Shape, shape_of

PREFIX = "__function_library__"


@dataclass
class LibraryNodes:
    """Columns of the library's nodes (``nodes`` holds each one's NodeDef bytes, for its attrs)."""

    names: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    inputs: list[list[str]] = field(default_factory=list)
    shapes: list[list[Shape]] = field(default_factory=list)
    nodes: list[bytes] = field(default_factory=list)

    def add(self, node: graph_pb2.NodeDef, inputs: list[str]) -> None:
        self.names.append(node.name)
        self.ops.append(node.op)
        self.devices.append(node.device)
        self.inputs.append(inputs)
        shapes = node.attr["_output_shapes"].list.shape if "_output_shapes" in node.attr else []
        self.shapes.append([shape_of(s) for s in shapes])
        self.nodes.append(node.SerializeToString())


def _input(prefix: str, text: str) -> str:
    control = text.startswith("^")
    parts = text.lstrip("^").split(":")
    port = parts[-1] if len(parts) == 3 and parts[-1].isdigit() and parts[-1] != "0" else ""
    return ("^" if control else "") + prefix + parts[0] + (f":{port}" if port else "")


def library_nodes(library: graph_pb2.FunctionDefLibrary) -> LibraryNodes:
    """Every function of the library as prefixed nodes."""
    out = LibraryNodes()
    for fn in library.function:
        prefix = f"{PREFIX}/{fn.signature.name}/"
        for arg in fn.signature.input_arg:
            node = graph_pb2.NodeDef(name=prefix + arg.name, op="_Arg")
            node.attr["T"].type = arg.type
            out.add(node, [])
        for inner in fn.node_def:
            node = graph_pb2.NodeDef()
            node.CopyFrom(inner)
            node.name = prefix + inner.name
            out.add(node, [_input(prefix, t) for t in inner.input])
        for arg in fn.signature.output_arg:
            node = graph_pb2.NodeDef(name=prefix + arg.name, op="_Retval")
            node.attr["T"].type = arg.type
            source = fn.ret.get(arg.name)
            out.add(node, [_input(prefix, source)] if source else [])
    return out
