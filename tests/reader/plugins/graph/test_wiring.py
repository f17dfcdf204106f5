"""The pieces a Logdir wires together: event files with every kind of graph, read back by
``tbnb.load`` and turned into Graphs through the Logdir's public accessors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.format.proto import event_pb2, tensor_pb2, types_pb2
from tbnb.reader.plugins.graph import GraphError, graph_of_tag, graph_tags, run_graph
from tbnb.testing import EventWriter

from .test_keras import KERAS3_SEQUENTIAL
from .test_run_metadata import run_metadata


def _blob_event(tag: str, plugin: str, payload: bytes) -> event_pb2.Event:
    event = event_pb2.Event(wall_time=1.0, step=0)
    value = event.summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = plugin
    value.metadata.plugin_data.content = b"1"
    value.tensor.CopyFrom(tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[payload]))
    return event


@pytest.fixture()
def logdir(tmp_path: Path, tf_graph: bytes) -> Path:
    with EventWriter(tmp_path) as w:
        w.add_graph_def(tf_graph)
        w.add_event(_blob_event("keras", "graph_keras_model", json.dumps(KERAS3_SEQUENTIAL).encode()))
        w.add_event(_blob_event("fn", "graph_run_metadata_graph", run_metadata(2, {"y": [(1, 2)]})))
        tagged = event_pb2.Event(wall_time=2.0, step=1)
        tagged.tagged_run_metadata.tag = "step1"
        tagged.tagged_run_metadata.run_metadata = run_metadata(1, {"dense/MatMul": [(9, 16)]})
        w.add_event(tagged)
    return tmp_path


def test_every_graph_of_a_run(logdir: Path) -> None:
    lg = tbnb.load(logdir)
    plugins = lg.tags(".")
    assert graph_tags(plugins, has_run_graph=lg.graph(".") is not None) == ["", "fn", "keras", "step1"]
    assert lg.graphs(".") == ["", "fn", "keras", "step1"]  # the Logdir's own listing
    base = run_graph(lg.graph(".").graph_def)
    assert lg.graph(".").names == base.names
    assert base is not None and base.kind == "op" and "dense/MatMul" in base.names
    keras = graph_of_tag(plugins["keras"], lg.tensors(".", "keras").values[-1])
    assert keras.kind == "keras" and keras.names[0] == "sequential/input_layer"
    fn = graph_of_tag(plugins["fn"], lg.tensors(".", "fn").values[-1])
    assert fn.names[:3] == ["graph_0/x", "graph_0/c", "graph_0/y"] and fn.compute_time[2] == 2.0
    profile = graph_of_tag(plugins["step1"], lg.run_metadata(".", "step1"), base=base)
    assert profile.names == base.names and profile.compute_time[base.index("dense/MatMul")] == 18.0
    # The Logdir reads each tag through the same entry points.
    assert lg.graph(".", "keras").names == keras.names and lg.graph(".", "fn").names == fn.names
    assert lg.graph(".", "step1").compute_time[base.index("dense/MatMul")] == 18.0
    with pytest.raises(GraphError):
        graph_of_tag("scalars", b"")
    assert run_graph(None, None) is None


def test_torch_writes_an_empty_profile(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path)) as w:
        w.add_graph(torch.nn.Linear(3, 2), torch.zeros(1, 3))
    lg = tbnb.load(tmp_path)
    plugins = lg.tags(".")
    assert graph_tags(plugins, has_run_graph=True) == ["", "step1"]
    base = run_graph(lg.graph(".").graph_def)
    profile = graph_of_tag(plugins["step1"], lg.run_metadata(".", "step1"), base=base)
    assert np.isnan(profile.compute_time).all() and profile.names == base.names
