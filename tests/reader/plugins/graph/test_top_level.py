"""The top-level hierarchy (``build_hierarchy(graph, top_level=True)``) answers the collapsed top
level exactly as the whole hierarchy does: every column of the reply equal, on hand-made graphs
with the awkward cases at the top, on what the real writers wrote, and on the benchmark's graph."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tbnb.reader.plugins.graph import Graph, graph_from_graph_def
from tbnb.reader.plugins.graph.hierarchy import build_hierarchy
from tbnb.reader.plugins.graph.view import answer
from tests.bench.graph_data import synthetic_graph_def

from .handmade import graph_of

# Top-level series (add_1..6, fed by constants), an op named like a top scope (A beside A/b),
# a constant deep down named like a deeper scope (A/b beside A/b/c) drawn beside a top-level
# op, a summary, a NoOp, and enough top-level nodes (>= 15) for the high-degree extraction.
AWKWARD = [
    ("x", "Placeholder", [], [(2, 3)]),
    *[(f"add_{k}", "AddV2", ["x" if k == 1 else f"add_{k - 1}", "c"], [(2, 3)]) for k in range(1, 7)],
    ("c", "Const", [], [()]),
    ("A", "Relu", ["add_6"], [(2, 3)]),
    ("A/b/c", "Mul", ["A"], [(2, 3)]),
    ("A/b", "Const", [], [(2, 3)]),
    ("A/d/mul_1", "Mul", ["A/b/c"]), ("A/d/mul_2", "Mul", ["A/d/mul_1"]), ("A/d/mul_3", "Mul", ["A/d/mul_2"]),
    ("A/d/mul_4", "Mul", ["A/d/mul_3"]), ("A/d/mul_5", "Mul", ["A/d/mul_4"]),
    ("y", "Mul", ["A/b", "A/b/c"], [(2, 3)]),
    ("loss", "ScalarSummary", ["y"], [()]),
    ("step", "VariableV2", [], [()]),
    *[(f"use_{k}", "Identity", ["step", "y"], [(2, 3)]) for k in range(12)],
    ("init", "NoOp", ["^step", "^x"]),
]


def same(a: Any, b: Any, path: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            same(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), path
    else:
        assert a == b, path


def check(graph: Graph) -> dict[str, Any]:
    top = build_hierarchy(graph, top_level=True)
    whole = build_hierarchy(graph)
    assert top.top_level and not whole.top_level
    reply = answer(top, {"what": "levels"})
    same(reply, answer(whole, {"what": "levels"}))
    return reply


def test_awkward_top_level_is_the_whole_hierarchy_s() -> None:
    reply = check(graph_of(AWKWARD))
    ids = reply["nodes"]["id"]
    assert "add_[1-6]" in ids and "A" in ids and "init" in ids and "x" in ids
    assert "A/b/(b)" in reply["annotations"]["id"]  # the deep constant beside y, by its whole id
    assert reply["nodes"]["extract"][ids.index("init")] != 0


@pytest.mark.parametrize("name", ["cnn", "deep"])
def test_torch_top_level(torch_graphs: dict[str, bytes], name: str) -> None:
    check(graph_from_graph_def(torch_graphs[name]))


def test_tensorboardx_and_tensorflow_top_level(tbx_graph: bytes, tf_graph: bytes) -> None:
    check(graph_from_graph_def(tbx_graph))
    check(graph_from_graph_def(tf_graph))


def test_benchmark_graph_top_level() -> None:
    reply = check(graph_from_graph_def(synthetic_graph_def(3_000)))
    assert set(reply["nodes"]["id"]) >= {"model", "pre", "gradients", "init", "global_step"}


def test_top_level_hierarchy_skips_the_deeper_scopes() -> None:
    top = build_hierarchy(graph_of(AWKWARD), top_level=True)
    assert "A/d" not in top and "A/d/mul_[1-5]" not in top
    assert "A/d/mul_[1-5]" in build_hierarchy(graph_of(AWKWARD))
