"""The example third-party dashboard (examples/tbnb-plugin-example, installed by CI) in a real
browser: the Board loads its page code through the comm, shows its "Example" tab after the
built-in ones, and the tab draws its table (a row per run and scalar tag, a sparkline in the
run's colour) and follows the logdir. Screenshot: tests/artifacts/plugin-example-<front end>.png.
"""

from __future__ import annotations

import importlib
import os
import shutil
import time
from pathlib import Path

import pytest

from tbnb.board.protocol import PALETTE as PALETTE_COLORS

from .harness import (
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    assert_only_loopback,
    cell_output,
    open_notebook,
    own_page,
    run_cell,
    screenshot,
)

pytestmark = pytest.mark.ui

NB = "plugin_example.ipynb"
T0 = 1_700_000_000.0
RUNS = ("alpha", "beta")
TAGS = ("accuracy/val", "loss/train", "loss/val")
PALETTE = PALETTE_COLORS


def write(writer, steps: range, k: float) -> None:
    for s in steps:
        writer.add_scalar("loss/train", k / (s + 1), s, wall_time=T0 + s)
        writer.add_scalar("loss/val", k / (s + 1) + 0.1, s, wall_time=T0 + s)
        writer.add_scalar("accuracy/val", 1 - k / (s + 2), s, wall_time=T0 + s)
    writer.flush()


def cell_of(page, cell: int, row: dict[str, str], column: int) -> str:
    sel = f'.tbnb-card-example tr[data-run="{row["run"]}"][data-tag="{row["tag"]}"] td'
    return cell_output(page, cell).locator(sel).nth(column).inner_text()


def test_the_example_dashboard_draws_its_tab(jupyter_server: JupyterServer, browser) -> None:
    from playwright.sync_api import expect

    from tbnb.testing import EventWriter

    if not os.environ.get("CI"):
        pytest.importorskip("tbnb_plugin_example")
    importlib.import_module("tbnb_plugin_example")  # CI installs it: missing there is a failure
    logdir = jupyter_server.root_dir / "plugin_logs"
    shutil.rmtree(logdir, ignore_errors=True)
    writers = {run: EventWriter(Path(logdir) / run, start_time=T0) for run in RUNS}
    try:
        for i, (run, w) in enumerate(writers.items()):
            write(w, range(20), 1.0 + i)
        jupyter_server.write_notebook(NB, [
            f"import tbnb\nboard = tbnb.Board({str(logdir)!r}, reload_interval=0.5)\nboard",
            "print([d['name'] for d in tbnb.dashboards() if not d['builtin']])",
        ])
        log = BrowserLog()
        with own_page(browser, log, jupyter_server) as page:
            open_notebook(page, jupyter_server, NB)
            run_cell(page, NB, 0)
            out = cell_output(page, 0)
            tab = out.locator('.tbnb-tab[data-dashboard="example"]')
            expect(tab).to_have_text("Example", timeout=60_000)
            labels = out.locator(".tbnb-tab").all_inner_texts()
            assert labels[-1].lower() == "example" and len(labels) > 10  # after the built-in tabs
            tab.click()
            rows = out.locator(".tbnb-card-example tbody tr")
            expect(rows).to_have_count(len(RUNS) * len(TAGS), timeout=30_000)
            first = {"run": "alpha", "tag": "loss/train"}
            assert cell_of(page, 0, first, 2) == "0.05"  # last: 1 / 20
            assert cell_of(page, 0, first, 3) == "0.05 (min)"
            assert cell_of(page, 0, {"run": "beta", "tag": "accuracy/val"}, 3) == f"{1 - 2 / 21:.4g} (max)"
            spark = out.locator('.tbnb-card-example tr[data-run="alpha"][data-tag="loss/val"] polyline')
            assert len(spark.get_attribute("points").split()) == 20
            assert spark.get_attribute("stroke") == PALETTE[0]  # alpha's colour: the palette's first
            write(writers["alpha"], range(20, 40), 1.0)  # live: the poll pushes a new table
            deadline = time.monotonic() + 30
            while cell_of(page, 0, first, 2) != "0.025":
                assert time.monotonic() < deadline, "the example table did not follow the logdir"
                page.wait_for_timeout(200)
            out.locator(".tbnb-card-example").scroll_into_view_if_needed()
            screenshot(page, f"plugin-example-{jupyter_server.front_end}")
            run_cell(page, NB, 1)
            assert "['example']" in cell_output(page, 1).inner_text()
            assert_no_js_errors(log)
            assert_only_loopback(log)
    finally:
        for w in writers.values():
            w.close()
