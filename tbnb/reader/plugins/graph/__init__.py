"""Graphs: op graphs (TensorFlow, torch, tensorboardX), run-metadata graphs and profiles, Keras
conceptual graphs, read into one columnar ``Graph``; ``build_hierarchy`` makes the collapsible
hierarchy the explorer shows once per graph, and ``answer`` replies to the page's requests
(the open levels, search, node info) from it."""

from .graphdef import graph_from_graph_def, graph_from_meta_graph_def
from .hierarchy import Hierarchy, build_hierarchy
from .keras import graph_from_keras_json
from .model import Graph, GraphError
from .run_metadata import graph_from_run_metadata, join_step_stats
from .sources import GRAPH_PLUGINS, KINDS, graph_of_tag, graph_tags, load_graph, run_graph
from .view import answer

__all__ = [
    "GRAPH_PLUGINS", "KINDS", "Graph", "GraphError", "Hierarchy", "answer", "build_hierarchy",
    "graph_from_graph_def", "graph_from_keras_json", "graph_from_meta_graph_def", "graph_from_run_metadata",
    "graph_of_tag", "graph_tags", "join_step_stats", "load_graph", "run_graph",
]
