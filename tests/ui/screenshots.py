"""The documentation's screenshots: ``python -m tests.ui.screenshots [--only a,b] [--out DIR]``.

Writes the demo logdir (and what the other dashboards need: seeds, a torch sweep, graph and
embedding, a segmentation, runs for each diagnostic finding), serves the demo logdir from moto's
S3 server on loopback, starts JupyterLab and Debian's Chromium with the UI tests' harness, runs
one small notebook per picture, waits until its dashboard has drawn, and saves the Board (or the
cards, or the whole cell) cropped, as a palette PNG under ``docs/images/`` (each well under
200 KB). A picture whose cell shows an error is not saved. Look at them before committing: they
are what the README and the site show; tests/test_docs.py checks that they are all the README
and the site show.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    BrowserLog,
    cell_output,
    js_errors,
    missing_requirements,
    own_page,
    requirements_message,
    run_notebook_in_browser,
    screenshot,
    start_jupyter_server,
    stop_jupyter_server,
)
from .screenshot_logs import S3_LOGDIR, s3_logdir, write_all

OUT = Path(__file__).resolve().parents[2] / "docs" / "images"
MAX_BYTES = 200_000
PLOTS = ".tbnb .js-plotly-plot .main-svg"


@dataclass(frozen=True)
class Shot:
    """One picture: the cell that shows it, what must be on the page before it is taken, and
    the largest height kept (from the top of what is cropped)."""

    name: str
    code: str
    ready: str  # a JavaScript expression, true once the dashboard has drawn
    height: int = 640
    crop: str = "board"  # "board": the Board's element; "outputs": every output of the cell; "cell": input too


def count(selector: str, n: int = 1) -> str:
    return f"document.querySelectorAll({selector!r}).length >= {n}"


def board(logdir: str, **settings: object) -> str:
    args = "".join(f", {k}={v!r}" for k, v in settings.items())
    return f"import tbnb\nboard = tbnb.show({logdir!r}, reload_interval=0{args})"


def loaded_audio(n: int) -> str:
    return f"Array.from(document.querySelectorAll('.tbnb audio')).filter((a) => a.duration > 0).length >= {n}"


#: Where the remote picture's S3 server listens, put in its cell when the server has started.
ENDPOINT = "$ENDPOINT"

#: The README's custom plot: a scatter of each run's validation accuracy against its loss.
CUSTOM_CARD = """import plotly.graph_objects as go
import tbnb

def acc_vs_loss(lg, runs):
    fig = go.Figure()
    for run in runs:
        a, l = lg.scalars(run, "accuracy/val"), lg.scalars(run, "loss/val")
        fig.add_scatter(x=l.value, y=a.value, mode="markers", name=run)
    return fig.update_layout(xaxis_title="loss/val", yaxis_title="accuracy/val")

board = tbnb.show("demo-runs", reload_interval=0, card_width=640, tag_filter="^accuracy/val$")
board.add_card("accuracy vs loss", acc_vs_loss)"""


SHOTS = (
    Shot("board", board("demo-runs", smoothing=0.6), count(PLOTS, 4), 600),
    Shot("scalars", board("demo-runs", dashboard="scalars", smoothing=0.8, best="min",
                          tag_filter="^loss/"), count(PLOTS, 2), 560),
    Shot("step-table", board("demo-runs", dashboard="scalars", tag_filter="^loss/train$", selected_step=150,
                             smoothing=0.6), count(".tbnb-data-table .tbnb-run-cell", 3), 600),
    Shot("run-groups", board("seed-runs", dashboard="scalars", run_groups=r"(?P<group>.*)/seed_\d+",
                             group_band="std", smoothing=0.0), count(PLOTS, 1), 470),
    Shot("histograms", board("demo-runs", dashboard="histograms", tag_filter="^weights/"), count(PLOTS, 3), 480),
    Shot("distributions", board("demo-runs", dashboard="distributions", tag_filter="^weights/"),
         count(PLOTS, 3), 480),
    Shot("images", board("demo-runs", dashboard="images", tag_filter="^inputs/sample$"), count(".tbnb img", 3), 480),
    Shot("audio", board("demo-runs", dashboard="audio"), loaded_audio(3), 540),
    Shot("text", board("demo-runs", dashboard="text"), count(".tbnb-markdown", 1), 560),
    Shot("pr-curves", board("demo-runs", dashboard="pr_curves"), count(PLOTS, 1), 480),
    Shot("custom-scalars", board("custom-runs", dashboard="custom_scalars"), count(PLOTS, 2), 520),
    Shot("mesh", board("mesh-runs", dashboard="mesh"), count(".tbnb-mesh-plot .main-svg", 2), 620),
    Shot("hparams", board("sweep-runs", dashboard="hparams", hparams_join="parent"),
         count(".tbnb-hp-grid tbody tr", 4) + " && " + count(".tbnb-hp-parcoords .main-svg", 1), 700),
    Shot("graphs", board("graph-runs", dashboard="graphs", graph_expanded=["Net", "Net/Sequential[layers]"],
                         graph_selected="Net/Sequential[layers]/Block[1]", graph_color_by="structure"),
         count(".tbnb-gshape", 6), 620),
    Shot("projector", board("projector-runs", dashboard="projector", projector_dims=3,
                            projector_color_by="kind", projector_label_by="name"),
         count("canvas[data-testid=projector-canvas]", 1) + " && " + count(".tbnb-pj-legend", 1), 760),
    Shot("diagnostics", board("diagnostics-runs", dashboard="diagnostics"),
         count(".tbnb-diag-item", 4) + " && " + count(".tbnb-diag-plot .main-svg", 4), 760),
    Shot("segmentation", board("segmentation-runs", dashboard="images", tag_filter="^val/", card_width=720),
         count(".tbnb-seg-canvas", 3) + " && " + count(".tbnb-seg-iou", 3), 640),
    Shot("custom-card", CUSTOM_CARD, count(".tbnb-card-custom .main-svg", 1), 760, "cell"),
    Shot("plugin-example", board("demo-runs", dashboard="example", card_width=900,
                                   runs=["mnist/lr_0.1", "tf2/.*"]),
         count(".tbnb-card-example tbody tr polyline", 10), 600),
    Shot("remote", f"import tbnb\nboard = tbnb.show({S3_LOGDIR!r}, storage_options={{'endpoint_url': {ENDPOINT!r}}},\n"
                   "                  reload_interval=0, tag_filter='^loss/')",
         count(PLOTS, 2), 620, "cell"),
    Shot("cards", "import tbnb\nboard = tbnb.Board('demo-runs', reload_interval=0, smoothing=0.8, runs=['mnist/.*'])\n"
                  "display(board.card('loss/train', width=560, height=300))\n"
                  "display(board.card('inputs/sample', step=200))",
         count(".jp-OutputArea .js-plotly-plot .main-svg", 1) + " && " + count(".jp-OutputArea img", 1),
         560, "outputs"),
)

#: What a picture must not show: a card's or the Board's error or problems, or text on stderr.
SAID_WRONG = """
(cell) => Array.from(cell.querySelectorAll(
  '.tbnb-error, .tbnb-problems, .tbnb-problem-list, [data-mime-type="application/vnd.jupyter.stderr"]'))
  .filter((e) => e.offsetParent !== null && e.textContent.trim())
  .map((e) => e.textContent.trim().slice(0, 200))
