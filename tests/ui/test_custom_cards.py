"""A custom card (board.add_card) in a real browser: the figure the kernel's function drew is on
the page in the time series tab's "Custom" section, in the run's colour, and it follows the
logdir: points flushed by a writer in this process (no cell run) are drawn by the next poll.
A screenshot of the card before and after: tests/artifacts/custom-card-<front end>-{0,1}.png.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from .harness import (
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    cell_output,
    open_notebook,
    own_page,
    run_cell,
    screenshot,
)

pytestmark = pytest.mark.ui

NB = "custom_cards.ipynb"
TITLE = "accuracy vs loss"
T0 = 1_700_000_000.0
FIRST, MORE = 5, 7

CARD_FUNCTION = f'''
import plotly.graph_objects as go
import tbnb

def acc_vs_loss(lg, runs):
    fig = go.Figure()
    for run in runs:
        a, l = lg.scalars(run, "accuracy/val"), lg.scalars(run, "loss/val")
        fig.add_scatter(x=l.value, y=a.value, mode="markers+lines", name=run)
    fig.update_layout(xaxis_title="loss", yaxis_title="accuracy")
    return fig

board = tbnb.Board(LOGDIR, reload_interval=0.5, run_colors={{"a": "#e52592"}})
board.add_card({TITLE!r}, acc_vs_loss)
board
'''


def write(writer, steps: range, lower: float = 0.0) -> None:
    for s in steps:
        writer.add_scalar("loss/val", 1.0 / (s + 1), s, wall_time=T0 + s)
        writer.add_scalar("accuracy/val", 1.0 - 1.0 / (s + 2) - lower, s, wall_time=T0 + s)
    writer.flush()


def trace_lengths(page, cell: int) -> dict[str, int]:
    card = cell_output(page, cell).locator(".tbnb-card-custom .js-plotly-plot")
    return card.evaluate("el => Object.fromEntries((el.data || []).map((t) => [t.name, t.x.length]))")


def wait_lengths(page, cell: int, want: dict[str, int], timeout: float = 30.0) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    got: dict[str, int] = {}
    while time.monotonic() < deadline:
        try:
            got = trace_lengths(page, cell)
        except Exception:  # noqa: BLE001 - not drawn yet
            got = {}
        if got == want:
            return got
        page.wait_for_timeout(200)
    raise AssertionError(f"the custom card draws {got}, not {want}, after {timeout:g} s")


def test_a_custom_card_draws_and_follows_the_logdir(jupyter_server: JupyterServer, browser) -> None:
    from tbnb.testing import EventWriter

    logdir = jupyter_server.root_dir / "custom_logs"
    shutil.rmtree(logdir, ignore_errors=True)
    writers = {run: EventWriter(Path(logdir) / run, start_time=T0) for run in ("a", "b")}
    try:
        for run, w in writers.items():
            write(w, range(FIRST), 0.0 if run == "a" else 0.1)
        jupyter_server.write_notebook(NB, [f"LOGDIR = {str(logdir)!r}", CARD_FUNCTION])
        log = BrowserLog()
        with own_page(browser, log, jupyter_server) as page:
            open_notebook(page, jupyter_server, NB)
            run_cell(page, NB, 0)
            run_cell(page, NB, 1)
            out = cell_output(page, 1)
            section = out.locator(".tbnb-section", has_text="Custom").first
            section.wait_for(timeout=60_000)
            wait_lengths(page, 1, {"a": FIRST, "b": FIRST}, timeout=60)
            color = out.locator(".tbnb-card-custom .js-plotly-plot").evaluate(
                "el => el.data.find((t) => t.name === 'a').marker.color")
            assert color == "#e52592"  # the run's colour, set on the Board
            out.locator(".tbnb-card-custom").scroll_into_view_if_needed()
            screenshot(page, f"custom-card-{jupyter_server.front_end}-0")
            write(writers["a"], range(FIRST, FIRST + MORE))  # no cell runs: the poll thread pushes
            wait_lengths(page, 1, {"a": FIRST + MORE, "b": FIRST})
            screenshot(page, f"custom-card-{jupyter_server.front_end}-1")
            assert_no_js_errors(log)
    finally:
        for w in writers.values():
            w.close()
