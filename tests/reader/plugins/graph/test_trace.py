"""Trace inputs' upstream walk against a plain breadth-first search, on the benchmark's graph
(a long chain, wide blocks, control edges): the walk switches from numpy steps to one node at a
time when its frontier narrows, and must find the same ops either way."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.reader.plugins.graph import build_hierarchy, graph_from_graph_def
from tbnb.reader.plugins.graph.trace import upstream
from tests.bench.graph_data import synthetic_graph_def


@pytest.fixture(scope="module")
def h():
    return build_hierarchy(graph_from_graph_def(synthetic_graph_def(3_000)))


def reference(h, start: list[int], control: bool) -> list[int]:
    parents: dict[int, list[int]] = {}
    g = h.graph
    for s, d, c in zip(g.edge_src.tolist(), g.edge_dst.tolist(), g.edge_control.tolist()):
        if control or not c:
            parents.setdefault(d, []).append(s)
    seen: set[int] = set()
    todo = list(start)
    while todo:
        for p in parents.get(todo.pop(), []):
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return sorted(seen)


@pytest.mark.parametrize("name", ["loss/Mean", "pre/add_150", "init", "model/stage_1/block_3/add", "input/x"])
@pytest.mark.parametrize("control", [True, False])
def test_upstream_is_every_op_a_path_leads_from(h, name: str, control: bool) -> None:
    start = [h.item(name)]
    found = upstream(h, np.array(start), control)
    assert found.tolist() == reference(h, start, control)


def test_upstream_of_a_whole_scope(h) -> None:
    start = h.ops_in(h.item("model/stage_1"))
    assert upstream(h, start).tolist() == reference(h, start.tolist(), True)