"""


def compress(png: bytes) -> bytes:
    """A palette PNG of the screenshot: the dashboards' flat colours survive 256 entries."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, format="PNG", optimize=True)
    return out.getvalue()


def take(page, server, shot: Shot, out: Path, endpoint: str) -> Path:
    """Run the shot's notebook in the open page and save its crop; return the file."""
    name = f"shot-{shot.name}.ipynb"
    server.write_notebook(name, [shot.code.replace(ENDPOINT, endpoint)])
    run_notebook_in_browser(page, server, name, timeout=120)
    page.evaluate("window.jupyterapp && window.jupyterapp.shell.collapseLeft()")  # the board gets the width
    page.wait_for_function(shot.ready, timeout=90_000)
    page.wait_for_timeout(1500)  # transitions and late layout: a still picture
    cell = page.locator(".jp-Notebook .jp-Cell").first
    said = cell.evaluate(SAID_WRONG)
    if said:
        raise RuntimeError(f"the cell shows errors: {said[:3]}")
    target = cell if shot.crop == "cell" else cell_output(page, 0)
    if shot.crop == "board":
        target = target.locator(".tbnb").first
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    assert box is not None, f"{shot.name}: nothing to crop"
    clip = {"x": box["x"], "y": box["y"], "width": min(box["width"], 1300), "height": min(box["height"], shot.height)}
    data = compress(page.screenshot(clip=clip))
    if len(data) > MAX_BYTES:
        raise RuntimeError(f"{shot.name}: {len(data)} bytes, over {MAX_BYTES}")
    path = out / f"{shot.name}.png"
    path.write_bytes(data)
    return path


def shoot(browser, server, shot: Shot, out: Path, endpoint: str) -> bool:
    """Take one picture in a page of its own; say where it went, or why it failed (and go on)."""
    log = BrowserLog()
    with own_page(browser, log, server) as page:
        page.set_viewport_size({"width": 1320, "height": 1000})
        try:
            path = take(page, server, shot, out, endpoint)
            errors = js_errors(log)
            if errors:
                raise RuntimeError(f"errors on the page: {errors[:3]}")
        except Exception as err:  # noqa: BLE001 - reported, the next shot still taken
            seen = screenshot(page, f"screenshot-failed-{shot.name}")
            print(f"{shot.name}: FAILED ({type(err).__name__}: {str(err)[:300]}); the page: {seen}", file=sys.stderr)
            return False
    print(f"{path}: {path.stat().st_size / 1000:.0f} KB")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ui.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated names: " + ", ".join(s.name for s in SHOTS))
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the PNGs go (default {OUT})")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(",")) if args.only else {s.name for s in SHOTS}
    unknown = wanted - {s.name for s in SHOTS}
    if unknown:
        parser.error(f"unknown shots: {sorted(unknown)}")
    missing = missing_requirements("lab")
    if missing:
        print(requirements_message(missing), file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tbnb-shots-") as tmp:
        root = Path(tmp) / "root"
        write_all(root)
        with s3_logdir(root / "demo-runs") as endpoint:  # before the server: its kernels inherit the credentials
            server = start_jupyter_server("lab", Path(tmp))
            try:
                with sync_playwright() as p:
                    browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                    try:
                        for shot in (s for s in SHOTS if s.name in wanted):
                            if not shoot(browser, server, shot, args.out, endpoint):
                                failed.append(shot.name)
                    finally:
                        browser.close()
            finally:
                stop_jupyter_server(server)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
