"""The static hierarchy: scopes, an op named like a scope, series (TensorBoard's rule), and
constants/summaries as annotations, on hand-checked small graphs."""

from __future__ import annotations

import numpy as np

from tbnb.reader.plugins.graph.display import children, display
from tbnb.reader.plugins.graph.hierarchy import IN_ANNOTATION, OP, OUT_ANNOTATION, SCOPE, SERIES, scope_label

from .handmade import hierarchy_of


def ids(h, items) -> list[str]:
    return [h.names[i] for i in items]


def test_scopes_counts_and_an_op_named_like_its_scope() -> None:
    h = hierarchy_of([("A", "Foo", []), ("A/b", "Bar", ["A"]), ("A/c/d", "Bar", []), ("e", "Baz", [])])
    a = h.item("A")
    assert h.kind[a] == SCOPE and h.kind[h.item("A/(A)")] == OP
    assert h.label(h.item("A/(A)")) == "(A)" and h.parent[h.item("A/(A)")] == a
    assert h.total("count", np.array([a, h.item("A/c"), h.root])).tolist() == [3, 1, 4]
    d = display(h)
    assert ids(h, children(d, h.root)) == ["A", "e"]
    assert ids(h, children(d, a)) == ["A/(A)", "A/b", "A/c"]
    assert h.graph.scopes("A").name.tolist() == ["A/(A)", "A/b", "A/c"] and h.graph.scopes().ops.tolist() == [3, 1]


def test_torch_scope_labels() -> None:
    assert scope_label("Conv2d[conv1]") == "conv1 (Conv2d)"
    assert scope_label("Sequential[layers]") == "layers (Sequential)" and scope_label("layer1") == "layer1"


SERIES_GRAPH = [
    *[(f"s/add_{k}", "Add", []) for k in range(1, 7)],      # add_[1-6]: six, grouped
    ("s/add_7", "Sub", []),                                   # another op: not in it
    *[(f"s/mul{k}", "Mul", []) for k in range(1, 5)],        # mul[1-4]: four, ungrouped
    *[(f"s/x_{k}", "Add", []) for k in (1, 2, 4, 5, 6)],      # x_[1-2] and x_[4-6]: runs split at the gap
    ("s/conv", "Conv", []), *[(f"s/conv{k}", "Conv", []) for k in range(1, 5)],   # no number counts as 0
    *[(f"layer_{k}/w", "Mul", []) for k in range(1, 7)],     # repeated scopes are never a series
]


def test_series_detection() -> None:
    h = hierarchy_of(SERIES_GRAPH)
    found = {s.name: (len(s.members), s.grouped_by_default) for s in h.series}
    assert found == {"s/add_[1-6]": (6, True), "s/mul[1-4]": (4, False), "s/x_[1-2]": (2, False),
                     "s/x_[4-6]": (3, False), "s/conv[0-4]": (5, True)}
    members = h.series[[s.name for s in h.series].index("s/add_[1-6]")].members
    assert [h.graph.names[i] for i in members] == [f"s/add_{k}" for k in range(1, 7)]
    assert h.kind[h.item("s/add_[1-6]")] == SERIES and h.label(h.item("s/add_[1-6]")) == "add_[1-6]"


def test_grouping_is_a_choice() -> None:
    h = hierarchy_of(SERIES_GRAPH)
    default = ids(h, children(display(h), h.item("s")))
    assert "s/add_[1-6]" in default and "s/add_1" not in default and "s/mul1" in default
    assert "s/mul[1-4]" not in default and len(default) == 1 + 1 + 4 + 5 + 1
    flipped = ids(h, children(display(h, {"s/add_[1-6]": False, "s/mul[1-4]": True, "nope": True}), h.item("s")))
    assert "s/add_1" in flipped and "s/mul[1-4]" in flipped and "s/mul1" not in flipped
    assert ids(h, children(display(h), h.item("s/add_[1-6]"))) == [f"s/add_{k}" for k in range(1, 7)]


def test_constants_and_summaries_are_annotations() -> None:
    h = hierarchy_of([("x", "Placeholder", []), ("w", "Const", []), ("y", "MatMul", ["x", "w"]),
                      ("z", "MatMul", ["y", "w"]), ("loss", "ScalarSummary", ["z"]),
                      ("lonely", "Const", []), ("merged", "MergeSummary", ["loss"])])
    g = h.graph
    embedded = {g.names[i] for i in np.flatnonzero(h.embedded)}
    assert embedded == {"w", "loss"}  # an unused constant stays a node; a summary of a summary too
    assert h.annotations(g.index("y")) == [(g.index("w"), IN_ANNOTATION)]
    assert h.annotations(g.index("z")) == [(g.index("w"), IN_ANNOTATION), (g.index("loss"), OUT_ANNOTATION)]
    assert h.host[g.index("loss")] == g.index("z")
    assert ids(h, children(display(h), h.root)) == ["lonely", "merged", "x", "y", "z"]
    assert h.total("count", np.array([h.root])).tolist() == [5]
