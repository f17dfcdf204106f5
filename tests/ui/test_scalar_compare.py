"""Comparing runs on scalar cards in a real browser (JupyterLab 4 and Notebook 7), on a logdir
written by torch's SummaryWriter: each run's best point marked, a click on a line focusing its
run on every card (``board.focus``, read back from the kernel), Escape and a second click
clearing it, the log-step and x-by-tag axes, and the Board following the host's dark theme,
switched live with JupyterLab's own theme command. Screenshots:
tests/artifacts/compare-focus-<front end>.png, compare-dark-<front end>.png.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .harness import BrowserLog, assert_no_js_errors, open_notebook, own_page, printed_json, run_cell, screenshot

pytestmark = pytest.mark.ui

NB = "compare.ipynb"
RUNS = ("base", "new")
#: A run whose name is markup: the best marker's hover and the focus must show it as text.
HOSTILE = '<img src=x onerror="window.__pwned=1">'
STEPS = range(0, 201, 5)
C_SHOW, C_READ, C_FOCUS_NEW, C_NO_FOCUS, C_EPOCH, C_LOG, C_STEP, C_CYCLE, C_PARTITION = range(9)


def loss(run: str, step: int) -> float:
    """A decreasing loss with a bump, so that the best (min) point is not the last one."""
    k = 40 if run == "base" else 25
    return float(np.float32(2 * np.exp(-step / k) + 0.1 + (0.5 if step >= 150 else 0.0)))


def best_step(run: str) -> int:
    return min(STEPS, key=lambda s: (loss(run, s), s))


def notebook_cells(logdir: Path) -> list[str]:
    return [
        f"import json\nimport tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval=0, smoothing=0, best='min')",
        "print('READ', json.dumps({'focus': board.focus}))",
        "board.focus = 'new'",
        "board.focus = None",
        "board.x_axis = 'epoch'",
        "board.x_axis = 'log_step'",
        "board.x_axis = 'step'",
        "board.x_axis = 'cycle'",
        "board.partition_x = True",
    ]


# What the loss card draws: per trace its name, mode, opacity, x, y; the axis type; theme colours.
CARD_JS = """
([tag]) => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = root && [...root.querySelectorAll('.tbnb-card')].find((c) => c.dataset.tag === tag);
  const plot = card && card.querySelector('.tbnb-plot');
  if (!plot || !plot._fullLayout || !plot.data) return null;
  const full = plot._fullLayout;
  return {
    traces: plot.data.map((t) => ({ name: t.name, mode: t.mode, opacity: t.opacity ?? 1, symbol: t.marker && t.marker.symbol,
                                     meta: t.meta || null, x: Array.from(t.x || []), y: Array.from(t.y || []),
                                     hover: !!t.hovertemplate && t.mode === 'lines' })),
    xtype: full.xaxis.type, font: full.font.color, hoverBg: full.hoverlabel.bgcolor,
    dark: root.classList.contains('tbnb-dark'), sub: card.querySelector('.tbnb-card-sub').textContent,
  };
}
"""

# Page coordinates of point ``i`` of the smoothed line of ``run`` on the card of ``tag``.
POINT_JS = """
([tag, run, i]) => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = [...root.querySelectorAll('.tbnb-card')].find((c) => c.dataset.tag === tag);
  const plot = card.querySelector('.tbnb-plot');
  const t = plot.data.find((d) => d.name === run && d.mode === 'lines' && d.hovertemplate);
  const { xaxis: xa, yaxis: ya } = plot._fullLayout;
  const box = plot.getBoundingClientRect();
  return [box.left + xa._offset + xa.d2p(t.x[i]), box.top + ya._offset + ya.d2p(t.y[i])];
}
"""


# Page coordinates of the best marker of ``run`` on the loss card.
STAR_JS = """
([run]) => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = [...root.querySelectorAll('.tbnb-card')].find((c) => c.dataset.tag === 'loss');
  const plot = card.querySelector('.tbnb-plot');
  const t = plot.data.find((d) => d.mode === 'markers');
  const i = t.meta.indexOf(run);
  const { xaxis: xa, yaxis: ya } = plot._fullLayout;
  const box = plot.getBoundingClientRect();
  return [box.left + xa._offset + xa.d2p(t.x[i]), box.top + ya._offset + ya.d2p(t.y[i])];
}
"""


class Compare:
    def __init__(self, page: Any, log: BrowserLog, front_end: str) -> None:
        self.page, self.log, self.front_end = page, log, front_end

    def card(self, tag: str = "loss") -> dict:
        return self.page.evaluate(CARD_JS, [tag])

    def wait(self, body: str, what: str, tag: str = "loss", timeout: float = 30) -> dict:
        fn = f"([tag]) => {{ const c = ({CARD_JS})([tag]); return !!c && ({body}); }}"
        try:
            self.page.wait_for_function(fn, arg=[tag], timeout=timeout * 1000, polling=150)
        except Exception as err:
            raise AssertionError(f"{what}: {self.card(tag)!r}") from err
        return self.card(tag)

    def focus(self) -> str | None:
        return printed_json(self.page, NB, C_READ, "READ")["focus"]

    def click_line(self, run: str, i: int = 20) -> None:
        x, y = self.page.evaluate(POINT_JS, ["loss", run, i])
        self.page.mouse.move(x, y)
        self.page.wait_for_timeout(200)  # plotly clicks the hovered points
        self.page.mouse.click(x, y)


def lines(card: dict) -> dict[str, dict]:
    """The smoothed (hovered) line of each run."""
    return {t["name"]: t for t in card["traces"] if t["hover"]}


@pytest.fixture(scope="module")
def compare(jupyter_server, browser):
    from torch.utils.tensorboard import SummaryWriter

    logdir = jupyter_server.root_dir / "comparelogs"
    shutil.rmtree(logdir, ignore_errors=True)
    for run in RUNS:
        with SummaryWriter(str(logdir / run)) as w:
            for step in STEPS:
                w.add_scalar("loss", loss(run, step), step)
                if step % 50 == 0:
                    w.add_scalar("epoch", step // 50, step)
                w.add_scalar("cycle", step % 100, step)  # goes back at step 100
    with SummaryWriter(str(logdir / HOSTILE)) as w:
        for step in (10, 20, 30):
            w.add_scalar("loss", 3.0 - step / 100, step)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        page.set_viewport_size({"width": 1400, "height": 1000})
        jupyter_server.write_notebook(NB, notebook_cells(logdir))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        c = Compare(page, log, jupyter_server.front_end)
        # cards are drawn when on screen: the loss card is below the cycle and epoch cards
        page.locator(".jp-OutputArea .tbnb-card[data-tag='loss']").first.scroll_into_view_if_needed(timeout=60000)
        c.wait("c.traces.some((t) => t.symbol === 'star')", "loss drawn with best markers")
        yield c


def test_best_points_are_marked(compare: Compare) -> None:
    card = compare.card()
    star = next(t for t in card["traces"] if t["symbol"] == "star")
    marked = dict(zip(star["meta"], zip(star["x"], star["y"])))
    assert star["mode"] == "markers" and set(marked) == {*RUNS, HOSTILE}
    for run in RUNS:
        assert marked[run][0] == best_step(run)
        assert marked[run][1] == pytest.approx(loss(run, best_step(run)), rel=1e-6)
        assert best_step(run) < 150  # the best is not the last point
    assert marked[HOSTILE] == (30, pytest.approx(2.7))
    # hovering the hostile run's marker shows its name as text
    x, y = compare.page.evaluate(STAR_JS, [HOSTILE])
    compare.page.mouse.move(x, y)
    compare.page.wait_for_timeout(300)
    assert compare.page.evaluate("() => window.__pwned") is None
    compare.page.mouse.move(0, 0)


def test_clicking_a_line_focuses_its_run(compare: Compare) -> None:
    c = compare
    c.click_line("base")
    card = c.wait("c.traces.some((t) => t.hover && t.name === 'new' && t.opacity < 0.5)", "new faded")
    assert lines(card)["base"]["opacity"] == 1
    assert c.focus() == "base"  # the kernel has the trait the click set
    screenshot(c.page, f"compare-focus-{c.front_end}")
    c.click_line("base")  # again: no focus
    c.wait("c.traces.every((t) => !t.hover || t.opacity === 1)", "focus cleared by a second click")
    assert c.focus() is None
    c.click_line("new")
    c.wait("c.traces.some((t) => t.hover && t.name === 'base' && t.opacity < 0.5)", "base faded")
    # Escape right after the click (reading the trait runs a cell, which takes the keyboard focus)
    c.page.keyboard.press("Escape")
    c.wait("c.traces.every((t) => !t.hover || t.opacity === 1)", "Escape clears the focus")
    assert c.focus() is None
    assert_no_js_errors(c.log)


def test_focus_from_python(compare: Compare) -> None:
    c = compare
    run_cell(c.page, NB, C_FOCUS_NEW)
    card = c.wait("c.traces.some((t) => t.hover && t.name === 'base' && t.opacity < 0.5)", "base faded")
    assert lines(card)["new"]["opacity"] == 1
    run_cell(c.page, NB, C_NO_FOCUS)
    c.wait("c.traces.every((t) => !t.hover || t.opacity === 1)", "focus cleared from Python")


def test_run_selector_focus_button_is_the_legend_click(compare: Compare) -> None:
    c = compare
    button = c.page.locator(".jp-OutputArea .tbnb-run[title='new'] .tbnb-focus").first
    button.hover()
    button.click()
    c.wait("c.traces.some((t) => t.hover && t.name === 'base' && t.opacity < 0.5)", "base faded")
    assert button.get_attribute("aria-pressed") == "true"
    assert c.focus() == "new"
    button = c.page.locator(".jp-OutputArea .tbnb-run[title='new'] .tbnb-focus").first  # re-rendered
    button.hover()
    button.click()
    c.wait("c.traces.every((t) => !t.hover || t.opacity === 1)", "a second click clears the focus")
    assert c.focus() is None
    assert_no_js_errors(c.log)


def test_x_by_tag_and_log_step(compare: Compare) -> None:
    c = compare
    run_cell(c.page, NB, C_EPOCH)
    card = c.wait("c.traces.some((t) => t.hover && t.x.length && Math.max(...t.x) === 4)", "x is the epoch")
    base = lines(card)["base"]
    # the epoch in force at each step: 0 for steps 0..45, 1 for 50..95, ...
    assert base["x"] == [float(s // 50) for s in STEPS]
    assert base["y"] == pytest.approx([loss("base", s) for s in STEPS], rel=1e-6)
    assert card["xtype"] == "linear"
    # the settings pane offers the scalar tags as x axes and shows the comparison settings
    board = c.page.locator(".jp-Notebook .jp-OutputArea .tbnb").first
    pane = board.locator(".tbnb-settings")
    if pane.is_hidden():
        board.locator("button[title='Settings']").click()
    axis = pane.get_by_label("Horizontal axis")
    axis.focus()
    assert axis.input_value() == "epoch"
    options = axis.locator("option").evaluate_all("(os) => os.map((o) => o.value)")
    assert options[:5] == ["step", "relative", "wall", "log_step", "relative_step"]
    assert {"cycle", "epoch", "loss"} <= set(options[5:])
    assert pane.get_by_label("Mark each run's best value").input_value() == "min"
    assert not pane.locator("label.tbnb-check", has_text="Partition non-monotonic X axis").locator("input").is_checked()
    screenshot(c.page, f"compare-settings-{c.front_end}")
    run_cell(c.page, NB, C_LOG)
    card = c.wait("c.xtype === 'log'", "log axis")
    assert lines(card)["base"]["x"] == [float(s) for s in STEPS if s > 0]
    assert "1 off the axis" in card["sub"] or "2 off the axis" in card["sub"]
    run_cell(c.page, NB, C_STEP)
    c.wait("c.xtype === 'linear' && c.traces.some((t) => t.hover && t.x[0] === 0)", "back to steps")
    assert_no_js_errors(c.log)


def luminance(color: str) -> float:
    import re

    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", color)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def set_theme(page: Any, theme: str) -> None:
    """Switch the front end's theme as the user does, with its own command."""
    page.evaluate("(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })", theme)
    light = "true" if "Light" in theme else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=30000)


