"""Small hand-made graphs for the hierarchy tests."""

from __future__ import annotations

from collections.abc import Sequence

from tbnb.format.proto import graph_pb2
from tbnb.reader.plugins.graph import Graph, graph_from_graph_def
from tbnb.reader.plugins.graph.hierarchy import Hierarchy, build_hierarchy

Node = tuple  # (name, op, inputs[, output shapes])


def graph_of(nodes: Sequence[Node]) -> Graph:
    g = graph_pb2.GraphDef()
    for spec in nodes:
        name, op, inputs = spec[:3]
        node = g.node.add(name=name, op=op, input=list(inputs))
        for shape in spec[3] if len(spec) > 3 else ():
            s = node.attr["_output_shapes"].list.shape.add()
            for d in shape:
                s.dim.add(size=d)
    return graph_from_graph_def(g.SerializeToString())


def hierarchy_of(nodes: Sequence[Node]) -> Hierarchy:
    return build_hierarchy(graph_of(nodes))
