"""The graphs dashboard in a real browser (JupyterLab 4 and Notebook 7), on a graph torch's
``add_graph`` wrote: the top level drawn, scopes opened from Python, a click selecting a node
(read back in the kernel), search listing matches and opening their scopes. Screenshots in
tests/artifacts/graphs-<what>-<front end>.png. Hostile graph names are in test_dashboards.py's
hostile-logdir test.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest

from .graph_logs import write_torch_graph
from .harness import (
    BoardPage,
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    assert_only_loopback,
    open_notebook,
    own_page,
    printed_json,
    run_cell,
    screenshot,
)

pytestmark = pytest.mark.ui

NB = "graphs.ipynb"
C_SHOW, C_EXPAND, C_STATE, C_STEM = range(4)
LAYERS = "Net/Sequential[layers]"
STEM = "Net/Conv2d[stem]"


def notebook_cells(logdir: str) -> list[str]:
    return [
        f"import json\nimport tbnb\nboard = tbnb.show({logdir!r}, reload_interval=0)\nboard.dashboard = 'graphs'",
        f"board.graph_expanded = ['Net', {LAYERS!r}]",
        ('print("STATE", json.dumps({k: getattr(board, k) for k in ("graph_run", "graph_tag", "graph_expanded",\n'
         '                                                         "graph_selected", "graph_search", "graph_color_by",\n'
         '                                                         "graph_series", "graph_include")}))'),
        f"board.graph_expanded = ['Net', {STEM!r}]\nboard.graph_series = {{}}\nboard.graph_include = {{}}",
    ]


@dataclass
class Graphs(BoardPage):
    def card(self):
        return self.board(C_SHOW).locator(".tbnb-card-graph")

    def node(self, node_id: str):
        return self.card().locator(f'.tbnb-gnode[data-id="{node_id}"]')

    def state(self) -> dict:
        return printed_json(self.page, NB, C_STATE, "STATE")


@pytest.fixture(scope="module")
def gs(jupyter_server: JupyterServer, browser):
    pytest.importorskip("torch.utils.tensorboard")
    logdir = jupyter_server.root_dir / "graph-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    write_torch_graph(logdir)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        s = Graphs(jupyter_server, page, log, logdir)
        jupyter_server.write_notebook(NB, notebook_cells(str(logdir)))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        yield s


def test_top_level_is_drawn(gs: Graphs):
    from playwright.sync_api import expect

    s = gs
    expect(s.node("Net")).to_have_count(1, timeout=60_000)
    # closed scope: a box whose label is SVG text with its op count
    label = s.node("Net").locator(".tbnb-glabel")
    expect(label).to_have_text(__import__("re").compile(r"^Net \(\d+\)$"))
    assert s.node("Net").evaluate("(g) => g.closest('svg') !== null && g.querySelector('text') !== null")
    expect(s.card().locator(".tbnb-graph-sub")).to_contain_text("nodes drawn of")
    assert s.state()["graph_run"] == "cnn", "the page picked the run and wrote it back"
    s.board(C_SHOW).evaluate("(el) => el.scrollIntoView({block: 'start'})")
    screenshot(s.page, f"graphs-top-{s.front_end}")


def test_expanding_from_python_opens_scopes(gs: Graphs):
    from playwright.sync_api import expect

    s = gs
    expect(s.node("Net")).to_have_count(1, timeout=60_000)
    run_cell(s.page, NB, C_EXPAND)
    for k in range(6):
        expect(s.node(f"{LAYERS}/Block[{k}]")).to_have_count(1, timeout=30_000)
    expect(s.node(f"{LAYERS}/Block[3]").locator(".tbnb-glabel")).to_contain_text("3 (Block)")
    expect(s.node(LAYERS)).to_have_class(__import__("re").compile("tbnb-gnode-open"))
    # the six alike blocks share one colour (colour by structure, the default)
    fills = {s.node(f"{LAYERS}/Block[{k}]").locator(".tbnb-gshape").get_attribute("fill") for k in range(6)}
    assert len(fills) == 1, fills
    assert s.state()["graph_expanded"] == ["Net", LAYERS]
    # collapsing on the page is written back
    s.node(LAYERS).locator(".tbnb-gtoggle").first.click()
    expect(s.node(f"{LAYERS}/Block[0]")).to_have_count(0, timeout=30_000)
    assert s.state()["graph_expanded"] == ["Net"]
    run_cell(s.page, NB, C_EXPAND)
    expect(s.node(f"{LAYERS}/Block[0]")).to_have_count(1, timeout=30_000)
    s.card().locator(".tbnb-graph-fit").click()
    s.board(C_SHOW).evaluate("(el) => el.scrollIntoView({block: 'start'})")
    screenshot(s.page, f"graphs-expanded-{s.front_end}")


def test_click_fills_the_info_panel_and_selects(gs: Graphs):
    from playwright.sync_api import expect

    s = gs
    run_cell(s.page, NB, C_EXPAND)
    expect(s.node(f"{LAYERS}/Block[2]")).to_have_count(1, timeout=60_000)
    s.node(f"{LAYERS}/Block[2]").click()
    info = s.card().locator(".tbnb-graph-info")
    expect(info.locator(".tbnb-graph-info-id")).to_have_text(f"{LAYERS}/Block[2]", timeout=30_000)
    expect(info).to_contain_text("ops inside")
    assert s.state()["graph_selected"] == f"{LAYERS}/Block[2]"
    # an op: its type, inputs and outputs with shapes
    op = s.card().locator(".tbnb-gnode-op").first
    op_id = op.get_attribute("data-id")
    op.click()
    expect(info.locator(".tbnb-graph-info-id")).to_have_text(op_id, timeout=30_000)
    expect(info.locator(".tbnb-graph-props th").first).to_have_text("op")
    assert s.state()["graph_selected"] == op_id
    # trace inputs highlights what feeds the selected block
    s.node(f"{LAYERS}/Block[2]").click()
    expect(info.locator(".tbnb-graph-info-id")).to_have_text(f"{LAYERS}/Block[2]", timeout=30_000)
    info.locator(".tbnb-graph-trace").click()
    expect(s.node(f"{LAYERS}/Block[1]")).to_have_class(__import__("re").compile("tbnb-gtraced"), timeout=30_000)
    expect(s.node(f"{LAYERS}/Block[4]")).not_to_have_class(__import__("re").compile("tbnb-gtraced"))
    screenshot(s.page, f"graphs-info-{s.front_end}")


def test_search_lists_and_opens(gs: Graphs):
    from playwright.sync_api import expect

    s = gs
    expect(s.node("Net")).to_have_count(1, timeout=60_000)
    box = s.card().locator(".tbnb-graph-searchbox")
    box.fill(r"Block\[4\]/Conv2d\[conv2\]")
    matches = s.card().locator(".tbnb-graph-match")
    expect(matches.first).to_be_visible(timeout=30_000)
    assert s.state()["graph_search"] == r"Block\[4\]/Conv2d\[conv2\]"
    target = matches.first.get_attribute("data-id")
    assert target and "Block[4]/Conv2d[conv2]" in target
    matches.first.click()
    expect(s.node(target)).to_have_count(1, timeout=30_000)
    state = s.state()
    assert f"{LAYERS}/Block[4]" in state["graph_expanded"] and state["graph_selected"] == target
    expect(s.card().locator(".tbnb-graph-info-id")).to_have_text(target)
    screenshot(s.page, f"graphs-search-{s.front_end}")


def stem_series(logdir) -> tuple[str, list[str]]:
    """The series of ops inside the stem (fewer than five: ungrouped at first) and its members' ids."""
    import tbnb
    from tbnb.reader.plugins.graph import build_hierarchy

    h = build_hierarchy(tbnb.load(logdir).graph("cnn"))
    found = [sr for sr in h.series if sr.name.startswith(f"{STEM}/")]
    assert found, [sr.name for sr in h.series]
    return found[0].name, [h.names[i] for i in found[0].members]