def test_dark_theme_is_followed_live(compare: Compare) -> None:
    c = compare
    light = c.card()
    assert not light["dark"] and luminance(light["font"]) < 0.5
    try:
        set_theme(c.page, "JupyterLab Dark")
        card = c.wait("c.dark", "the board turns dark")
        card = c.wait(f"c.font !== {light['font']!r}", "plotly's text colour follows")
        assert luminance(card["font"]) > 0.5 and luminance(card["hoverBg"]) < 0.5
        x, y = c.page.evaluate(POINT_JS, ["loss", "base", 12])
        c.page.mouse.move(x, y)
        c.page.wait_for_selector(".tbnb-card[data-tag='loss'] .hoverlayer .legend, .tbnb-card[data-tag='loss'] .hoverlayer .hovertext",
                                 timeout=10000)
        path = screenshot(c.page, f"compare-dark-{c.front_end}")
        assert path.exists()
        bg = c.page.evaluate("() => getComputedStyle(document.querySelector('.jp-OutputArea .tbnb')).backgroundColor")
        assert luminance(bg) < 0.3
    finally:
        c.page.mouse.move(0, 0)
        set_theme(c.page, "JupyterLab Light")
    c.wait("!c.dark", "back to light")
    c.wait(f"c.font === {light['font']!r}", "plotly's text colour back")
    assert_no_js_errors(c.log)


