"""Keras model JSON (hand-written, following the formats Keras 3 and Keras 2 write) into a
conceptual graph: Keras 3 as TensorBoard reads it, Keras 2 with the edges TensorBoard misses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tbnb.reader.plugins.graph import GraphError, graph_from_keras_json


def tensor(layer: str, shape: list[int | None], index: int = 0) -> dict[str, Any]:
    return {"class_name": "__keras_tensor__",
            "config": {"shape": shape, "dtype": "float32", "keras_history": [layer, 0, index]}}


def policy(name: str = "float32") -> dict[str, Any]:
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name}, "registered_name": None}


def layer(cls: str, name: str, args: list[Any] | None, **config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"module": "keras.layers", "class_name": cls,
                           "config": {"name": name, "trainable": True, "dtype": policy(), **config},
                           "registered_name": None, "name": name}
    if args is not None:
        out["inbound_nodes"] = [{"args": args, "kwargs": {}}]
    return out


KERAS3_FUNCTIONAL = {
    "module": "keras.src.models.functional", "class_name": "Functional", "registered_name": "Functional",
    "config": {
        "name": "functional", "trainable": True,
        "layers": [
            {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None, "name": "input_layer",
             "config": {"batch_shape": [None, 16], "dtype": "float32", "sparse": False, "name": "input_layer"},
             "inbound_nodes": []},
            layer("Dense", "dense", [tensor("input_layer", [None, 16])], units=32, activation="relu"),
            layer("Dense", "dense_1", [tensor("dense", [None, 32])], units=8, activation="linear"),
            {"module": "keras", "class_name": "Sequential", "name": "encoder",
             "config": {"name": "encoder", "trainable": True,
                        "layers": [layer("Dense", "enc_a", None, units=4), layer("Dense", "enc_b", None, units=2)]},
             "inbound_nodes": [{"args": [tensor("input_layer", [None, 16])], "kwargs": {}}]},
            layer("Concatenate", "concatenate", [[tensor("dense_1", [None, 8]), tensor("encoder", [None, 2])]], axis=-1),
            layer("Dense", "out", [tensor("concatenate", [None, 10])], units=1),
        ],
        "input_layers": [["input_layer", 0, 0]], "output_layers": [["out", 0, 0]],
    },
    "build_config": {"input_shape": None}, "compile_config": None,
}

KERAS3_SEQUENTIAL = {
    "module": "keras", "class_name": "Sequential", "registered_name": None,
    "config": {"name": "sequential", "trainable": True, "layers": [
        {"module": "keras.layers", "class_name": "InputLayer",
         "config": {"batch_shape": [None, 8], "dtype": "float32", "name": "input_layer"}, "registered_name": None},
        layer("Dense", "d1", None, units=4),
        layer("Dropout", "drop", None, rate=0.5),
        layer("Dense", "d2", None, units=1, dtype=policy("mixed_float16")),
    ]},
}

KERAS2_FUNCTIONAL = {
    "class_name": "Functional", "keras_version": "2.15.0", "backend": "tensorflow",
    "config": {
        "name": "model",
        "layers": [
            {"class_name": "InputLayer", "name": "input_1", "inbound_nodes": [],
             "config": {"batch_input_shape": [None, 16], "dtype": "float32", "name": "input_1"}},
            {"class_name": "Dense", "name": "dense", "inbound_nodes": [[["input_1", 0, 0, {}]]],
             "config": {"name": "dense", "dtype": "float32", "units": 16}},
            {"class_name": "Add", "name": "add", "inbound_nodes": [[["dense", 0, 0, {}], ["input_1", 0, 0, {}]]],
             "config": {"name": "add", "dtype": "float32"}},
        ],
        "input_layers": [["input_1", 0, 0]], "output_layers": [["add", 0, 0]],
    },
}


def tensorboard_reading(model: dict[str, Any]) -> dict[str, tuple[list[str], Any, Any]]:
    keras_util = pytest.importorskip("tensorboard.plugins.graph.keras_util")
    g = keras_util.keras_model_to_graph_def(model)
    return {n.name: (list(n.input), n.attr["keras_class"].s.decode(), n.attr["dtype"].type) for n in g.node}


@pytest.mark.parametrize("model", [KERAS3_FUNCTIONAL, KERAS3_SEQUENTIAL], ids=["functional", "sequential"])
def test_keras3_reads_as_tensorboard_reads_it(model: dict[str, Any]) -> None:
    from tensorboard.compat.proto import types_pb2

    expected = tensorboard_reading(model)
    g = graph_from_keras_json(json.dumps(model))
    assert g.kind == "keras" and sorted(g.names) == sorted(expected)
    for i, name in enumerate(g.names):
        inputs, cls, dtype = expected[name]
        assert [g.names[s] for s, d in zip(g.edge_src, g.edge_dst) if d == i] == inputs
        assert g.ops[i] == cls and g.attrs(i)["keras_class"] == cls
        if dtype:  # TensorBoard keeps it as a DataType; we keep Keras's name
            assert (types_pb2.DataType.Name(dtype), g.attrs(i)["dtype"]) == ("DT_FLOAT", "float32")


def test_keras3_details() -> None:
    g = graph_from_keras_json(json.dumps(KERAS3_FUNCTIONAL).encode())
    edges = g.edges
    assert set(zip(edges.src, edges.dst)) == {
        ("functional/input_layer", "functional/dense"), ("functional/dense", "functional/dense_1"),
        ("functional/input_layer", "functional/encoder/enc_a"),
        ("functional/encoder/enc_a", "functional/encoder/enc_b"),
        ("functional/dense_1", "functional/concatenate"), ("functional/encoder/enc_b", "functional/concatenate"),
        ("functional/concatenate", "functional/out")}
    shapes = dict(zip(zip(edges.src, edges.dst), edges["shape"]))
    assert shapes[("functional/dense", "functional/dense_1")] == (-1, 32)
    attrs = g.attrs(g.index("functional/dense"))
    assert attrs["units"] == 32 and attrs["activation"] == "relu" and attrs["dtype"] == "float32"
    seq = graph_from_keras_json(json.dumps(KERAS3_SEQUENTIAL))
    assert seq.attrs(seq.index("sequential/d2"))["dtype"] == "mixed_float16"


def test_keras2_inbound_nodes_give_the_edges_tensorboard_misses() -> None:
    expected = tensorboard_reading(KERAS2_FUNCTIONAL)
    assert all(inputs == [] for inputs, _, _ in expected.values())  # TensorBoard reads no edge
    g = graph_from_keras_json(json.dumps(KERAS2_FUNCTIONAL))
    assert sorted(g.names) == sorted(expected)
    assert sorted(zip(g.edges.src, g.edges.dst)) == [
        ("model/dense", "model/add"), ("model/input_1", "model/add"), ("model/input_1", "model/dense")]
    assert g.ops == ["InputLayer", "Dense", "Add"] and g.attrs(1)["dtype"] == "float32"


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"config": {}}', '{"config": {"layers": [3]}}', b"\xff"])
def test_not_a_model_gives_graph_error(text: str | bytes) -> None:
    with pytest.raises(GraphError):
        graph_from_keras_json(text)