def test_info_panel_groups_series_and_sets_nodes_beside_the_main_graph(gs: Graphs):
    import re

    from playwright.sync_api import expect

    s = gs
    series, members = stem_series(s.logdir)
    run_cell(s.page, NB, C_STEM)
    expect(s.node(members[0])).to_have_count(1, timeout=60_000)
    expect(s.node(series)).to_have_count(0)
    info = s.card().locator(".tbnb-graph-info")
    s.node(members[0]).dispatch_event("click")  # wherever the view is panned to
    expect(info.locator(".tbnb-graph-info-id")).to_have_text(members[0], timeout=30_000)
    # group the series: one node for its ops, the choice read back in the kernel
    info.locator(".tbnb-graph-group").click()
    expect(s.node(series)).to_have_count(1, timeout=30_000)
    expect(s.node(members[0])).to_have_count(0)
    assert s.state()["graph_series"] == {series: True}
    expect(info.locator(".tbnb-graph-group")).to_have_text("Ungroup series", timeout=30_000)
    # ungroup it again: its ops drawn one by one
    info.locator(".tbnb-graph-group").click()
    expect(s.node(members[0])).to_have_count(1, timeout=30_000)
    expect(s.node(series)).to_have_count(0)
    assert s.state()["graph_series"] == {series: False}
    # remove an op from the main graph: it is set beside it (dashed, its own column) ...
    op = s.node(members[0])
    before = op.bounding_box()
    expect(info.locator(".tbnb-graph-extract")).to_have_text("Remove from main graph", timeout=30_000)
    info.locator(".tbnb-graph-extract").click()
    expect(op).to_have_class(re.compile("tbnb-gnode-aux"), timeout=30_000)
    assert op.locator(".tbnb-gshape").get_attribute("stroke-dasharray")
    assert op.bounding_box() != before
    assert s.state()["graph_include"] == {members[0]: False}
    s.card().locator(".tbnb-graph-fit").click()
    s.board(C_SHOW).evaluate("(el) => el.scrollIntoView({block: 'start'})")
    screenshot(s.page, f"graphs-aux-{s.front_end}")
    # ... and added back
    expect(info.locator(".tbnb-graph-extract")).to_have_text("Add to main graph", timeout=30_000)
    info.locator(".tbnb-graph-extract").click()
    expect(op).not_to_have_class(re.compile("tbnb-gnode-aux"), timeout=30_000)
    assert s.state()["graph_include"] == {members[0]: True}


def test_page_hygiene(gs: Graphs):
    s = gs
    assert_no_js_errors(s.log)
    assert_only_loopback(s.log)
