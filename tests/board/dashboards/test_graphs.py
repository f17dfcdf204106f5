"""The ``graph``, ``graph_list`` and ``graph_explorer`` messages, driven as the page drives them,
on a graph written by torch's ``add_graph`` (a small CNN with repeated blocks); expected values
come from TensorBoard's own protobuf parse of the same GraphDef."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbnb
from tbnb.board.dashboards import graph_assets, graphs
from tbnb.board.sources import MultiLogdir
from tests.graph_models import cnn_with_blocks

from ..conftest import Page

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("graphs")
    with SummaryWriter(str(root / "cnn")) as w:
        w.add_graph(*cnn_with_blocks())
        w.add_scalar("loss", 1.0, 0)
    with SummaryWriter(str(root / "scalars_only")) as w:
        w.add_scalar("loss", 1.0, 0)
    return root


@pytest.fixture(scope="module")
def parsed(logdir: Path) -> Any:
    """TensorBoard's parse of the GraphDef the run holds: the oracle."""
    from tensorboard.compat.proto import graph_pb2

    graph = tbnb.load(logdir).graph("cnn")
    assert graph is not None and isinstance(graph.graph_def, bytes)
    return graph_pb2.GraphDef.FromString(graph.graph_def)


@pytest.fixture
def page(make_board: Any, logdir: Path) -> Page:
    return Page(make_board(logdir))


def ask(page: Page, **content: Any) -> dict[str, Any]:
    return page.decoded({"type": "graph", "id": 7, "run": "cnn", "tag": "", **content})


def test_graph_list_names_the_runs_with_graphs(page: Page) -> None:
    reply = page.decoded({"type": "graph_list", "id": 1})
    assert reply == {"type": "graph_list", "id": 1, "runs": [{"run": "cnn", "tags": ["", "step1"]}]}  # torch writes a profile "step1"


def test_top_level_is_the_model_scope(page: Page, parsed: Any) -> None:
    reply = ask(page, what="levels", expanded=[])
    assert reply["type"] == "graph" and reply["id"] == 7 and reply["run"] == "cnn"
    nodes = reply["nodes"]
    tops = {n.name.split("/")[0] for n in parsed.node}
    # every top-level name scope (or op) of the parse is drawn, and nothing deeper
    assert set(nodes["id"]) <= tops and "Net" in nodes["id"]
    assert (nodes["parent"] == -1).all()
    assert reply["levels"] == [""]
    net = nodes["id"].index("Net")
    non_const = [n for n in parsed.node if n.name.startswith("Net/") and n.op != "prim::Constant"]
    assert nodes["count"][net] <= len(non_const) and nodes["count"][net] > 0
    assert nodes["kind"][net] == 1  # a scope


def test_expanding_scopes_sends_their_children(page: Page, parsed: Any) -> None:
    reply = ask(page, what="levels", expanded=["Net", "Net/Sequential[layers]"])
    ids = reply["nodes"]["id"]
    assert reply["levels"] == ["", "Net", "Net/Sequential[layers]"]
    for k in range(6):
        assert f"Net/Sequential[layers]/Block[{k}]" in ids
    labels = dict(zip(ids, reply["nodes"]["label"]))
    assert labels["Net/Sequential[layers]/Block[3]"] == "3 (Block)"
    # the six blocks hold the same ops: one structure template
    templates = {reply["nodes"]["template"][ids.index(f"Net/Sequential[layers]/Block[{k}]")] for k in range(6)}
    assert len(templates) == 1
    # block k feeds block k+1: a drawn edge inside the Sequential level
    layers = ids.index("Net/Sequential[layers]")
    e = reply["edges"]
    inside = np.flatnonzero(e["level"] == layers)
    pairs = {(ids[e["src"][i]], ids[e["dst"][i]]) for i in inside}
    assert ("Net/Sequential[layers]/Block[0]", "Net/Sequential[layers]/Block[1]") in pairs
    assert reply["unknown"] == []


