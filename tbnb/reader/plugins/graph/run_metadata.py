"""RunMetadata: the graphs a traced step ran, and its per-node compute time and memory.

Graphs (plugins ``graph_run_metadata`` and ``graph_run_metadata_graph``): TensorBoard shows the
pre-optimization graph of every function the step ran, each under its own prefix ``graph_{i}/``
(function graphs reuse names, so they cannot share one namespace); a single function graph keeps
its names. Without function graphs, the partition graphs are used the same way.

Profiles (``Event.tagged_run_metadata`` and the same plugins): each ``NodeExecStats`` is joined to
the graph's node of the same ``node_name``; compute time is ``all_end_rel_micros`` and memory the
sum of ``memory[].total_bytes``, both summed over the devices that ran the node.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.proto import graph_pb2, run_metadata_pb2

from .graphdef import graph_from_graph_defs
from .model import Graph, GraphError


def parse_run_metadata(data: bytes) -> run_metadata_pb2.RunMetadata:
    """The RunMetadata message, or GraphError for bytes that are not one."""
    try:
        return run_metadata_pb2.RunMetadata.FromString(bytes(data))
    except (DecodeError, RuntimeError, TypeError) as err:
        raise GraphError(f"not a readable RunMetadata ({len(data)} bytes): {err}") from None


def _graphs(meta: run_metadata_pb2.RunMetadata) -> list[graph_pb2.GraphDef]:
    graphs = [fg.pre_optimization_graph for fg in meta.function_graphs if fg.HasField("pre_optimization_graph")]
    return graphs or list(meta.partition_graphs)


def graph_from_run_metadata(data: bytes) -> Graph:
    """The op graph of a RunMetadata (its function graphs merged), with its step stats joined."""
    meta = parse_run_metadata(data)
    graphs = _graphs(meta)
    if not graphs:
        raise GraphError("the RunMetadata holds no function graph and no partition graph")
    if len(graphs) == 1:
        graph_def = graphs[0].SerializeToString()
        parts = [("", graph_def)]
    else:
        graph_def = None
        parts = [(f"graph_{i}/", g.SerializeToString()) for i, g in enumerate(graphs)]
    return join_step_stats(graph_from_graph_defs(parts, "run_metadata", graph_def=graph_def), meta)


def step_stats(meta: run_metadata_pb2.RunMetadata) -> dict[str, tuple[float, float]]:
    """node name -> (compute time in µs, memory in bytes), summed over devices."""
    stats: dict[str, tuple[float, float]] = {}
    for dev in meta.step_stats.dev_stats:
        for ns in dev.node_stats:
            micros = float(ns.all_end_rel_micros)
            memory = float(sum(m.total_bytes for m in ns.memory))
            old = stats.get(ns.node_name)
            stats[ns.node_name] = (micros, memory) if old is None else (old[0] + micros, old[1] + memory)
    return stats


def join_step_stats(graph: Graph, meta: run_metadata_pb2.RunMetadata | bytes) -> Graph:
    """A copy of ``graph`` whose compute_time and memory come from ``meta``'s step stats.

    Names match exactly, or (in a merged graph) under any ``graph_{i}/`` prefix. Stats that match
    no node are counted in ``problems``; a profile without node stats (torch writes one) changes
    nothing.
    """
    if isinstance(meta, (bytes, bytearray, memoryview)):
        meta = parse_run_metadata(bytes(meta))
    stats = step_stats(meta)
    compute = np.full(len(graph.names), np.nan)
    memory = np.full(len(graph.names), np.nan)
    by_name: dict[str, list[int]] = {}
    for i, name in enumerate(graph.names):
        by_name.setdefault(name, []).append(i)
        head, sep, rest = name.partition("/")
        if sep and head.startswith("graph_") and head[6:].isdigit():
            by_name.setdefault(rest, []).append(i)
    unmatched = 0
    for name, (micros, nbytes) in stats.items():
        targets = by_name.get(name)
        if not targets:
            unmatched += 1
            continue
        for i in targets:
            compute[i] = micros if np.isnan(compute[i]) else compute[i] + micros
            memory[i] = nbytes if np.isnan(memory[i]) else memory[i] + nbytes
    problems = list(graph.problems)
    if unmatched:
        problems.append(f"{unmatched} step stats name no node of the graph")
    return replace(graph, compute_time=compute, memory=memory, problems=problems)
