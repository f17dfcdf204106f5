"""Graphs: op graphs (TensorFlow, torch, tensorboardX), run-metadata graphs and profiles, Keras
conceptual graphs, read into one columnar ``Graph``; the hierarchy the explorer shows is in
``hierarchy`` and the replies to the page in ``view``."""

from .graphdef import graph_from_graph_def, graph_from_meta_graph_def
from .keras import graph_from_keras_json
from .model import Graph, GraphError
from .run_metadata import graph_from_run_metadata, join_step_stats
from .sources import GRAPH_PLUGINS, KINDS, graph_of_tag, graph_tags, load_graph, run_graph

__all__ = [
    "GRAPH_PLUGINS", "KINDS", "Graph", "GraphError", "graph_from_graph_def", "graph_from_keras_json",
    "graph_from_meta_graph_def", "graph_from_run_metadata", "graph_of_tag", "graph_tags", "join_step_stats",
    "load_graph", "run_graph",
]
