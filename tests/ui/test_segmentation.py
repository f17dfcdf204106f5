"""The segmentation card and link by step for image cards in a real browser (JupyterLab 4), on a
logdir written by torch's SummaryWriter through ``tbnb.log_segmentation`` and ``tbnb.log_filters``.

Checked on the canvases' pixels: the three panes are the image and the two masks in their class
colours; the overlay differs from the image where a class is shown and is the image again with
every class switched off in the legend; the errors view paints exactly the pixels where the
logged label and prediction differ. Setting ``board.selected_step`` from Python moves the
segmentation card and the image cards to the nearest logged step at or before it (link by step),
and not when ``link_step`` is off; "Compare runs" shows every run's image at the card's step; a
new step written while the Board is open appears (pushed). Screenshots:
tests/artifacts/segmentation-lab.png, segmentation-errors-lab.png, segmentation-compare-lab.png.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.segmentation_logs import CLASSES, HAVE_TORCH, shapes

from .harness import BrowserLog, assert_no_js_errors, open_notebook, own_page, run_cell, screenshot

pytestmark = [pytest.mark.ui, pytest.mark.torch,
              pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed"),
              pytest.mark.parametrize("jupyter_server", ["lab"], indirect=True)]

NB = "segmentation.ipynb"
RUNS = ("base", "new")
STEPS = (0, 10, 20, 30, 40)
PALETTE = ["#000000", "#e6194b", "#3cb44b"]
ERROR_RGB = [230, 20, 60]  # js/src/dashboards/images/segmentation_pixels.js
C_SHOW, C_STEP15, C_STEP40, C_UNLINK, C_WRITE = range(5)


def sample(run: str, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The logged image [1, 32, 32] in [0, 1], its label and a prediction that improves with the step."""
    images, masks = shapes(np.random.default_rng(7), 1)
    rng = np.random.default_rng(step + (1000 if run == "new" else 0))
    label = masks[0]
    prediction = label.copy()
    wrong = rng.random(label.shape) < 0.5 / (1 + step / 5)
    prediction[wrong] = (label[wrong] + 1) % len(CLASSES)
    return images[0], label, prediction


def write(logdir: Path, run: str, steps: tuple[int, ...]) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    import tbnb

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(1, 8, 3)
    with SummaryWriter(str(logdir / run)) as w:
        for step in steps:
            image, label, prediction = sample(run, step)
            tbnb.log_segmentation(w, "val/s", image, label, prediction, step, classes=CLASSES, palette=PALETTE)
            tbnb.log_filters(w, "filters/conv1", conv.weight * (1 + step / 10), step)
            w.add_scalar("loss", 1 / (1 + step), step)


def notebook_cells(logdir: Path) -> list[str]:
    return [
        f"import tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval=0.5, dashboard='images', card_width=560)",
        "board.link_step = True\nboard.selected_step = 15",
        "board.selected_step = 40",
        "board.link_step = False\nboard.selected_step = 0",
        (f"import sys\nsys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
         f"from tests.ui.test_segmentation import write\nwrite(__import__('pathlib').Path({str(logdir)!r}), 'base', (50,))"),
    ]


# What the page shows of one card: its step, its panes' sizes and pixels, its legend.
CARD_JS = """
([kind, tag, run]) => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = root && root.querySelector(`.tbnb-card[data-kind="${kind}"][data-tag="${tag}"][data-run="${run}"]`);
  if (!card) return null;
  const panes = [...card.querySelectorAll('canvas.tbnb-seg-canvas')].map((c) => ({
    caption: c.dataset.pane, width: c.width, height: c.height, shown: c.clientWidth,
    rendering: getComputedStyle(c).imageRendering,
    pixels: Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data) }));
  const slider = card.querySelector('.tbnb-step-slider');
  const imgs = [...card.querySelectorAll('.tbnb-items img, .tbnb-compare img')].map((i) => ({
    loaded: i.complete && i.naturalWidth > 0, pixelated: getComputedStyle(i).imageRendering,
    scale: i.clientWidth / Math.max(1, i.naturalWidth) }));
  const cells = [...card.querySelectorAll('.tbnb-compare:not([hidden]) .tbnb-compare-cell')].map((c) => ({
    run: c.dataset.run, step: c.dataset.step ? Number(c.dataset.step) : null, img: !!c.querySelector('img') }));
  return { step: card.dataset.step ? Number(card.dataset.step) : null, panes, imgs, cells,
           slider: slider ? Number(slider.value) : null,
           legend: [...card.querySelectorAll('.tbnb-seg-class')].map((b) => ({ name: b.children[1].textContent,
             iou: (b.querySelector('.tbnb-seg-iou') || {}).textContent || '', on: b.getAttribute('aria-pressed') === 'true' })),
           note: (card.querySelector('.tbnb-seg-note') || {}).textContent || '' };
}
"""


