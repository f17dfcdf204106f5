"""The graph explorer's schemas (function library, RunMetadata and its step stats) carry
TensorBoard's field numbers, and bytes TensorBoard's classes write parse to the same values."""

from __future__ import annotations

import importlib

import pytest

from tbnb.format.proto import graph_pb2, run_metadata_pb2

from .test_proto import compare

PAIRS = [
    (graph_pb2.GraphDef, "tensorboard.compat.proto.graph_pb2", "GraphDef"),
    (graph_pb2.FunctionDefLibrary, "tensorboard.compat.proto.function_pb2", "FunctionDefLibrary"),
    (graph_pb2.FunctionDef, "tensorboard.compat.proto.function_pb2", "FunctionDef"),
    (graph_pb2.GradientDef, "tensorboard.compat.proto.function_pb2", "GradientDef"),
    (graph_pb2.OpDef, "tensorboard.compat.proto.op_def_pb2", "OpDef"),
    (run_metadata_pb2.RunMetadata, "tensorboard.compat.proto.config_pb2", "RunMetadata"),
    (run_metadata_pb2.StepStats, "tensorboard.compat.proto.step_stats_pb2", "StepStats"),
    (run_metadata_pb2.DeviceStepStats, "tensorboard.compat.proto.step_stats_pb2", "DeviceStepStats"),
    (run_metadata_pb2.NodeExecStats, "tensorboard.compat.proto.step_stats_pb2", "NodeExecStats"),
    (run_metadata_pb2.AllocatorMemoryUsed, "tensorboard.compat.proto.step_stats_pb2", "AllocatorMemoryUsed"),
    (run_metadata_pb2.AllocationRecord, "tensorboard.compat.proto.step_stats_pb2", "AllocationRecord"),
    (run_metadata_pb2.NodeOutput, "tensorboard.compat.proto.step_stats_pb2", "NodeOutput"),
    (run_metadata_pb2.MemoryStats, "tensorboard.compat.proto.step_stats_pb2", "MemoryStats"),
    (run_metadata_pb2.TensorDescription, "tensorboard.compat.proto.tensor_description_pb2", "TensorDescription"),
    (run_metadata_pb2.AllocationDescription, "tensorboard.compat.proto.allocation_description_pb2",
     "AllocationDescription"),
]


@pytest.mark.parametrize("ours,module,name", PAIRS, ids=[p[2] for p in PAIRS])
def test_fields_match_tensorboard(ours: type, module: str, name: str) -> None:
    theirs = getattr(importlib.import_module(module), name)
    assert compare(ours.DESCRIPTOR, theirs.DESCRIPTOR, name) == []


def test_run_metadata_written_by_tensorboard_classes_parses() -> None:
    from tensorboard.compat.proto import config_pb2

    tb = config_pb2.RunMetadata()
    dev = tb.step_stats.dev_stats.add(device="/device:CPU:0")
    ns = dev.node_stats.add(node_name="dense/MatMul", all_end_rel_micros=42)
    ns.memory.add(allocator_name="cpu", total_bytes=4096)
    fg = tb.function_graphs.add()
    fg.pre_optimization_graph.node.add(name="x", op="Placeholder")
    fg.pre_optimization_graph.library.function.add().signature.name = "f"
    tb.cost_graph.node.add(name="kept")
    data = tb.SerializeToString()
    ours = run_metadata_pb2.RunMetadata.FromString(data)
    stats = ours.step_stats.dev_stats[0].node_stats[0]
    assert (stats.node_name, stats.all_end_rel_micros, stats.memory[0].total_bytes) == ("dense/MatMul", 42, 4096)
    assert ours.function_graphs[0].pre_optimization_graph.library.function[0].signature.name == "f"
    # the cost graph we do not declare survives as unknown fields (written last, so compare parsed)
    assert config_pb2.RunMetadata.FromString(ours.SerializeToString()) == tb
