"""Step selection and the data table under scalar cards in a real browser (JupyterLab 4 and
Notebook 7), on a logdir written by torch's SummaryWriter.

Setting ``selected_step`` from Python moves the dotted marker on every card (link by step) and
fills each table with the kernel's values; dragging the marker with the mouse, or moving it with
the arrow keys, sets the trait (read back from the kernel); range selection shows two markers, a
band and min/max/mean; the marker follows the relative and wall axes; tooltip sorting and its row limit
apply to the hover. Screenshots:
tests/artifacts/steptable-<front end>.png and steptable-range-<front end>.png.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .harness import (
    BrowserLog,
    assert_no_js_errors,
    open_notebook,
    own_page,
    printed_json,
    run_cell,
    screenshot,
)

pytestmark = pytest.mark.ui

NB = "steptable.ipynb"
RUNS = ("base", "new", "sparse")
TAGS = ("acc", "loss")
#: "sparse" logs every 7th step: most selected steps are not among its steps.
STEPS = {"base": range(0, 201, 5), "new": range(0, 201, 5), "sparse": range(3, 201, 7)}
C_SHOW, C_STEP, C_READ, C_RANGE, C_NORANGE, C_RELATIVE, C_STEPAXIS, C_TOOLTIP, C_NOTOOLTIP, C_WALL = range(10)


def value(run: str, tag: str, step: int) -> float:
    k = np.exp(-step / (40 if run == "base" else 25 if run == "new" else 60))
    return float(np.float32(2 * k + 0.1 if tag == "loss" else 1 - k))


def notebook_cells(logdir: Path) -> list[str]:
    read = ("print('READ', json.dumps({'step': board.selected_step, 'range': board.selected_range,\n"
            "    'tables': {t: json.loads(board.step_table(t).to_json(orient='records')) for t in ('acc', 'loss')}}))")
    return [
        f"import json\nimport tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval=0, smoothing=0.6)",
        "board.selected_step = 100\n" + read,
        read,
        "board.range_selection = True\nboard.selected_range = [50, 150]\n" + read,
        "board.range_selection = False\nboard.selected_range = None\n" + read,
        "board.x_axis = 'relative'\nboard.selected_step = 60\n" + read,
        "board.x_axis = 'step'",
        "board.tooltip_sort = 'descending'\nboard.tooltip_rows = 2",
        "board.tooltip_sort = 'default'\nboard.tooltip_rows = 0",
        "board.x_axis = 'wall'\n" + read,
    ]


# What the page shows of one card: the markers, the table's header and cells.
CARD_JS = """
([tag]) => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = root && [...root.querySelectorAll('.tbnb-section:not(.tbnb-pinned) .tbnb-card')].find((c) => c.dataset.tag === tag);
  if (!card) return null;
  const plot = card.querySelector('.tbnb-plot');
  const full = plot && plot._fullLayout;
  const layer = card.querySelector('.tbnb-step-layer');
  const box = layer.getBoundingClientRect();
  const markers = [...card.querySelectorAll('.tbnb-step-marker')].filter((m) => !m.hidden).map((m) => {
    const r = m.getBoundingClientRect();
    const h = m.querySelector('.tbnb-step-handle').getBoundingClientRect();
    return { step: Number(m.dataset.step), center: r.left + r.width / 2 - box.left, label: m.textContent,
             handle: [h.left + h.width / 2, h.top + h.height / 2], dotted: getComputedStyle(m, '::after').borderLeftStyle };
  });
  const table = card.querySelector('.tbnb-data-table');
  const head = table ? [...table.querySelectorAll('thead th')].map((th) => th.textContent) : [];
  const rows = table ? [...table.querySelectorAll('tbody tr')].map((tr) => ({
    run: tr.dataset.run, swatch: getComputedStyle(tr.querySelector('.tbnb-dot')).backgroundColor,
    cells: Object.fromEntries([...tr.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, td.textContent])) })) : [];
  const band = card.querySelector('.tbnb-step-band');
  const xa = full && full.xaxis;
  return { markers, head, rows, band: band && !band.hidden,
           offset: xa ? xa._offset : null,
           layer: [box.left, box.top], xrange: xa ? xa.range : null, xtype: xa ? xa.type : null };
}
"""

# Pixel (within the card's layer) of plotly x ``x`` on a card's chart.
PIXEL_JS = """
([tag, x]) => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = [...root.querySelectorAll('.tbnb-section:not(.tbnb-pinned) .tbnb-card')].find((c) => c.dataset.tag === tag);
  const xa = card.querySelector('.tbnb-plot')._fullLayout.xaxis;
  return xa._offset + xa.d2p(x);
}
"""


class Steps:
    def __init__(self, page: Any, log: BrowserLog, front_end: str) -> None:
        self.page, self.log, self.front_end = page, log, front_end

    def card(self, tag: str) -> dict:
        return self.page.evaluate(CARD_JS, [tag])

    def wait(self, tag: str, body: str, what: str, timeout: float = 30) -> dict:
        """Wait until ``body`` (JS of ``c``, CARD_JS's value) holds for the card of ``tag``."""
        fn = f"([tag]) => {{ const c = ({CARD_JS})([tag]); return !!c && ({body}); }}"
        try:
            self.page.wait_for_function(fn, arg=[tag], timeout=timeout * 1000, polling=150)
        except Exception as err:
            raise AssertionError(f"{what}: {self.card(tag)!r}") from err
        return self.card(tag)

    def read(self, cell: int = C_READ) -> dict:
        return printed_json(self.page, NB, cell, "READ")


@pytest.fixture(scope="module")
def steps(jupyter_server, browser):
    from torch.utils.tensorboard import SummaryWriter

    logdir = jupyter_server.root_dir / "steplogs"
    shutil.rmtree(logdir, ignore_errors=True)
    for run in RUNS:
        with SummaryWriter(str(logdir / run)) as w:
            for step in STEPS[run]:
                for tag in TAGS:
                    w.add_scalar(tag, value(run, tag, step), step)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        page.set_viewport_size({"width": 1400, "height": 1000})
        jupyter_server.write_notebook(NB, notebook_cells(logdir))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        s = Steps(page, log, jupyter_server.front_end)
        for tag in TAGS:  # the default: each card's marker at its largest step
            s.wait(tag, "c.markers.length === 1 && c.markers[0].step === 200 && c.rows.length === 3", f"{tag} drawn")
        yield s


def closest(run: str, target: int) -> int:
    steps = list(STEPS[run])
    return min(steps, key=lambda s: (abs(s - target), s))


def test_selected_step_from_python_fills_every_card(steps: Steps) -> None:
    s = steps
    read = s.read(C_STEP)
    assert read["step"] == 100
    for tag in TAGS:  # link by step: every card's marker moves
        card = s.wait(tag, "c.markers.length === 1 && c.markers[0].step === 100", f"{tag} marker at 100")
        assert card["markers"][0]["dotted"] == "dotted" and card["markers"][0]["label"] == "100"
        x = s.page.evaluate(PIXEL_JS, [tag, 100])
        assert card["markers"][0]["center"] == pytest.approx(x, abs=1.5)
        assert card["head"] == ["", "Run ↑", "Smoothed", "Value", "Step", "Relative"]
        kernel = {row["run"]: row for row in read["tables"][tag]}
        assert [r["run"] for r in card["rows"]] == sorted(RUNS)
        for row in card["rows"]:
            run = row["run"]
            want = closest(run, 100)
            assert int(row["cells"]["step"].replace(",", "")) == want == kernel[run]["step"]
            assert float(row["cells"]["value"]) == pytest.approx(value(run, tag, want), rel=1e-3)
            assert kernel[run]["value"] == pytest.approx(value(run, tag, want), rel=1e-6)
            assert float(row["cells"]["smoothed"]) == pytest.approx(kernel[run]["smoothed"], rel=1e-3)
            assert row["swatch"].startswith("rgb")
    # "sparse" has no step 100: 94 and 101 -> 101 is closer
    assert closest("sparse", 100) == 101
    # The settings pane's entries follow the traits.
    board = s.page.locator(".jp-Notebook .jp-OutputArea .tbnb").first
    pane = board.locator(".tbnb-settings")
    if pane.is_hidden():
        board.locator("button[title='Settings']").click()
    checks = {label: pane.locator("label.tbnb-check", has_text=label).locator("input") for label in
              ("Enable step selection and data table", "Enable range selection", "Link by step 100")}
    assert [c.is_checked() for c in checks.values()] == [True, False, True]
    assert pane.get_by_label("Tooltip sorting method").input_value() == "default"
    board.locator(".tbnb-card[data-tag='acc']").first.scroll_into_view_if_needed()
    path = screenshot(s.page, f"steptable-{s.front_end}")
    assert path.exists()


def test_dragging_the_marker_sets_the_trait(steps: Steps) -> None:
    s = steps
    s.read(C_STEP)
    s.wait("loss", "c.markers.length === 1 && c.markers[0].step === 100", "marker at 100")
    s.page.locator(".tbnb-card[data-tag='loss'] .tbnb-data-table").first.scroll_into_view_if_needed()
    card = s.card("loss")
    hx, hy = card["markers"][0]["handle"]
    target = s.page.evaluate(PIXEL_JS, ["loss", 40])
    left, _ = card["layer"]
    s.page.mouse.move(hx, hy)
    s.page.mouse.down()
    s.page.mouse.move(left + target, hy, steps=8)
    s.page.mouse.up()
    card = s.wait("loss", "c.markers.length === 1 && Math.abs(c.markers[0].step - 40) <= 1", "dragged to 40")
    dragged = card["markers"][0]["step"]
    read = s.read()
    assert read["step"] == dragged  # the kernel has the trait the drag set
    s.wait("acc", f"c.markers.length === 1 && c.markers[0].step === {dragged}", "the other card follows")
    # the arrow key moves to the card's next step
    s.page.locator(".tbnb-card[data-tag='loss'] .tbnb-step-handle").first.focus()
    s.page.keyboard.press("ArrowRight")
    after = min(st for run in RUNS for st in STEPS[run] if st > dragged)
    s.wait("loss", f"c.markers[0].step === {after}", "arrow key")
    read = s.read()
    assert read["step"] == after
    assert_no_js_errors(s.log)


def test_range_selection_shows_min_max_mean(steps: Steps) -> None:
    s = steps
    read = s.read(C_RANGE)
    assert read["range"] == [50, 150]
    card = s.wait("loss", "c.markers.length === 2 && c.band && c.head.includes('Min')", "range drawn")
    assert [m["step"] for m in card["markers"]] == [50, 150]
    assert {"Min", "Max", "Mean", "Start value", "End value", "Value change"} <= set(card["head"])
    kernel = {row["run"]: row for row in read["tables"]["loss"]}
    for row in card["rows"]:
        run = row["run"]
        inside = [value(run, "loss", st) for st in STEPS[run] if 50 <= st <= 150]
        assert kernel[run]["mean"] == pytest.approx(np.mean(inside), rel=1e-6)
        assert kernel[run]["points"] == len(inside)
        for key in ("min", "max", "mean"):
            assert float(row["cells"][key]) == pytest.approx(kernel[run][key], rel=1e-3), (run, key)
    screenshot(s.page, f"steptable-range-{s.front_end}")
    s.read(C_NORANGE)
    s.wait("loss", "c.markers.length === 1 && !c.band", "back to one marker")


# Pixel of epoch seconds on a wall-time axis (plotly shows dates as UTC: shifted to local time).
WALL_PIXEL_JS = """
([tag, seconds]) => {
  const ms = seconds * 1000;
  return (PIXEL)([tag, ms - new Date(ms).getTimezoneOffset() * 60000]);
}
""".replace("(PIXEL)", f"({PIXEL_JS})")


def test_marker_on_the_relative_and_wall_axes(steps: Steps) -> None:
    s = steps
    read = s.read(C_RELATIVE)
    card = s.wait("loss", "c.markers.length === 1 && c.markers[0].step === 60 && c.xrange !== null", "relative axis")
    base = next(r for r in read["tables"]["loss"] if r["run"] == "base")
    # the marker sits at the first run's chosen point, in the axis' unit (seconds here)
    x = s.page.evaluate(PIXEL_JS, ["loss", base["relative"]])
    assert card["markers"][0]["center"] == pytest.approx(x, abs=1.5)
    assert [r["cells"]["step"] for r in card["rows"]] == [str(closest(run, 60)) for run in sorted(RUNS)]
    read = s.read(C_WALL)
    card = s.wait("loss", "c.markers.length === 1 && c.markers[0].step === 60 && c.xtype === 'date'", "wall axis")
    base = next(r for r in read["tables"]["loss"] if r["run"] == "base")
    x = s.page.evaluate(WALL_PIXEL_JS, ["loss", base["wall"]])
    assert card["markers"][0]["center"] == pytest.approx(x, abs=1.5)
    run_cell(s.page, NB, C_STEPAXIS)
    assert_no_js_errors(s.log)


def test_tooltip_sorted_and_limited(steps: Steps) -> None:
    s = steps
    run_cell(s.page, NB, C_TOOLTIP)
    card = s.page.locator(".tbnb-card[data-tag='acc']").first
    card.scroll_into_view_if_needed()
    s.wait("acc", "c.markers.length === 1", "acc drawn")
    box = card.locator(".nsewdrag").first.bounding_box()
    tip = card.locator(".tbnb-tooltip")
    for fx in (0.5, 0.4, 0.6, 0.3):
        s.page.mouse.move(box["x"] + fx * box["width"], box["y"] + 0.5 * box["height"])
        s.page.wait_for_timeout(150)
        if tip.is_visible():
            break
    assert tip.is_visible(), "no tooltip"
    rows = tip.locator(".tbnb-tip-row")
    assert rows.count() == 2
    values = [float(rows.nth(i).locator("b").text_content()) for i in range(2)]
    assert values == sorted(values, reverse=True)
    assert tip.locator(".tbnb-tip-more").text_content() == "1 more"
    # plotly's own hover label is not drawn over it
    assert card.locator(".hoverlayer").evaluate("(el) => el.textContent") == ""
    screenshot(s.page, f"steptable-tooltip-{s.front_end}")
    s.page.mouse.move(0, 0)
    run_cell(s.page, NB, C_NOTOOLTIP)
    assert_no_js_errors(s.log)
