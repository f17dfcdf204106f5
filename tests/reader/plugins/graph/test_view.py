"""Replies to the page: only the open levels, edges lifted with counts and sizes, auxiliary
nodes, search and node info, on hand-checked small graphs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tbnb.reader.plugins.graph.extract import EXTRACT_IN, EXTRACT_OUT, MAIN
from tbnb.reader.plugins.graph.hierarchy import build_hierarchy
from tbnb.reader.plugins.graph.view import answer

from .handmade import hierarchy_of

LIFT = [
    ("a/x", "Placeholder", [], [(2, 3)]),
    ("a/y", "Relu", ["a/x"], [(2, 3), (4,)]),
    ("b/z", "Add", ["a/y", "a/x"], [(2, 3)]),
    ("b/w/q", "Mul", ["a/y:1", "^a/y"], [(4,)]),
    ("c", "NoOp", ["^a/x"]),
]


def edges_of(reply: dict) -> dict[tuple[str, str], dict]:
    ids, e = reply["nodes"]["id"], reply["edges"]
    out = {}
    for k in range(len(e["src"])):
        out[(ids[e["src"][k]], ids[e["dst"][k]])] = {
            "data": int(e["n_data"][k]), "control": int(e["n_control"][k]), "elements": float(e["elements"][k]),
            "label": e["label"][k], "level": ids[e["level"][k]] if e["level"][k] >= 0 else "",
            "children": (ids[e["src_child"][k]], ids[e["dst_child"][k]])}
    return out


def test_collapsed_top_level() -> None:
    h = hierarchy_of(LIFT)
    r = answer(h, {"what": "levels"})
    assert r["levels"] == [""] and r["nodes"]["id"] == ["a", "b", "c"]
    assert r["nodes"]["count"].tolist() == [2, 2, 1] and r["nodes"]["kind"].tolist() == [1, 1, 0]
    assert r["nodes"]["parent"].tolist() == [-1, -1, -1] and r["ops"] == ["NoOp"]
    assert edges_of(r) == {
        ("a", "b"): {"data": 3, "control": 1, "elements": 6 + 6 + 4, "label": "3 tensors", "level": "",
                     "children": ("a", "b")},
        ("a", "c"): {"data": 0, "control": 1, "elements": 0.0, "label": "", "level": "", "children": ("a", "c")},
    }


def test_opening_a_scope_sends_its_children_and_lifts_edges_to_them() -> None:
    h = hierarchy_of(LIFT)
    r = answer(h, {"what": "levels", "expanded": ["b", "nowhere", "c"]})
    assert r["levels"] == ["", "b"] and r["unknown"] == ["nowhere", "c"]  # an op cannot be opened
    assert r["nodes"]["id"] == ["a", "b", "c", "b/w", "b/z"]
    assert r["nodes"]["parent"].tolist() == [-1, -1, -1, 1, 1] and r["nodes"]["expanded"].tolist() == [0, 1, 0, 0, 0]
    e = edges_of(r)
    assert e[("a", "b/z")] == {"data": 2, "control": 0, "elements": 12.0, "label": "2 tensors", "level": "",
                               "children": ("a", "b")}
    assert e[("a", "b/w")] == {"data": 1, "control": 1, "elements": 4.0, "label": "4", "level": "",
                               "children": ("a", "b")}
    both = edges_of(answer(h, {"what": "levels", "expanded": ["a", "b", "b/w"]}))
    assert both[("a/x", "a/y")]["level"] == "a" and both[("a/x", "a/y")]["label"] == "2×3"
    assert both[("a/y", "b/w/q")]["children"] == ("a", "b") and both[("a/x", "c")]["control"] == 1


def test_an_open_scope_inside_a_closed_one_is_not_sent() -> None:
    h = hierarchy_of(LIFT)
    r = answer(h, {"what": "levels", "expanded": ["b/w"]})
    assert r["nodes"]["id"] == ["a", "b", "c"] and r["levels"] == [""]


LETTERS = "abcdefghijklmn"  # names without numbers: no series
HUB = [("h", "Placeholder", []),
       *[(f"n{c}", "Add", ["h"] + ([f"n{LETTERS[k - 1]}"] if k else [])) for k, c in enumerate(LETTERS)],
       ("s", "Pack", [f"n{c}" for c in LETTERS]),
       ("init", "NoOp", ["^na", "^nb"])]


def extract_states(r: dict) -> dict[str, int]:
    return dict(zip(r["nodes"]["id"], r["nodes"]["extract"].tolist()))


def test_high_degree_nodes_and_noop_are_set_beside_the_main_graph() -> None:
    h = hierarchy_of(HUB)
    r = answer(h, {"what": "levels"})
    states = extract_states(r)
    assert states.pop("s") == EXTRACT_IN  # in-degree 14 > max(Q3 + (Q3 - Q1), 4) = 4
    assert states.pop("h") == EXTRACT_OUT  # out-degree 14 > max(Q3 + 4 (Q3 - Q1), 4) = 4
    assert states.pop("init") == EXTRACT_OUT  # NoOp, always
    assert set(states.values()) == {MAIN}
    ids = r["nodes"]["id"]
    flags = {(ids[s], ids[d]): a for s, d, a in zip(r["edges"]["src"], r["edges"]["dst"], r["edges"]["annotation"])}
    assert flags[("h", "nd")] == 1 and flags[("nd", "ne")] == 0 and flags[("nd", "s")] == 1


def test_the_user_adds_to_and_removes_from_the_main_graph() -> None:
    h = hierarchy_of(HUB)
    kept = extract_states(answer(h, {"what": "levels", "include": {"s": True}}))
    assert kept["s"] == MAIN and kept["h"] == EXTRACT_OUT  # 15 candidates left: the rules still run
    removed = extract_states(answer(h, {"what": "levels", "include": {"nf": False}}))
    assert removed["nf"] == EXTRACT_IN and removed["s"] == EXTRACT_IN
    manual = extract_states(answer(h, {"what": "levels", "auto_extract": False, "include": {"nf": False}}))
    assert manual.pop("nf") == EXTRACT_IN and set(manual.values()) == {MAIN}


def test_small_levels_keep_high_degree_nodes() -> None:
    h = hierarchy_of(HUB[:6] + [("s", "Pack", ["na", "nb", "nc", "nd", "ne"])])
    assert set(extract_states(answer(h, {"what": "levels"})).values()) == {MAIN}


def test_series_in_the_reply() -> None:
    h = hierarchy_of([("x", "Placeholder", []), *[(f"add_{k}", "Add", ["x"]) for k in range(1, 7)]])
    r = answer(h, {"what": "levels"})
    assert r["nodes"]["id"] == ["add_[1-6]", "x"] and r["nodes"]["kind"].tolist() == [2, 0]
    assert r["nodes"]["count"].tolist() == [6, 1] and edges_of(r)[("x", "add_[1-6]")]["data"] == 6
    opened = answer(h, {"what": "levels", "expanded": ["add_[1-6]"]})
    assert opened["nodes"]["id"][2:] == [f"add_{k}" for k in range(1, 7)]
    loose = answer(h, {"what": "levels", "series": {"add_[1-6]": False}})
    assert loose["nodes"]["id"] == ["add_1", "add_2", "add_3", "add_4", "add_5", "add_6", "x"]


def test_annotations_in_the_reply() -> None:
    h = hierarchy_of([("x", "Placeholder", []), *[(f"c{k}", "Const", []) for k in range(7)],
                      ("y", "AddN", ["x"] + [f"c{k}" for k in range(7)]), ("s", "HistogramSummary", ["y"])])
    r = answer(h, {"what": "levels"})
    assert r["nodes"]["id"] == ["x", "y"]
    assert r["nodes"]["in_annotations"].tolist() == [0, 7] and r["nodes"]["out_annotations"].tolist() == [0, 1]
    a = r["annotations"]
    assert len(a["id"]) == 5 + 1 and set(a["node"].tolist()) == {1}  # at most five a side
    assert a["id"][-1] == "s" and a["side"].tolist()[-1] == 1


def test_structure_templates_and_devices_of_repeated_blocks(torch_graphs: dict[str, bytes]) -> None:
    from tbnb.reader.plugins.graph import graph_from_graph_def

    h = build_hierarchy(graph_from_graph_def(torch_graphs["deep"]))
    layers = next(n for n in h.names if n.endswith("Sequential[layers]"))
    r = answer(h, {"what": "levels", "expanded": ["Deep", layers]})
    ids = r["nodes"]["id"]
    blocks = [k for k, i in enumerate(ids) if "/Block[" in i and i.count("/") == 2]
    assert [r["nodes"]["label"][k] for k in blocks] == [f"{k} (Block)" for k in range(6)]
    assert len({int(r["nodes"]["template"][k]) for k in blocks}) == 1
    chain = [(ids[s], ids[d]) for s, d in zip(r["edges"]["src"], r["edges"]["dst"])
             if "/Block[" in ids[s] and "/Block[" in ids[d]]
    assert len(chain) == 5  # Block[k] feeds Block[k + 1]


def test_search() -> None:
    h = hierarchy_of(LIFT + [("b/k", "Const", []), ("b/use", "Mul", ["b/k", "b/z"])])
    r = answer(h, {"what": "search", "pattern": r"b/.*"})
    assert r["total"] == 4 and r["matches"] == ["b/k", "b/use", "b/w/q", "b/z"]
    assert r["ids"][0] == "b/use"  # the constant is drawn beside its consumer
    assert r["expand"] == [["b"], ["b"], ["b", "b/w"], ["b"]]
    assert answer(h, {"what": "search", "pattern": "z|q", "limit": 1})["matches"] == ["b/w/q"]
    assert answer(h, {"what": "search", "pattern": "("})["error"].startswith("not a regular expression")


def test_node_info() -> None:
    h = hierarchy_of(LIFT)
    info = answer(h, {"what": "info", "name": "b/z"})["node"]
    assert info["op"] == "Add" and info["kind"] == "op" and info["output_shapes"] == [[2, 3]]
    assert info["inputs"] == [{"name": "a/y", "op": "Relu", "output": 0, "shape": [2, 3], "control": False},
                              {"name": "a/x", "op": "Placeholder", "output": 0, "shape": [2, 3], "control": False}]
    assert info["outputs"] == [] and info["compute_time"] is None
    assert (info["inputs_total"], info["outputs_total"]) == (2, 0)
    q = answer(h, {"what": "info", "name": "b/w/q"})["node"]
    assert q["inputs"][1] == {"name": "a/y", "op": "Relu", "output": 0, "shape": None, "control": True}
    scope = answer(h, {"what": "info", "name": "b"})["node"]
    assert scope == {"id": "b", "label": "b", "kind": "scope", "count": 2, "children": 2,
                     "ops": {"Add": 1, "Mul": 1}, "devices": {"": 2}, "compute_time": None, "memory": None}
    assert answer(h, {"what": "info", "name": "zz"})["error"] == "no node of that name"
    json.dumps(answer(h, {"what": "info", "name": "a/y"}))


def test_hostile_names_are_plain_data() -> None:
    evil = '<img src=x onerror="alert(1)">'
    h = hierarchy_of([(f"{evil}/op", "<b>Op</b>", []), ("y", "Identity", [f"{evil}/op"])])
    r = answer(h, {"what": "levels", "expanded": ["<img src=x onerror=\"alert(1)\">"]})
    assert r["nodes"]["id"] == ["<img src=x onerror=\"alert(1)\">", "y", f"{evil}/op"]
    assert r["ops"] == ["Identity", "<b>Op</b>"]
    assert answer(h, {"what": "search", "pattern": "onerror"})["matches"] == [f"{evil}/op"]


def test_unknown_request() -> None:
    with pytest.raises(ValueError, match="unknown graph request"):
        answer(hierarchy_of(LIFT), {"what": "draw"})


def test_empty_graph() -> None:
    h = hierarchy_of([])
    r = answer(h, {"what": "levels"})
    assert r["nodes"]["id"] == [] and len(r["edges"]["src"]) == 0
    assert np.asarray(r["nodes"]["count"]).size == 0


def test_compute_time_and_memory_are_summed_per_drawn_node() -> None:
    from tbnb.reader.plugins.graph import graph_from_run_metadata

    from .test_run_metadata import run_metadata

    g = graph_from_run_metadata(run_metadata(2, {"y": [(5, 8)], "x": [(1, 0)]}))
    r = answer(build_hierarchy(g), {"what": "levels", "expanded": ["graph_1"]})
    by_id = dict(zip(r["nodes"]["id"], zip(r["nodes"]["compute_time"].tolist(), r["nodes"]["memory"].tolist())))
    assert by_id["graph_0"] == (12.0, 16.0) and by_id["graph_1/y"] == (10.0, 16.0) and by_id["graph_1/x"] == (2.0, 0.0)
    info = answer(build_hierarchy(g), {"what": "info", "name": "graph_0"})["node"]
    assert (info["compute_time"], info["memory"]) == (12.0, 16.0)


def test_keras_conceptual_graph_in_the_view() -> None:
    import json as _json

    from tbnb.reader.plugins.graph import graph_from_keras_json

    from .test_keras import KERAS3_FUNCTIONAL

    h = build_hierarchy(graph_from_keras_json(_json.dumps(KERAS3_FUNCTIONAL)))
    r = answer(h, {"what": "levels", "expanded": ["functional"]})
    assert r["nodes"]["id"] == ["functional", "functional/concatenate", "functional/dense", "functional/dense_1",
                                "functional/encoder", "functional/input_layer", "functional/out"]
    e = edges_of(r)
    assert e[("functional/encoder", "functional/concatenate")]["label"] == "?×2"
    assert e[("functional/input_layer", "functional/encoder")]["data"] == 1


def test_trace_inputs_on_the_drawn_nodes() -> None:
    h = hierarchy_of(LIFT + [("d", "Identity", ["c"]), ("b/k", "Const", []), ("b/use", "Mul", ["b/k", "b/z"])])
    r = answer(h, {"what": "trace", "name": "b/use", "expanded": ["b"]})
    assert r["ids"] == ["a", "b/z"] and r["ops"] == 4  # a/x, a/y, b/z and the constant b/k
    assert answer(h, {"what": "trace", "name": "b/use", "expanded": ["a", "b"]})["ids"] == ["a/x", "a/y", "b/z"]
    assert answer(h, {"what": "trace", "name": "d"})["ids"] == ["a", "c"]
    assert answer(h, {"what": "trace", "name": "d", "control": False})["ids"] == ["c"]
    assert answer(h, {"what": "trace", "name": "b"})["ids"] == ["a"]  # a scope: everything it reads
    assert answer(h, {"what": "trace", "name": "nope"})["error"] == "no node of that name"
