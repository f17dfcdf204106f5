"""The PR curves and custom scalars dashboards in a real browser (JupyterLab 4 and Notebook 7), on
a logdir written by torch: a PR line per run at the slider's step (moving the slider draws the
other step's values), a multiline chart's lines and a margin chart's band with the values written.
Screenshots: tests/artifacts/prcs-<view>-<front end>.png.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from .harness import BrowserLog, JupyterServer, assert_no_js_errors, open_notebook, own_page, run_cell, screenshot
from .test_dashboards import FIGURE_JS, HOVER_JS, Dash

pytestmark = pytest.mark.ui

NB = "prcs.ipynb"
RUNS = ("run_a", "run_b")
PR_TAG = "pr/val"
PR_STEPS = (0, 5, 10)
NUM_THRESHOLDS = 11
SCALAR_STEPS = range(12)
LAYOUT = {
    "Losses": {"all losses": ["Multiline", [r"loss/.*"]]},
    "Validation": {"val band": ["Margin", ["val/mean", "val/lower", "val/upper"]]},
}
C_SHOW, C_CUSTOM = range(2)


def labels_predictions(run: str, step: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng([RUNS.index(run), step])
    labels = rng.integers(0, 2, size=300)
    skill = 0.04 * (step + 1)
    return labels, np.clip(labels * skill + rng.uniform(0, 0.9 - skill, size=300), 0, 0.95)


def expected_pr(run: str, step: int) -> tuple[list[float], list[float]]:
    """(recall, precision) per kept threshold, recomputed from what was written."""
    labels, predictions = labels_predictions(run, step)
    bucket = np.floor(predictions.astype(np.float32) * (NUM_THRESHOLDS - 1))
    tp = np.array([np.sum(labels * (bucket >= i)) for i in range(NUM_THRESHOLDS)], dtype=float)
    fp = np.array([np.sum((1 - labels) * (bucket >= i)) for i in range(NUM_THRESHOLDS)], dtype=float)
    end = int(np.flatnonzero(tp + fp)[-1]) + 1
    fn = labels.sum() - tp
    return (list((tp / np.maximum(1e-7, tp + fn))[:end]), list((tp / np.maximum(1e-7, tp + fp))[:end]))


def scalar(run: str, tag: str, step: int) -> float:
    base = {"loss/train": 2.0, "loss/val": 2.5, "val/mean": 1.0, "val/lower": 0.7, "val/upper": 1.3}[tag]
    return base / (1 + step / 4) + 0.2 * RUNS.index(run)


def write_logdir(logdir: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    for run in RUNS:
        writer = SummaryWriter(str(logdir / run))
        try:
            writer.add_custom_scalars(LAYOUT)
            for step in SCALAR_STEPS:
                for tag in ("loss/train", "loss/val", "val/mean", "val/lower", "val/upper"):
                    writer.add_scalar(tag, scalar(run, tag, step), step)
            for step in PR_STEPS:
                writer.add_pr_curve(PR_TAG, *labels_predictions(run, step), step, num_thresholds=NUM_THRESHOLDS)
        finally:
            writer.close()


@pytest.fixture(scope="module")
def nb(jupyter_server: JupyterServer, browser):
    pytest.importorskip("torch.utils.tensorboard")
    logdir = jupyter_server.root_dir / "prcs-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    write_logdir(logdir)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        s = Dash(jupyter_server, page, log, logdir)
        jupyter_server.write_notebook(NB, [
            f"import tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval=0, smoothing=0.0)",
            'board.dashboard = "custom_scalars"',
        ])
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        from playwright.sync_api import expect

        expect(s.board(C_SHOW).locator(".tbnb-run-name")).not_to_have_count(0, timeout=60_000)
        yield s


def _traces(plot) -> list[dict]:
    return plot.evaluate(FIGURE_JS)["traces"]


def _wait_traces(s: Dash, plot, predicate: str) -> list[dict]:
    """Wait until plotly's drawn data satisfies ``predicate`` (a JS function of plot.data)."""
    s.page.wait_for_function(f"(p) => Array.isArray(p.data) && ({predicate})(p.data)", arg=plot.element_handle(),
                             timeout=20_000)
    return _traces(plot)


def _assert_pr(traces: list[dict], step: int) -> None:
    assert len(traces) == len(RUNS), traces
    for trace, run in zip(traces, RUNS):
        recall, precision = expected_pr(run, step)
        np.testing.assert_allclose(trace["x"], recall, rtol=1e-5, err_msg=f"{run} step {step} recall")
        np.testing.assert_allclose(trace["y"], precision, rtol=1e-5, err_msg=f"{run} step {step} precision")


