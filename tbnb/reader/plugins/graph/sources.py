"""Which event fields and plugin tags hold graphs, and one entry point that reads any of them.

A run's graphs, by tag (``Logdir.graphs(run)`` lists them, ``""`` first):

- ``""``: the run's op graph, from ``Event.graph_def`` (TF, torch ``add_graph``, tensorboardX),
  else from ``Event.meta_graph_def`` (its graph_def), as TensorBoard does;
- tags of plugin ``graph_run_metadata`` / ``graph_run_metadata_graph``: RunMetadata (function
  graphs merged, step stats joined);
- tags of plugin ``graph_keras_model``: a Keras model's JSON (the conceptual graph);
- tags of ``Event.tagged_run_metadata`` (plugin ``graph_tagged_run_metadata``): a profile, shown
  on the run's op graph with its step stats joined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .graphdef import graph_from_graph_def, graph_from_meta_graph_def
from .keras import graph_from_keras_json
from .model import Graph, GraphError
from .run_metadata import graph_from_run_metadata, join_step_stats

RUN_GRAPH_TAG = ""
PLUGIN_RUN_METADATA = "graph_run_metadata"
PLUGIN_RUN_METADATA_GRAPH = "graph_run_metadata_graph"
PLUGIN_KERAS_MODEL = "graph_keras_model"
PLUGIN_TAGGED_RUN_METADATA = "graph_tagged_run_metadata"

#: Plugins whose tags name a graph, and the ``load_graph`` kind that reads their payload.
GRAPH_PLUGINS = {
    PLUGIN_RUN_METADATA: "run_metadata",
    PLUGIN_RUN_METADATA_GRAPH: "run_metadata",
    PLUGIN_KERAS_MODEL: "keras",
    PLUGIN_TAGGED_RUN_METADATA: "profile",
}

KINDS = ("graph_def", "meta_graph_def", "run_metadata", "keras", "profile")


def graph_tags(tag_plugins: Mapping[str, str], has_run_graph: bool) -> list[str]:
    """The tags of a run that ``load_graph`` can show: ``""`` (the op graph) when the run has a
    graph_def or meta_graph_def, then graph plugin tags in name order."""
    tags = [RUN_GRAPH_TAG] if has_run_graph else []
    tags += sorted(t for t, p in tag_plugins.items() if p in GRAPH_PLUGINS and t != RUN_GRAPH_TAG)
    return tags


def payload_bytes(value: Any) -> bytes:
    """A plugin's payload as bytes: a string tensor's (first) element, or bytes/str as given."""
    if isinstance(value, np.ndarray):
        if value.size == 0:
            raise GraphError("the graph summary's tensor is empty")
        value = value.reshape(-1)[0]
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise GraphError(f"a graph payload must be bytes, not {type(value).__name__}")


def run_graph(graph_def: bytes | None, meta_graph_def: bytes | None = None) -> Graph | None:
    """The run's op graph (tag ``""``): its ``graph_def`` event, else its ``meta_graph_def``'s graph
    (TensorBoard uses the meta graph only when there is no graph_def); None if it has neither."""
    if graph_def is not None:
        return load_graph("graph_def", graph_def)
    if meta_graph_def is not None:
        return load_graph("meta_graph_def", meta_graph_def)
    return None


def graph_of_tag(plugin: str, payload: Any, base: Graph | None = None) -> Graph:
    """The graph a tag of a graph plugin holds (``payload``: its latest value); a profile
    (``graph_tagged_run_metadata``) is joined to ``base``, the run's op graph."""
    if plugin not in GRAPH_PLUGINS:
        raise GraphError(f"plugin {plugin!r} holds no graph")
    return load_graph(GRAPH_PLUGINS[plugin], payload, base=base)


def load_graph(kind: str, payload: Any, base: Graph | None = None) -> Graph:
    """Read a graph of ``kind`` (one of KINDS) from its payload.

    ``"profile"`` joins a RunMetadata's step stats to ``base`` (the run's op graph); without a
    base, the RunMetadata's own graphs are used. Bad bytes raise GraphError, never DecodeError.
    """
    data = payload_bytes(payload)
    if kind == "graph_def":
        return graph_from_graph_def(data)
    if kind == "meta_graph_def":
        return graph_from_meta_graph_def(data)
    if kind == "run_metadata":
        return graph_from_run_metadata(data)
    if kind == "keras":
        return graph_from_keras_json(data)
    if kind == "profile":
        return graph_from_run_metadata(data) if base is None else join_step_stats(base, data)
    raise ValueError(f"unknown graph kind {kind!r}; expected one of {KINDS}")