def test_unknown_scopes_are_reported(page: Page) -> None:
    reply = ask(page, what="levels", expanded=["Net", "<img src=x onerror=alert(1)>"])
    assert reply["unknown"] == ["<img src=x onerror=alert(1)>"]


def test_search_lists_matches_with_what_to_open(page: Page, parsed: Any) -> None:
    reply = ask(page, what="search", pattern=r"Block\[2\]/Conv2d\[conv1\]")
    expected = sorted(n.name for n in parsed.node if re.search(r"Block\[2\]/Conv2d\[conv1\]", n.name))
    assert reply["total"] == len(expected) and reply["matches"] == expected[:42]
    assert reply["expand"][0][:2] == ["Net", "Net/Sequential[layers]"]
    bad = ask(page, what="search", pattern="(")
    assert bad["error"] and bad["matches"] == []


def test_info_of_an_op_is_the_parse(page: Page, parsed: Any) -> None:
    node = next(n for n in parsed.node if n.op == "aten::_convolution")
    reply = ask(page, what="info", name=node.name)
    info = reply["node"]
    assert info["op"] == node.op and info["name"] == node.name
    assert [i["name"] for i in info["inputs"]] == [s.split(":")[0].lstrip("^") for s in node.input]
    assert info["inputs_total"] == len(node.input)
    assert ask(page, what="info", name="no such node")["error"]


def test_trace_inputs_reaches_the_input(page: Page) -> None:
    last = "Net/Linear[head]"
    reply = ask(page, what="trace", name=last, expanded=["Net"])
    assert "Net/Sequential[layers]" in reply["ids"] and reply["ops"] > 0


def test_bad_requests_are_errors(page: Page) -> None:
    for content, words in [
        ({"what": "levels", "run": "nope"}, "nope"),
        ({"what": "levels", "run": "scalars_only"}, "no op graph"),
        ({"what": "levels", "tag": "loss"}, "graph tag"),
        ({"what": "zoom"}, "what"),
        ({"what": "levels", "expanded": "Net"}, "expanded"),
        ({"what": "levels", "series": ["x"]}, "series"),
    ]:
        reply = page.decoded({"type": "graph", "id": 3, "run": "cnn", "tag": "", **content})
        assert reply["type"] == "error" and words in reply["message"], (content, reply)


def test_hierarchy_is_kept_until_the_graph_changes(make_board: Any, logdir: Path, tmp_path: Path) -> None:
    source = MultiLogdir([(None, make_board(logdir).logdir)])
    assert graphs.kept_hierarchy(source, "cnn", "") is None
    first = graphs.hierarchy(source, "cnn", "")
    assert graphs.hierarchy(source, "cnn", "") is first
    assert graphs.kept_hierarchy(source, "cnn", "") is first
    # a new graph written to the run (a reload reads it) is a new hierarchy
    from tensorboard.compat.proto import graph_pb2

    from tbnb.testing import EventWriter

    g = graph_pb2.GraphDef()
    g.node.add(name="only/op", op="NoOp")
    run = tmp_path / "logs"
    shutil.copytree(logdir, run)
    source = MultiLogdir([(None, tbnb.load(run))])
    before = graphs.hierarchy(source, "cnn", "")
    with EventWriter(run / "cnn") as w:
        w.add_graph_def(g.SerializeToString())
    source.reload()
    after = graphs.hierarchy(source, "cnn", "")
    assert after is not before and after.graph.names == ["only/op"]


def test_traits_are_settable_and_checked(make_board: Any, logdir: Path) -> None:
    board = make_board(logdir, graph_run="cnn", graph_expanded="Net", graph_color_by="op")
    assert board.graph_expanded == ["Net"] and board.graph_color_by == "op" and board.graph_tag == ""
    board.graph_selected = "Net/Linear[head]"
    assert board.get_state("graph_selected") == {"graph_selected": "Net/Linear[head]"}
    from traitlets import TraitError

    with pytest.raises(TraitError):
        board.graph_search = "("
    with pytest.raises(TraitError):
        board.graph_color_by = "rainbow"


