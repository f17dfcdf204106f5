"""Cards outlive the kernel: a notebook of cards of every kind, executed and converted by nbconvert
with the network cut off, drawn in Chromium from the HTML file with every non-file request
aborted; and the executed notebook reopened in JupyterLab and Notebook 7 with no kernel.

What is checked is what plotly drew (``.main-svg`` and the traces in ``_fullData``), the last
step of each run in the drawn data, the images' pixels and the audio's sources, and that no
hostile name ran. Screenshots: tests/artifacts/cards-nbconvert.png, cards-nokernel-<front end>.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

import tbnb

from .cards_notebook import CARDS, HOSTILE_RUN, Executed, can_cut_network, execute_and_convert
from .harness import BrowserLog, assert_only_loopback, cell_output, own_page, screenshot

pytestmark = pytest.mark.ui

CHART_KINDS = ("scalars", "histograms", "distributions")

#: For each drawn plotly chart in document order: its traces' names and last x.
_CHARTS_JS = """
() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((el) => ({
  svg: el.querySelectorAll('.main-svg').length,
  paths: el.querySelectorAll('.scatterlayer .trace path.js-line, .scatterlayer .trace path.js-fill').length,
  traces: (el._fullData || []).map((t) => ({name: t.name, last: t.x && t.x.length ? Number(t.x[t.x.length - 1]) : null,
                                          n: t.x ? t.x.length : 0})),
}))
"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Executed:
    why = can_cut_network()
    if why is not None:
        pytest.skip(f"cannot cut the network off for nbconvert: {why}")
    return execute_and_convert(tmp_path_factory.mktemp("cards-nb"))


def last_steps(logdir: Path, tag: str) -> dict[str, int]:
    lg = tbnb.load(logdir)
    return {run: int(lg.scalars(run, tag).step[-1]) for run in lg.runs() if lg.tags(run).get(tag) == "scalars"}


def check_charts(charts: list[dict], logdir: Path) -> None:
    """Every chart card drawn: plotly's SVG, traces, and each run's last step in the scalar data."""
    assert len(charts) == sum(kind in CHART_KINDS for _, kind, _ in CARDS), charts
    for chart in charts:
        assert chart["svg"] >= 1 and chart["paths"] >= 1 and chart["traces"], chart
    scalars = charts[0]
    expected = last_steps(logdir, "loss/train")
    drawn = {t["name"]: t["last"] for t in scalars["traces"]}
    assert set(drawn) == {n.replace("<", "&lt;").replace(">", "&gt;") for n in expected}  # escaped names
    for run, step in expected.items():
        assert drawn[run.replace("<", "&lt;").replace(">", "&gt;")] == step


def test_nbconvert_html_draws_every_card_offline(executed: Executed, browser) -> None:
    html = executed.html.read_text(encoding="utf-8")
    assert html.count("plotly.js v") == 1  # inlined once for the whole page
    log = BrowserLog()
    aborted: list[str] = []
    with own_page(browser, log) as page:
        page.add_init_script("window.__pwned = 0;")

        def route(r) -> None:
            if r.request.url.startswith(("file:", "data:")):
                r.continue_()
            else:
                aborted.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        page.goto(executed.html.as_uri(), wait_until="load")
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3")
        charts = page.evaluate(_CHARTS_JS)
        check_charts(charts, executed.logdir)
        images = page.evaluate("Array.from(document.querySelectorAll('.tbnb-report-card img'))"
                               ".map((i) => [i.complete, i.naturalWidth])")
        assert images and all(ok and width > 0 for ok, width in images), images
        audio = page.evaluate("Array.from(document.querySelectorAll('.tbnb-report-card audio')).map((a) => a.src)")
        assert audio and all(src.startswith("data:audio/wav;base64,") for src in audio)
        text = page.locator(".tbnb-report-card pre").filter(has_text="window.__pwned").first.inner_text()
        assert "<script>window.__pwned=1</script> & <b>not bold</b>" in text
        assert page.evaluate("window.__pwned") == 0
        screenshot(page, "cards-nbconvert", full_page=True)
    # Only what nbconvert's template itself links (fonts, MathJax...) was asked for and aborted.
    assert not [u for u in aborted if "plotly" in u or "unpkg" in u or "jsdelivr" in u], aborted
    assert not [e for e in log.errors() if "Plotly" in e or "tbnb" in e], log.errors()


def test_cards_are_the_first_output_kinds(executed: Executed) -> None:
    nb = nbformat.read(str(executed.notebook), as_version=4)
    outputs = [cell.outputs for cell in nb.cells[1:]]
    for (_, kind, tag), out in zip(CARDS, outputs):
        assert len(out) == 1 and out[0].output_type == "execute_result", out
        data = out[0].data
        assert data["text/plain"].startswith(f"tbnb {kind} card {tag!r}")
        assert ("application/vnd.plotly.v1+json" in data) == (kind in CHART_KINDS)
        assert not [k for k in data if "widget" in k]
    carriers = [i for i, out in enumerate(outputs) if "plotly.js v" in out[0].data.get("text/html", "")]
    assert carriers == [0]