def test_pr_curves_a_line_per_run_and_the_slider_moves_them(nb: Dash):
    from playwright.sync_api import expect

    s = nb
    s.show_tab(C_SHOW, "pr_curves")
    card = s.board(C_SHOW).locator(f'.tbnb-card[data-kind="pr_curves"][data-tag="{PR_TAG}"]')
    expect(card).to_have_count(1)
    card.scroll_into_view_if_needed()
    plot = card.locator(".js-plotly-plot")
    traces = _wait_traces(s, plot, "(d) => d.length === 2")
    _assert_pr(traces, PR_STEPS[-1])  # the latest step by default
    expect(card.locator(".tbnb-step-text")).to_have_text("step 10")
    shot = screenshot(s.page, f"prcs-pr_curves-{s.front_end}")

    hover = ""
    box = card.locator(".nsewdrag").first.bounding_box()
    for fx in np.linspace(0.05, 0.95, 19):
        for fy in np.linspace(0.05, 0.95, 10):
            s.page.mouse.move(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            hover = card.evaluate(HOVER_JS)
            if hover:
                break
        if hover:
            break
    for word in ("threshold", "precision", "recall", "TP", "FP", "TN", "FN", "step 10"):
        assert word in hover, hover
    s.page.mouse.move(0, 0)

    slider = card.locator(".tbnb-step-slider")
    expect(slider).to_have_attribute("max", str(len(PR_STEPS) - 1))
    slider.focus()
    slider.press("Home")  # the first step: the kernel answers with each run's step 0
    expect(card.locator(".tbnb-step-text")).to_have_text("step 0")
    before = traces
    traces = _wait_traces(s, plot, f"(d) => d.length === 2 && d[0].y.length !== {len(before[0]['y'])} "
                                   f"|| d[0].y[1] !== {before[0]['y'][1]}")
    _assert_pr(traces, 0)
    slider.press("ArrowRight")
    expect(card.locator(".tbnb-step-text")).to_have_text("step 5")
    traces = _wait_traces(s, plot, f"(d) => d[0].y[1] !== {traces[0]['y'][1]}")
    _assert_pr(traces, 5)
    screenshot(s.page, f"prcs-pr_curves-step5-{s.front_end}")
    assert shot.stat().st_size > 10_000

    # The time series tab shows PR cards only when their card type is ticked (TensorBoard has none).
    s.show_tab(C_SHOW, "timeseries")
    board = s.board(C_SHOW)
    expect(board.locator('.tbnb-card[data-kind="pr_curves"]')).to_have_count(0)
    box = board.locator(".tbnb-cardtypes label", has_text="PR curves").locator("input")
    expect(box).not_to_be_checked()
    box.check()
    pr_card = board.locator(f'.tbnb-section:not(.tbnb-pinned) .tbnb-card[data-kind="pr_curves"][data-tag="{PR_TAG}"]')
    expect(pr_card).to_have_count(1)
    pr_card.scroll_into_view_if_needed()
    _assert_pr(_wait_traces(s, pr_card.locator(".js-plotly-plot"), "(d) => d.length === 2"), PR_STEPS[-1])
    box.uncheck()
    expect(pr_card).to_have_count(0)
    assert_no_js_errors(s.log)


def test_custom_scalars_multiline_and_margin_charts(nb: Dash):
    from playwright.sync_api import expect

    s = nb
    run_cell(s.page, NB, C_CUSTOM)
    s.show_tab(C_SHOW, "custom_scalars", click=False)
    board = s.board(C_SHOW)
    expect(board.locator(".tbnb-custom-category > summary b")).to_have_text(["Losses", "Validation"])
    charts = board.locator(".tbnb-card-custom-chart")
    expect(charts.locator(".tbnb-card-title")).to_have_text(["all losses", "val band"])

    multi = charts.nth(0).locator(".js-plotly-plot")
    charts.nth(0).scroll_into_view_if_needed()
    traces = _wait_traces(s, multi, "(d) => d.length === 8")  # raw + smoothed line per run and tag
    names = [t for t in multi.evaluate("(p) => p.data.map((t) => t.name)")]
    assert names[1::2] == [f"{tag} · {run}" for run in RUNS for tag in ("loss/train", "loss/val")], names
    for trace, (run, tag) in zip(traces[1::2], [(r, t) for r in RUNS for t in ("loss/train", "loss/val")]):
        np.testing.assert_allclose(trace["y"], [scalar(run, tag, st) for st in SCALAR_STEPS], rtol=1e-6)
        assert trace["x"] == list(SCALAR_STEPS)

    margin = charts.nth(1).locator(".js-plotly-plot")
    charts.nth(1).scroll_into_view_if_needed()
    traces = _wait_traces(s, margin, "(d) => d.length === 6")  # upper, lower (filled), value per run
    for i, run in enumerate(RUNS):
        upper, lower, value = traces[3 * i: 3 * i + 3]
        assert (upper["fill"], lower["fill"], value["fill"]) == (None, "tonexty", None)
        assert lower["fillcolor"] and lower["fillcolor"].startswith("rgba(")
        for trace, tag in ((upper, "val/upper"), (lower, "val/lower"), (value, "val/mean")):
            np.testing.assert_allclose(trace["y"], [scalar(run, tag, st) for st in SCALAR_STEPS], rtol=1e-6)
    # the band is drawn: plotly's fill path of the lower trace exists and has area
    fills = margin.evaluate("(p) => [...p.querySelectorAll('path.js-fill')].map((e) => e.getAttribute('d') || '')")
    assert sum(len(d) > 20 for d in fills) >= 2, fills
    board.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    board.locator(".tbnb-main").evaluate("(m) => { m.scrollTop = 0; }")
    s.page.mouse.move(0, 0)
    s.page.wait_for_timeout(300)
    path = screenshot(s.page, f"prcs-custom_scalars-{s.front_end}")
    assert path.stat().st_size > 10_000
    assert_no_js_errors(s.log)