def test_partition_non_monotonic_x(compare: Compare) -> None:
    c = compare
    run_cell(c.page, NB, C_CYCLE)  # x = step % 100: every run's x goes back once, at step 100
    card = c.wait("c.traces.some((t) => t.hover && t.x.length === 41 && Math.max(...t.x) === 95)", "x is the cycle")
    base = lines(card)["base"]
    assert base["x"][20] == 0 and base["x"][19] == 95  # drawn as it comes: one line back to 0
    run_cell(c.page, NB, C_PARTITION)
    # x goes back at steps 100 and 200: three segments, two gaps
    card = c.wait("c.traces.some((t) => t.hover && t.x.length === 43)", "a gap where x goes back")
    base = lines(card)["base"]
    gaps = [i for i, y in enumerate(base["y"]) if math.isnan(y)]
    assert gaps == [20, 41]  # NaN: plotly draws no line across it
    segments = (base["x"][:20], base["x"][21:41], base["x"][42:])
    for segment in segments:
        assert segment == sorted(segment)
    assert [len(seg) for seg in segments] == [20, 20, 1]
    assert [y for y in base["y"] if not math.isnan(y)] == pytest.approx([loss("base", s) for s in STEPS], rel=1e-6)
    c.page.locator(".jp-OutputArea .tbnb-card[data-tag='loss']").first.scroll_into_view_if_needed()
    screenshot(c.page, f"compare-partition-{c.front_end}")
    assert_no_js_errors(c.log)