class Cards:
    def __init__(self, page: Any, log: BrowserLog) -> None:
        self.page, self.log = page, log

    def locator(self, kind: str, tag: str, run: str) -> Any:
        return self.page.locator(f".jp-OutputArea .tbnb-card[data-kind='{kind}'][data-tag='{tag}'][data-run='{run}']").first

    def card(self, kind: str, tag: str, run: str) -> dict:
        return self.page.evaluate(CARD_JS, [kind, tag, run])

    def wait(self, kind: str, tag: str, run: str, body: str, what: str, timeout: float = 30) -> dict:
        self.locator(kind, tag, run).scroll_into_view_if_needed()
        fn = f"(a) => {{ const c = ({CARD_JS})(a); return !!c && ({body}); }}"
        try:
            self.page.wait_for_function(fn, arg=[kind, tag, run], timeout=timeout * 1000, polling=150)
        except Exception as err:
            screenshot(self.page, "segmentation-failed-lab")
            html = self.locator(kind, tag, run).evaluate("(e) => e.outerHTML")[:1500]
            raise AssertionError(f"{what}: {str(self.card(kind, tag, run))[:600]}\n{html}") from err
        return self.card(kind, tag, run)


@pytest.fixture(scope="module")
def cards(jupyter_server, browser):
    logdir = jupyter_server.root_dir / "seglogs"
    shutil.rmtree(logdir, ignore_errors=True)
    for run in RUNS:
        write(logdir, run, STEPS)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        page.set_viewport_size({"width": 1500, "height": 1100})
        jupyter_server.write_notebook(NB, notebook_cells(logdir))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        yield Cards(page, log)


def pixels(pane: dict) -> np.ndarray:
    return np.array(pane["pixels"], dtype=np.int64).reshape(pane["height"], pane["width"], 4)


def rgb(hex_colour: str) -> list[int]:
    return [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]


