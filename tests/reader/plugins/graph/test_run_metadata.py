"""RunMetadata: function graphs merged under ``graph_{i}/``, step stats joined by node name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tbnb.reader.plugins.graph import (
    GraphError,
    graph_from_graph_def,
    graph_from_run_metadata,
    join_step_stats,
)

config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")


def run_metadata(graphs: int, stats: dict[str, list[tuple[int, int]]]) -> bytes:
    """Function graphs of nodes x -> y (+ a Const), and per-device stats: name -> [(µs, bytes)]."""
    rm = config_pb2.RunMetadata()
    for _ in range(graphs):
        g = rm.function_graphs.add().pre_optimization_graph
        g.node.add(name="x", op="Placeholder")
        g.node.add(name="c", op="Const")
        g.node.add(name="y", op="AddV2", input=["x", "c"])
    for device in ("/device:CPU:0", "/device:GPU:0"):
        dev = rm.step_stats.dev_stats.add(device=device)
        for name, figures in stats.items():
            for micros, nbytes in figures:
                ns = dev.node_stats.add(node_name=name, all_end_rel_micros=micros)
                ns.memory.add(allocator_name="cpu", total_bytes=nbytes)
    return rm.SerializeToString()


def test_function_graphs_are_merged_under_graph_prefixes() -> None:
    g = graph_from_run_metadata(run_metadata(2, {}))
    assert g.kind == "run_metadata" and g.graph_def is None
    assert g.names == ["graph_0/x", "graph_0/c", "graph_0/y", "graph_1/x", "graph_1/c", "graph_1/y"]
    assert sorted(zip(g.edges.src, g.edges.dst)) == [
        ("graph_0/c", "graph_0/y"), ("graph_0/x", "graph_0/y"), ("graph_1/c", "graph_1/y"), ("graph_1/x", "graph_1/y")]


def test_one_function_graph_keeps_its_names_and_stats_are_joined() -> None:
    g = graph_from_run_metadata(run_metadata(1, {"y": [(40, 1000)], "x": [(2, 0)], "gone": [(1, 1)]}))
    assert g.names == ["x", "c", "y"] and g.graph_def is not None
    assert g.compute_time.tolist()[::2] == [4.0, 80.0]  # summed over the two devices
    assert g.memory[2] == 2000.0 and math.isnan(g.compute_time[1])
    assert any("1 step stats name no node" in p for p in g.problems)


def test_stats_join_every_function_graph_holding_the_name() -> None:
    g = graph_from_run_metadata(run_metadata(2, {"y": [(5, 8)]}))
    assert g.compute_time[g.index("graph_0/y")] == 10.0 and g.compute_time[g.index("graph_1/y")] == 10.0


def test_profile_on_the_run_graph(tf_graph: bytes) -> None:
    base = graph_from_graph_def(tf_graph)
    rm = config_pb2.RunMetadata()
    ns = rm.step_stats.dev_stats.add(device="/device:CPU:0").node_stats.add(node_name="dense/MatMul")
    ns.all_end_rel_micros = 7
    joined = join_step_stats(base, rm.SerializeToString())
    assert joined.compute_time[base.index("dense/MatMul")] == 7.0
    assert np.isnan(joined.compute_time).sum() == len(base.names) - 1
    assert np.isnan(base.compute_time).all()  # the base graph is not changed
    empty = config_pb2.RunMetadata()
    empty.step_stats.dev_stats.add(device="/device:CPU:0")  # what torch writes as "step1"
    assert np.isnan(join_step_stats(base, empty.SerializeToString()).compute_time).all()


def test_bad_run_metadata() -> None:
    with pytest.raises(GraphError, match="no function graph"):
        graph_from_run_metadata(config_pb2.RunMetadata().SerializeToString())
    with pytest.raises(GraphError):
        graph_from_run_metadata(b"\x0a\xff")