def test_explorer_script_is_served(page: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "graph_explorer.js"
    monkeypatch.setattr(graph_assets, "EXPLORER_SCRIPT", script)
    missing = page.decoded({"type": "graph_explorer", "id": 4})
    assert missing["type"] == "error" and "not built" in missing["message"]
    script.write_text("globalThis.x = 1;")
    reply, buffers = page.ask({"type": "graph_explorer", "id": 5})
    assert reply == {"type": "graph_explorer", "id": 5} and bytes(buffers[0]) == script.read_bytes()


def test_a_profile_tag_shows_the_op_graph(page: Page) -> None:
    reply = ask(page, what="levels", tag="step1")
    assert reply["tag"] == "step1" and "Net" in reply["nodes"]["id"]


def test_choosing_the_dashboard_builds_the_graph_ahead(make_board: Any, logdir: Path) -> None:
    import threading
    import time

    board = make_board(logdir)
    source = MultiLogdir([(None, board.logdir)])
    board.dashboard = "graphs"
    deadline = time.monotonic() + 60
    while any(t.name == "tbnb-graph-warm" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    kept = graphs.kept_hierarchy(source, "cnn", "")  # the first run with a graph, its op graph
    assert kept is not None and graphs.hierarchy(source, "cnn", "") is kept


def test_the_first_drawing_does_not_wait_for_the_whole_hierarchy(make_board: Any, logdir: Path) -> None:
    source = MultiLogdir([(None, make_board(logdir).logdir)])
    top = graphs.top_level_hierarchy(source, "cnn", "")
    assert top.top_level and graphs.kept_hierarchy(source, "cnn", "") is None  # nothing more built
    whole = graphs.hierarchy(source, "cnn", "")
    assert not whole.top_level and graphs.top_level_hierarchy(source, "cnn", "") is whole
    assert graphs.kept_hierarchy(source, "cnn", "") is whole


def test_only_the_plain_top_level_is_answered_by_the_top_level_hierarchy(make_board: Any, logdir: Path) -> None:
    board = make_board(logdir)
    page = Page(board)
    source = MultiLogdir([(None, board.logdir)])
    top = page.decoded({"type": "graph", "id": 1, "run": "cnn", "tag": "", "what": "levels"})
    assert "Net" in top["nodes"]["id"] and top["levels"] == [""]
    assert graphs.kept_hierarchy(source, "cnn", "") is None
    opened = page.decoded({"type": "graph", "id": 2, "run": "cnn", "tag": "", "what": "levels", "expanded": ["Net"]})
    assert "Net" in opened["levels"] and graphs.kept_hierarchy(source, "cnn", "") is not None


def test_the_whole_hierarchy_is_built_after_the_first_drawing_is_answered(
        make_board: Any, logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built beside the first reply, the whole hierarchy would slow it: choosing the dashboard
    builds the top level ahead, and the rest only once the page's first drawing is answered."""
    import threading
    import time

    monkeypatch.setattr(graphs, "WHOLE_AFTER_S", 60.0)
    board = make_board(logdir)
    page = Page(board)
    source = MultiLogdir([(None, board.logdir)])
    board.dashboard = "graphs"

    def warming() -> bool:
        return any(t.name == "tbnb-graph-warm" for t in threading.enumerate())

    time.sleep(1.0)
    assert warming() and graphs.kept_hierarchy(source, "cnn", "") is None  # waiting for the page
    top = page.decoded({"type": "graph", "id": 1, "run": "cnn", "tag": "", "what": "levels"})
    assert "Net" in top["nodes"]["id"]
    deadline = time.monotonic() + 30
    while warming() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not warming() and graphs.kept_hierarchy(source, "cnn", "") is not None
