"""The diagnostics tab and a derived card in JupyterLab + Chromium, on tests/diagnostics_logs.py's
logdir (tbnb's writer: an overfitting pair, an lr_too_high run, a range test, update ratios and a
healthy run): every finding's sentence, each chart drawn (plotly's own state on the element: the
gap shading, the best step, the 1e-3 guide line and the band on a log axis), the healthy run in
the one-line summary, hostile names as text, and ``board.derived``'s "gap" card drawn like any
scalar card. Screenshot: tests/artifacts/diagnostics-lab.png.
"""

from __future__ import annotations

import shutil

import pytest

from tests.diagnostics_logs import write_diagnostics_logdir

from .harness import (
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    open_notebook,
    own_page,
    run_cell,
    screenshot,
)
from .test_dashboards import FIGURE_JS, Dash

pytestmark = pytest.mark.ui

NB = "diagnostics.ipynb"
GAP = "{loss/val} - {loss/train}"
C_SHOW, C_TAB = range(2)
LAYOUT_JS = """
(plot) => ({
  shapes: (plot._fullLayout.shapes || []).map((s) => ({name: s.name || "", type: s.type, x0: s.x0, y0: s.y0, y1: s.y1})),
  ytype: plot._fullLayout.yaxis.type, xtype: plot._fullLayout.xaxis.type,
})
"""


@pytest.mark.parametrize("jupyter_server", ["lab"], indirect=True)
def test_the_diagnostics_tab_says_and_draws_each_finding(jupyter_server: JupyterServer, browser) -> None:
    from playwright.sync_api import expect

    logdir = jupyter_server.root_dir / "diagnostics-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    write_diagnostics_logdir(logdir)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        s = Dash(jupyter_server, page, log, logdir)
        jupyter_server.write_notebook(NB, [
            f"import tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval=0, pinned=['gap'], derived={{'gap': {GAP!r}}})",
            'board.dashboard = "diagnostics"',
        ])
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        board = s.board(C_SHOW)
        expect(board.locator(".tbnb-run-name")).not_to_have_count(0, timeout=60_000)

        # board.derived: a "gap" scalar card, drawn from the kernel's series like a logged tag
        gap = board.locator('.tbnb-card[data-tag="gap"]').first
        gap.scroll_into_view_if_needed()
        plot = gap.locator(".js-plotly-plot")
        page.wait_for_function("(p) => Array.isArray(p.data) && p.data.some((t) => t.x && t.x.length === 20)",
                               arg=plot.element_handle(), timeout=30_000)

        run_cell(page, NB, C_TAB)
        expect(s.tab(C_SHOW, "diagnostics")).to_have_attribute("aria-selected", "true")
        items = board.locator(".tbnb-diag-item")
        expect(items).to_have_count(4, timeout=30_000)
        text = board.locator(".tbnb-card-diagnostics").inner_text()
        for words in ("overfit: overfitting", "too_high: lr too high", "ratios: update ratio low",
                      "ratios: update ratio high", "lr_find: lr range test", "best at step 40",
                      "Nothing found in 1 run: healthy."):
            assert words in text, (words, text)
        for kind in ("pair", "lr", "lr_find", "update_ratio"):
            el = board.locator(f'.tbnb-diag-item[data-chart="{kind}"] .tbnb-diag-plot')
            page.wait_for_function("(p) => Array.isArray(p.data) && p.data.length > 0", arg=el.element_handle(),
                                   timeout=30_000)
        pair = board.locator('.tbnb-diag-item[data-chart="pair"] .tbnb-diag-plot')
        traces = pair.evaluate(FIGURE_JS)["traces"]
        assert any(t["fill"] == "tonexty" and t["n"] == 20 for t in traces), traces  # the gap, shaded
        assert pair.evaluate(LAYOUT_JS)["shapes"][0]["x0"] == 40  # the best validation step
        ratios = board.locator('.tbnb-diag-item[data-chart="update_ratio"] .tbnb-diag-plot')
        layout = ratios.evaluate(LAYOUT_JS)
        assert layout["ytype"] == "log"
        by_name = {sh["name"]: sh for sh in layout["shapes"]}
        # plotly keeps a log axis's shape positions as log10 and back: equal within float rounding
        assert by_name["guide"]["y0"] == pytest.approx(1e-3, rel=1e-12)
        assert [by_name["band"]["y0"], by_name["band"]["y1"]] == pytest.approx([1e-4, 1e-2], rel=1e-12)
        widths = ratios.evaluate("(p) => p.data.map((t) => [t.name, t.line.width])")
        assert dict(widths)["layers.0.weight"] > dict(widths)["layers.2.weight"]  # outside the band: emphasised
        found = board.locator('.tbnb-diag-item[data-chart="lr_find"] .tbnb-diag-plot')
        assert found.evaluate(LAYOUT_JS)["xtype"] == "log"
        lr = board.locator('.tbnb-diag-item[data-chart="lr"] .tbnb-diag-plot')
        assert lr.evaluate("(p) => p._fullLayout.yaxis2.type") == "log"
        board.locator(".tbnb-card-diagnostics").scroll_into_view_if_needed()
        screenshot(page, f"diagnostics-{s.front_end}", full_page=True)
        assert_no_js_errors(log)