def test_the_three_panes_overlay_and_errors(cards: Cards) -> None:
    c = cards
    card = c.wait("segmentation", "val/s", "base", "c.step === 40 && c.panes.length === 3", "three panes at the last step")
    image, label, prediction = sample("base", 40)
    assert [p["caption"] for p in card["panes"]] == ["Image", "Label", "Prediction"]
    assert all((p["width"], p["height"]) == (32, 32) and p["shown"] > 64 for p in card["panes"])
    assert {p["rendering"] for p in card["panes"]} == {"pixelated"}  # scaled up with hard edges
    grey = (image[0] * 255).clip(0, 255).astype(np.uint8)  # what torch's add_image stores
    np.testing.assert_array_equal(pixels(card["panes"][0])[..., 0], grey)
    palette = np.array([rgb(p) for p in PALETTE])
    np.testing.assert_array_equal(pixels(card["panes"][1])[..., :3], palette[label])
    np.testing.assert_array_equal(pixels(card["panes"][2])[..., :3], palette[prediction])
    assert [entry["name"] for entry in card["legend"]] == ["background", "disc", "square"]
    assert all(entry["on"] for entry in card["legend"])
    iou = [((label == k) & (prediction == k)).sum() / ((label == k) | (prediction == k)).sum() for k in range(3)]
    assert [entry["iou"] for entry in card["legend"]] == [f"{v:.3f}" for v in iou]  # the step's IoU

    c.locator("segmentation", "val/s", "base").locator(".tbnb-seg-mode[data-mode='overlay']").click()
    card = c.wait("segmentation", "val/s", "base", "c.panes.length === 2", "overlay")
    assert [p["caption"] for p in card["panes"]] == ["Label over image", "Prediction over image"]
    over = pixels(card["panes"][0])
    base = np.repeat(grey[..., None], 3, axis=2).astype(np.int64)
    blend = np.rint(base * 0.5 + palette[label] * 0.5)  # the default opacity
    assert np.abs(over[..., :3] - blend).max() <= 1  # rounding of the half
    assert (over[..., :3] != base).any()
    for i in range(len(CLASSES)):  # every class off: the image itself
        c.locator("segmentation", "val/s", "base").locator(f".tbnb-seg-class[data-class='{i}']").click()
    card = c.wait("segmentation", "val/s", "base", "c.legend.every((e) => !e.on)", "all classes off")
    np.testing.assert_array_equal(pixels(card["panes"][0])[..., :3], base)
    for i in range(len(CLASSES)):
        c.locator("segmentation", "val/s", "base").locator(f".tbnb-seg-class[data-class='{i}']").click()

    c.locator("segmentation", "val/s", "base").locator(".tbnb-seg-mode[data-mode='errors']").click()
    card = c.wait("segmentation", "val/s", "base", "c.panes.length === 1 && c.legend.every((e) => e.on)", "errors")
    errors = pixels(card["panes"][0])
    painted = (errors[..., :3] == ERROR_RGB).all(axis=2)
    np.testing.assert_array_equal(painted, label != prediction)
    assert painted.sum() > 0 and f"{painted.sum():,} of 1,024 pixels wrong" in card["note"]
    c.locator("segmentation", "val/s", "base").scroll_into_view_if_needed()
    assert screenshot(c.page, "segmentation-errors-lab").exists()
    c.locator("segmentation", "val/s", "base").locator(".tbnb-seg-mode[data-mode='panes']").click()
    assert_no_js_errors(c.log)


def test_selected_step_moves_the_segmentation_and_image_cards(cards: Cards) -> None:
    c = cards
    run_cell(c.page, NB, C_STEP15)  # 15 is not logged: the nearest step at or before it, 10
    card = c.wait("segmentation", "val/s", "new", "c.step === 10 && c.panes.length === 3", "segmentation at 10")
    _, label, _ = sample("new", 10)
    palette = np.array([rgb(p) for p in PALETTE])
    np.testing.assert_array_equal(pixels(card["panes"][1])[..., :3], palette[label])
    img = c.wait("images", "filters/conv1", "base", "c.step === 10 && c.slider === 1", "image card at 10")
    assert img["imgs"] and img["imgs"][0]["pixelated"] == "pixelated"
    c.wait("images", "val/s/label", "new", "c.step === 10", "the label image card at 10")
    run_cell(c.page, NB, C_STEP40)
    c.wait("segmentation", "val/s", "base", "c.step === 40", "segmentation at 40")
    c.wait("images", "filters/conv1", "new", "c.step === 40 && c.slider === 4", "image card at 40")
    run_cell(c.page, NB, C_UNLINK)  # link by step off: the cards stay
    c.page.wait_for_timeout(1000)
    assert c.card("segmentation", "val/s", "base")["step"] == 40
    assert c.card("images", "filters/conv1", "new")["step"] == 40


def test_compare_runs_and_a_new_step_appears(cards: Cards) -> None:
    c = cards
    c.locator("images", "filters/conv1", "base").locator(".tbnb-compare-toggle").click()
    card = c.wait("images", "filters/conv1", "base", "c.cells.length === 2 && c.cells.every((x) => x.img)", "compare")
    assert [(x["run"], x["step"]) for x in card["cells"]] == [("base", 40), ("new", 40)]
    c.locator("images", "filters/conv1", "base").scroll_into_view_if_needed()
    assert screenshot(c.page, "segmentation-compare-lab").exists()
    c.locator("segmentation", "val/s", "base").scroll_into_view_if_needed()
    path = screenshot(c.page, "segmentation-lab")
    assert path.exists()
    run_cell(c.page, NB, C_WRITE)  # training writes step 50: pushed to the card, which follows the latest
    c.wait("segmentation", "val/s", "base", "c.step === 50 && c.panes.length === 3", "new step 50", timeout=40)
    assert_no_js_errors(c.log)
