"""Which tags of a run are graphs, and reading any of them through one entry point."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tbnb.reader.plugins.graph import GRAPH_PLUGINS, GraphError, graph_tags, load_graph
from tbnb.reader.plugins.graph.sources import payload_bytes

from .test_keras import KERAS3_SEQUENTIAL
from .test_run_metadata import run_metadata


def test_graph_tags() -> None:
    plugins = {"loss": "scalars", "keras": "graph_keras_model", "step1": "graph_tagged_run_metadata",
               "fn": "graph_run_metadata_graph", "__run_graph__": "graphs"}
    assert graph_tags(plugins, has_run_graph=True) == ["", "fn", "keras", "step1"]
    assert graph_tags(plugins, has_run_graph=False) == ["fn", "keras", "step1"]
    assert set(GRAPH_PLUGINS) == {"graph_run_metadata", "graph_run_metadata_graph", "graph_keras_model",
                                  "graph_tagged_run_metadata"}


def test_load_graph_every_kind(tf_graph: bytes) -> None:
    assert load_graph("graph_def", tf_graph).names[0] == "x"
    keras = load_graph("keras", np.array(json.dumps(KERAS3_SEQUENTIAL).encode(), dtype=object))
    assert keras.kind == "keras" and "sequential/d1" in keras.names
    rm = run_metadata(1, {"y": [(3, 4)]})
    assert load_graph("run_metadata", np.array([rm], dtype=object)).compute_time.tolist()[2] == 6.0
    base = load_graph("graph_def", tf_graph)
    assert load_graph("profile", rm, base=base).names == base.names
    assert load_graph("profile", rm).names == ["x", "c", "y"]
    with pytest.raises(ValueError, match="unknown graph kind"):
        load_graph("nope", b"")


def test_payloads() -> None:
    assert payload_bytes("é") == "é".encode()
    assert payload_bytes(np.array([b"ab", b"cd"], dtype=object)) == b"ab"
    with pytest.raises(GraphError):
        payload_bytes(np.array([], dtype=object))
    with pytest.raises(GraphError):
        payload_bytes(3)