def test_reopened_without_kernel_shows_the_cards(executed: Executed, jupyter_server, browser) -> None:
    """The executed notebook, opened with no kernel (its kernelspec names none that exists, and
    the dialog is answered "No Kernel"): JupyterLab's plotly renderer draws the chart cards from
    the plotly JSON, the untrusted HTML cards show their images and escaped text."""
    nb = nbformat.read(str(executed.notebook), as_version=4)
    # No kernel that exists, and no language to pick one by (JupyterLab would start python3).
    nb.metadata["kernelspec"] = {"name": "tbnb-no-such-kernel", "display_name": "none", "language": "none"}
    nb.metadata.pop("language_info", None)
    name = f"cards-nokernel-{jupyter_server.front_end}.ipynb"
    nbformat.write(nb, str(jupyter_server.root_dir / name))
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        page.add_init_script("window.__pwned = 0;")
        page.goto(jupyter_server.notebook_url(name), wait_until="domcontentloaded")
        page.locator(".jp-Dialog").get_by_role("button", name="No Kernel").click(timeout=60_000)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3", timeout=60_000)
        check_charts(page.evaluate(_CHARTS_JS), executed.logdir)
        # No kernel was started for this notebook (the server is shared with earlier tests, whose
        # kernels may still run).
        mine = [x for x in jupyter_server.sessions() if str(x.get("path", "")).endswith(name)]
        assert mine == [], mine
        image_cell = 1 + [kind for _, kind, _ in CARDS].index("images")
        widths = cell_output(page, image_cell).locator("img").evaluate_all(
            "(imgs) => imgs.map((i) => i.complete ? i.naturalWidth : 0)")
        assert widths and all(w > 0 for w in widths), widths
        text_cell = 1 + [kind for _, kind, _ in CARDS].index("text")
        assert "<script>window.__pwned=1</script>" in cell_output(page, text_cell).inner_text()
        assert page.evaluate("window.__pwned") == 0
        page.locator(".jp-Notebook .jp-Cell").nth(1).scroll_into_view_if_needed()
        screenshot(page, f"cards-nokernel-{jupyter_server.front_end}")
    assert_only_loopback(log)
    assert HOSTILE_RUN not in json.dumps([e for e in log.errors()])


@pytest.mark.parametrize("jupyter_server", ["lab"], indirect=True)
def test_cards_outlive_the_kernel_in_jupyterlab(executed: Executed, jupyter_server, browser) -> None:
    """A live board's card and a card without a board, run in JupyterLab; the card cell run again
    (its new output carries plotly.js again: the old one is replaced); saved; the kernel shut
    down; the page reloaded: both cards are drawn from the saved outputs (as the PNG JupyterLab's
    plotly renderer saves with a plotly output, or as the chart)."""
    from .harness import open_notebook, run_cell, run_notebook_in_browser

    name = "cards-live.ipynb"
    jupyter_server.write_notebook(name, [
        f"import tbnb\nLOGDIR = {str(executed.logdir)!r}",
        "board = tbnb.show(LOGDIR, smoothing=0.8, hidden_runs=['mnist/lr_0.1'], reload_interval=0)",
        "board.card('loss/train')",
        "tbnb.card(LOGDIR, 'accuracy/train')",
    ])
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        run_notebook_in_browser(page, jupyter_server, name)
        run_cell(page, name, 2)
        page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_timeout(1500)
        saved = nbformat.read(str(jupyter_server.root_dir / name), as_version=4)
        html = [c.outputs[0].data.get("text/html", "") for c in saved.cells[2:]]
        assert "plotly.js v" in html[0] and "plotly.js v" not in html[1]
        assert "smoothing 0.8" in saved.cells[2].outputs[0].data["text/plain"]
        jupyter_server.shutdown_kernels()
        page.reload()
        open_notebook(page, jupyter_server, name)  # a new kernel; the outputs are the saved ones
        # JupyterLab's plotly renderer shows a reopened plotly output as the PNG it saved with
        # it (and draws the live chart on demand): each card is drawn either way.
        page.wait_for_function("""() => {
          const outs = Array.from(document.querySelectorAll('.jp-RenderedPlotly'));
          return outs.length >= 2 && outs.every((o) => o.querySelector('.main-svg') ||
            Array.from(o.querySelectorAll('img')).some((i) => i.complete && i.naturalWidth > 0));
        }""", timeout=60_000)
        assert page.locator(".jp-RenderedPlotly").count() == 2
        page.locator(".jp-RenderedPlotly").nth(0).scroll_into_view_if_needed()
        screenshot(page, "cards-reopened-lab")
    figures = [c.outputs[0].data["application/vnd.plotly.v1+json"] for c in saved.cells[2:]]
    hostile = HOSTILE_RUN.replace("<", "&lt;").replace(">", "&gt;")
    assert {t["name"] for t in figures[0]["data"]} == {"mnist/lr_0.01", "tf2/lr_0.05", hostile}  # one run hidden
    assert {t["name"] for t in figures[1]["data"]} == {"mnist/lr_0.01", "mnist/lr_0.1", "tf2/lr_0.05"}
    assert "640 points (640 drawn) · smoothing 0.8" in figures[0]["layout"]["title"]["text"]
    assert_only_loopback(log)
