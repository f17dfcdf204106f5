"""The Board in a real browser, in JupyterLab 4 and Notebook 7, on a logdir written by torch.

One notebook per front end (module-scoped, to keep the run short) holds both ways of showing a
board: ``%tbnb`` (cell 1: drawing, live updates) and ``board = tbnb.show(...)`` (cell 2: settings
from Python and from the page, zoom, ``board.view``, resizing). Each test checks what it changes
against the state it finds, so that they do not depend on running in order (expected values come
from what this module wrote, ``Boards.written``); the last one checks what the page requested and
logged during all of them, and saves screenshots (tests/artifacts/board-<front end>*.png).

Chart data is read from plotly's own state on the chart element (``el.data``, ``el._fullData``,
``el._fullLayout``), i.e. what is drawn, not what the Board meant to draw.
"""

from __future__ import annotations

import math
import re
import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from tests.smoothing_bounds import loops_apart

from .harness import (
    BoardPage,
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    assert_only_loopback,
    cell_text,
    notebook_state,
    open_notebook,
    own_page,
    printed_json,
    run_cell,
    screenshot,
    start_cell,
)

pytestmark = pytest.mark.ui

RUNS = ("mnist/lr_0.1", "mnist/lr_0.01", "cifar/adam")
#: The kernel colours runs in sorted order of discovery from TensorBoard's palette (protocol.py).
RUN_ORDER = tuple(sorted(RUNS))
PALETTE = ("#425066", "#12b5cb", "#e52592")
TAGS = ("loss/train", "loss/val", "accuracy/train", "accuracy/val", "lr")
GROUPS = {"accuracy": ["accuracy/train", "accuracy/val"], "loss": ["loss/train", "loss/val"], "lr": ["lr"]}
STEPS = 200
RELOAD_INTERVAL = 1.0
#: Live data must be drawn within 2 poll intervals; the margin is for a busy 2-CPU machine
#: (chromium, the server, the kernel and pytest share it).
LIVE_DEADLINE = 2 * RELOAD_INTERVAL + 4.0
BUSY_SECONDS = 10  # the busy cell outlasts LIVE_DEADLINE comfortably
NB = "board.ipynb"

# Cells of the notebook (all code cells).
C_LOAD, C_MAGIC, C_SHOW, C_SMOOTH, C_STATE, C_VIEW, C_BUSY = range(7)


def notebook_cells(logdir: Path) -> list[str]:
    return [
        "%load_ext tbnb",
        f"%tbnb --logdir {shlex.quote(str(logdir))} --reload_interval {RELOAD_INTERVAL:g}",
        f"import json\nimport tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval={RELOAD_INTERVAL:g})",
        "board.smoothing = 0.95",
        (
            'print("STATE", json.dumps({"smoothing": board.smoothing, "x_axis": board.x_axis,\n'
            '                           "view_state": board.view_state}))'
        ),
        (
            "_v = board.view\n"
            "print('VIEW', json.dumps({f'{t}|{r}': [int(g.step.min()), int(g.step.max()), len(g)]\n"
            "                          for (t, r), g in _v.groupby(['tag', 'run'])}))"
        ),
        f"import time\nprint('BUSY', flush=True)\ntime.sleep({BUSY_SECONDS})",
    ]


# --------------------------------------------------------------------------------------------------
# The logdir: written by torch's SummaryWriter, step by step like a training loop
# --------------------------------------------------------------------------------------------------

_SPEED = {"mnist/lr_0.1": 25.0, "mnist/lr_0.01": 120.0, "cifar/adam": 60.0}
_LR0 = {"mnist/lr_0.1": 0.1, "mnist/lr_0.01": 0.01, "cifar/adam": 0.001}


def scalar_values(run: str, step: int, rng: np.random.Generator) -> dict[str, float]:
    """Noisy training curves: smoothing visibly differs from the raw line."""
    k = math.exp(-step / _SPEED[run])
    return {
        "loss/train": 2.3 * k + 0.1 + abs(rng.normal(0, 0.08)),
        "loss/val": 2.3 * k + 0.2 + abs(rng.normal(0, 0.05)),
        "accuracy/train": min(1.0, 0.95 * (1 - k) + rng.normal(0, 0.03)),
        "accuracy/val": min(1.0, 0.9 * (1 - k) + rng.normal(0, 0.02)),
        "lr": _LR0[run] * 0.5 ** (step // 50),
    }


def write_steps(logdir: Path, run: str, steps: range, written: dict, rng: np.random.Generator) -> float:
    """Append ``steps`` of every tag to ``run`` with a new SummaryWriter; flush, close, and return
    the time of the flush. ``written[run][tag][step]`` records the float32 values."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(logdir / run))
    try:
        for step in steps:
            for tag, value in scalar_values(run, step, rng).items():
                writer.add_scalar(tag, value, step)
                written.setdefault(run, {}).setdefault(tag, {})[step] = float(np.float32(value))
        writer.flush()
        flushed = time.monotonic()
    finally:
        writer.close()
    return flushed


# --------------------------------------------------------------------------------------------------
# The page: one notebook per front end, both boards drawn
# --------------------------------------------------------------------------------------------------

# plotly's state of the chart of `tag` in the board of cell `cell` (null until drawn): every
# trace's data as drawn (el.data), the colours and visibility plotly resolved (el._fullData), the
# x range shown (el._fullLayout), and the card's point-count label.
CHART_JS = """
([cell, tag]) => {
  const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
  const root = cells[cell] && cells[cell].querySelector('.jp-OutputArea .tbnb');
  if (!root) return null;
  const card = [...root.querySelectorAll('.tbnb-section:not(.tbnb-pinned) .tbnb-card')]
    .find((c) => c.dataset.tag === tag);
  if (!card) return null;
  const plot = card.querySelector('.tbnb-plot');
  if (!plot || !plot.classList.contains('js-plotly-plot') || !Array.isArray(plot.data)) return null;
  const full = plot._fullData || [];
  const xaxis = (plot._fullLayout && plot._fullLayout.xaxis) || {};
  const yaxis = (plot._fullLayout && plot._fullLayout.yaxis) || {};
  return {
    sub: card.querySelector('.tbnb-card-sub').textContent,
    xrange: Array.isArray(xaxis.range) ? xaxis.range.slice() : null,
    yrange: Array.isArray(yaxis.range) ? yaxis.range.slice() : null,
    autorange: xaxis.autorange,
    margins: plot._fullLayout ? { asked: plot.layout.margin, drawn: plot._fullLayout._size } : null,
    traces: plot.data.map((t, i) => ({
      name: t.name,
      x: Array.from(t.x || []),
      y: Array.from(t.y || []),
      steps: Array.isArray(t.customdata) ? t.customdata.map((d) => d[1]) : null,
      color: t.line && t.line.color,
      width: t.line && t.line.width,
      opacity: t.opacity,
      hoverinfo: t.hoverinfo,
      hovertemplate: t.hovertemplate,
      fullColor: full[i] && full[i].line && full[i].line.color,
      fullVisible: full[i] ? full[i].visible : null,
    })),
  };
}
"""


def _js_with_chart(body: str) -> str:
    """A page function of ([cell, tag, ...args]) with ``chart`` (CHART_JS's value) and
    ``same(a, b)`` (arrays of equal numbers) in scope."""
    return (
        "(args) => { const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);"
        f" const chart = ({CHART_JS})(args); {body} }}"
    )


# Drawn with a line for every run in the index, and not loading.
READY_JS = _js_with_chart(
    "return !!chart && chart.traces.length === 2 * args[2] && !/loading/.test(chart.sub);"
)


@dataclass
class Line:
    """One run's two traces in a chart."""

    run: str
    raw: dict
    smoothed: dict


@dataclass
class Chart:
    tag: str
    sub: str
    xrange: list | None
    yrange: list | None
    autorange: Any
    margins: dict | None
    traces: list[dict]

    def lines(self) -> dict[str, Line]:
        out = {}
        for i in range(0, len(self.traces), 2):
            raw, smoothed = self.traces[i], self.traces[i + 1]
            assert raw["name"] == smoothed["name"], f"{self.tag}: traces {i}, {i + 1} are not one run's pair"
            out[raw["name"]] = Line(raw["name"], raw, smoothed)
        return out


@dataclass
class Boards(BoardPage):
    written: dict = field(default_factory=dict)  # run -> tag -> step -> float32 value
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(7))

    def card(self, cell: int, tag: str):
        return self.board(cell).locator(
            f'.tbnb-section:not(.tbnb-pinned) .tbnb-card[data-tag="{tag}"]'
        )

    def plot_area(self, cell: int, tag: str):
        """plotly's drag layer over the plot area of the chart of ``tag``."""
        return self.card(cell, tag).locator(".nsewdrag").first

    def last_step(self, run: str) -> int:
        return max(self.written[run][TAGS[0]])

    def points(self, run: str, tag: str) -> int:
        return len(self.written[run][tag])

    def chart(self, cell: int, tag: str, *, timeout: float = 30.0) -> Chart:
        """Scroll the card of ``tag`` into view, wait until it is drawn, and read its chart."""
        card = self.card(cell, tag)
        card.scroll_into_view_if_needed()
        self.page.wait_for_function(READY_JS, arg=[cell, tag, len(RUNS)], timeout=timeout * 1000)
        return self.read_chart(cell, tag)

    def read_chart(self, cell: int, tag: str) -> Chart:
        data = self.page.evaluate(CHART_JS, [cell, tag])
        assert data is not None, f"no chart of {tag} in the board of cell {cell}"
        return Chart(tag, **data)

    def wait_chart(self, cell: int, tag: str, body: str, *args: Any, timeout: float) -> None:
        """Wait until ``body`` (JS with ``chart`` and ``args`` = [cell, tag, *args]) is truthy."""
        self.page.wait_for_function(
            _js_with_chart(body), arg=[cell, tag, *args], timeout=timeout * 1000, polling=100
        )

    def run(self, cell: int, marker: str) -> Any:
        """Run ``cell`` and return the JSON it printed after ``marker``."""
        return printed_json(self.page, NB, cell, marker)

    def run_until(self, cell: int, marker: str, predicate: Callable[[Any], bool], what: str,
                  timeout: float = 15.0) -> Any:
        """Run ``cell`` again and again until what it printed satisfies ``predicate`` (a change
        made in the page reaches the kernel with the next comm message; debounced ones later)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(cell, marker)
            if predicate(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout:.0f} s; cell {cell} printed {value!r}")
            self.page.wait_for_timeout(300)

    def state(self) -> dict:
        return self.run(C_STATE, "STATE")


@pytest.fixture(scope="module")
def boards(jupyter_server: JupyterServer, browser):
    """The notebook of this front end open in a page of its own, both boards drawn."""
    pytest.importorskip("torch.utils.tensorboard")
    logdir = jupyter_server.root_dir / "logs"
    shutil.rmtree(logdir, ignore_errors=True)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        s = Boards(jupyter_server, page, log, logdir)
        for run in RUNS:
            write_steps(logdir, run, range(STEPS), s.written, s.rng)
        jupyter_server.write_notebook(NB, notebook_cells(logdir))
        open_notebook(page, jupyter_server, NB)
        for cell in (C_LOAD, C_MAGIC, C_SHOW):
            run_cell(page, NB, cell)
        for cell in (C_MAGIC, C_SHOW):
            s.chart(cell, TAGS[2], timeout=60)  # accuracy/train: the first card
        yield s


# --------------------------------------------------------------------------------------------------
# Helpers on chart data
# --------------------------------------------------------------------------------------------------


def tensorboard_smooth(ys: list[float], weight: float) -> np.ndarray:
    """TensorBoard's debiased EMA (classicSmoothing in its line chart's data transformer)."""
    ys = [float(y) for y in ys]
    if not ys or all(y == ys[0] for y in ys):
        return np.array(ys)
    out, last, n = [], 0.0, 0
    for y in ys:
        if not math.isfinite(y):
            out.append(y)
            continue
        last = last * weight + (1 - weight) * y
        n += 1
        out.append(last / (1 - weight**n) if weight != 1 else last)
    return np.array(out)


def assert_page_smoothing(got: list[float], raw: list[float], weight: float, message: str) -> None:
    """The page's smoothed line is TensorBoard's loop over its raw line: the same operations in
    the same order as ``tensorboard_smooth``, but Math.pow against Python's pow, so the two may
    differ by the debias's rounding only (``loops_apart``: an error bound, not one machine's
    difference)."""
    want = tensorboard_smooth(raw, weight)
    got_array = np.asarray(got, dtype=np.float64)
    assert got_array.shape == want.shape, message
    bound = loops_apart(np.asarray(raw, dtype=np.float64), min(1.0, max(0.0, weight)))
    apart = np.abs(got_array - want)
    assert ((got_array == want) | (apart <= bound)).all(), (message, float(np.nanmax(apart / np.maximum(bound, 1e-300))))


def rgb_to_hex(css: str) -> str:
    m = re.fullmatch(r"rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*[\d.]+)?\)", css.strip())
    assert m, f"not an rgb() colour: {css!r}"
    return "#" + "".join(f"{int(v):02x}" for v in m.groups())


def count(n: int) -> str:
    return f"{n:,}"


# --------------------------------------------------------------------------------------------------
# 1. %tbnb draws every tag, every run, raw and smoothed, every step
# --------------------------------------------------------------------------------------------------


def test_magic_draws_every_tag_and_run(boards: Boards):
    from playwright.sync_api import expect

    s, cell = boards, C_MAGIC
    board = s.board(cell)
    expect(board).to_have_count(1)

    # Groups by prefix, in natural order, each with its cards in natural order.
    sections = board.locator(".tbnb-section:not(.tbnb-pinned)")
    expect(sections).to_have_count(len(GROUPS))
    for i, (group, tags) in enumerate(GROUPS.items()):
        section = sections.nth(i)
        expect(section).to_have_attribute("data-group", group)
        expect(section.locator(".tbnb-section-head b")).to_have_text(group)
        expect(section.locator(".tbnb-section-head small")).to_have_text(
            f"{len(tags)} card{'s' if len(tags) > 1 else ''}"
        )
        expect(section.locator(".tbnb-card-title")).to_have_text(tags)

    # The run selector: every run, checked, with the palette colour given in sorted order.
    names = board.locator(".tbnb-run .tbnb-run-name")
    expect(names).to_have_text(sorted(RUNS))
    expect(board.locator(".tbnb-run input[type=checkbox]:checked")).to_have_count(len(RUNS))
    swatches = {
        run: rgb_to_hex(board.locator(f'.tbnb-swatch[title="Colour of {run}"]').evaluate(
            "(el) => getComputedStyle(el).backgroundColor"))
        for run in RUNS
    }
    assert swatches == dict(zip(RUN_ORDER, PALETTE))
    expect(board.locator(".tbnb-status")).to_contain_text(
        re.compile(rf"^{len(RUNS)} runs · {len(TAGS)} tags · .* · live")
    )

    for tag in TAGS:
        chart = s.chart(cell, tag)
        lines = chart.lines()
        assert sorted(lines) == sorted(RUNS), f"{tag}: runs drawn {sorted(lines)}"
        # Runs in index order (the order the kernel listed them, stable).
        assert [t["name"] for t in chart.traces[::2]] == list(RUN_ORDER)
        for run, line in lines.items():
            raw, smoothed = line.raw, line.smoothed
            want = s.written[run][tag]
            # Raw: TensorBoard's faint line; smoothed: the solid one, same colour.
            assert raw["opacity"] == pytest.approx(0.25) and raw["hoverinfo"] == "skip", (tag, run, raw)
            assert smoothed["width"] > raw["width"], (tag, run)
            assert raw["color"] == smoothed["color"] == swatches[run], (tag, run, raw, smoothed)
            assert raw["fullColor"] == smoothed["fullColor"] == swatches[run]
            assert raw["fullVisible"] is True and smoothed["fullVisible"] is True
            # Every step written (exact points: 200 per run is under the card's budget), the
            # last one included, and the values as written (float32).
            assert raw["x"] == [float(st) for st in sorted(want)], f"{tag} {run}: steps drawn"
            assert raw["x"][-1] == s.last_step(run)
            assert smoothed["x"] == raw["x"] and smoothed["steps"] == sorted(want)
            assert raw["y"] == [want[st] for st in sorted(want)], f"{tag} {run}: values drawn"
            assert smoothed["y"] != raw["y"], f"{tag} {run}: smoothing 0.6 should change the line"
        total = sum(s.points(run, tag) for run in RUNS)
        assert chart.sub == f"{count(total)} points", f"{tag}: point count label {chart.sub!r}"
        # The margins asked for already hold the tick labels: automargin grew none of them (it
        # would have drawn the whole chart a second time, half the cost of a first draw).
        asked, drawn = chart.margins["asked"], chart.margins["drawn"]
        assert {k: drawn[k] for k in "lrtb"} == {k: asked[k] for k in "lrtb"}, (tag, chart.margins)


# --------------------------------------------------------------------------------------------------
# 2. Smoothing set from Python restyles the smoothed lines only, with TensorBoard's EMA
# --------------------------------------------------------------------------------------------------


def test_smoothing_from_python(boards: Boards):
    from playwright.sync_api import expect

    s, cell, tag = boards, C_SHOW, "accuracy/train"
    weight_before = s.state()["smoothing"]
    assert weight_before != 0.95, "the test needs a smoothing other than the one it sets"
    before = s.chart(cell, tag).lines()
    for run, line in before.items():
        assert_page_smoothing(line.smoothed["y"], line.raw["y"], weight_before, f"{run} before")

    run_cell(s.page, NB, C_SMOOTH)  # board.smoothing = 0.95
    first = RUN_ORDER[0]
    s.wait_chart(cell, tag, "return !!chart && !same(chart.traces[1].y, args[2]);",
                 before[first].smoothed["y"], timeout=10)
    after = s.read_chart(cell, tag).lines()
    assert sorted(after) == sorted(before)
    for run in RUNS:
        raw_before, raw_after = before[run].raw, after[run].raw
        assert raw_after["x"] == raw_before["x"], f"{run}: raw x changed"
        assert raw_after["y"] == raw_before["y"], f"{run}: raw line changed"
        assert after[run].smoothed["y"] != before[run].smoothed["y"], f"{run}: smoothed line unchanged"
        assert_page_smoothing(after[run].smoothed["y"], raw_after["y"], 0.95, f"{run}: smoothed with 0.95")
    # The settings pane follows the trait (whether open or not).
    expect(s.board(cell).locator('input[type=range][aria-label="Smoothing"]')).to_have_value("0.95")

    # A card drawn after the change (scrolled to) uses the new weight too.
    for run, line in s.chart(cell, "lr").lines().items():
        assert_page_smoothing(line.smoothed["y"], line.raw["y"], 0.95, f"lr {run}")
    assert s.state()["smoothing"] == 0.95


# --------------------------------------------------------------------------------------------------
# 3. Live: appended events are drawn without re-running the cell, also while the kernel is busy
# --------------------------------------------------------------------------------------------------

LAST_STEP_IS = (
    "if (!chart) return false;"
    "const t = chart.traces.find((t, i) => i % 2 === 0 && t.name === args[2]);"
    "return !!t && t.x.length > 0 && t.x[t.x.length - 1] === args[3];"
)


class NotDrawn(AssertionError):
    pass


def _append_and_wait(s: Boards, cell: int, tag: str, run: str, n: int) -> tuple[int, float]:
    """Append ``n`` steps to ``run`` (every tag) and wait until the chart of ``tag`` draws the
    last one: return it and the seconds from the flush. NotDrawn after LIVE_DEADLINE."""
    first = s.last_step(run) + 1
    flushed = write_steps(s.logdir, run, range(first, first + n), s.written, s.rng)
    last = first + n - 1
    try:
        s.wait_chart(cell, tag, LAST_STEP_IS, run, float(last), timeout=LIVE_DEADLINE)
    except Exception as err:  # playwright's TimeoutError: say what the page has instead
        chart = s.read_chart(cell, tag)
        drawn = chart.lines()[run].raw["x"][-1]
        status = s.board(cell).locator(".tbnb-status").inner_text()
        raise NotDrawn(
            f"step {last} of {run} not drawn in {tag} within {LIVE_DEADLINE:g} s of the flush; "
            f"the chart's last step is {drawn:g}; the status line says {status!r}"
        ) from err
    return last, time.monotonic() - flushed


def test_live_updates(boards: Boards):
    from playwright.sync_api import expect

    s, cell, tag, run = boards, C_MAGIC, "accuracy/train", "mnist/lr_0.1"
    s.chart(cell, tag)
    counts = notebook_state(s.page, NB)["cells"]

    last, latency = _append_and_wait(s, cell, tag, run, 20)
    print(f"{s.front_end}: step {last} drawn {latency:.2f} s after the flush")
    line = s.read_chart(cell, tag).lines()[run]
    assert line.raw["x"][-20:] == [float(st) for st in range(last - 19, last + 1)]
    assert line.raw["y"][-20:] == [s.written[run][tag][st] for st in range(last - 19, last + 1)]
    total = sum(s.points(r, tag) for r in RUNS)
    expect(s.card(cell, tag).locator(".tbnb-card-sub")).to_have_text(f"{count(total)} points")
    # No cell was run for it.
    assert notebook_state(s.page, NB)["cells"] == counts


def test_live_updates_while_kernel_busy(boards: Boards):
    """The poll thread's reason to be: a cell (the training loop) keeps the kernel busy, and the
    board still shows the new points."""
    s, cell, tag, run = boards, C_MAGIC, "accuracy/train", "mnist/lr_0.1"
    s.chart(cell, tag)
    busy = start_cell(s.page, NB, C_BUSY)
    try:
        # The cell itself says it runs (the kernel's status alone also turns busy for a moment on
        # every comm message, so it cannot tell the busy cell has started).
        deadline = time.monotonic() + 30
        while "BUSY" not in cell_text(s.page, NB, C_BUSY):
            assert time.monotonic() < deadline, f"the busy cell did not start: {notebook_state(s.page, NB)}"
            s.page.wait_for_timeout(50)
        started = time.monotonic()
        try:
            last, latency = _append_and_wait(s, cell, tag, run, 20)
        except NotDrawn as err:
            busy.wait(timeout=BUSY_SECONDS + 30)
            ended = time.monotonic()
            last = s.last_step(run)
            try:
                s.wait_chart(cell, tag, LAST_STEP_IS, run, float(last), timeout=LIVE_DEADLINE)
                after = f"it was drawn {time.monotonic() - ended:.1f} s after the busy cell ended"
            except Exception:  # noqa: BLE001 - playwright's TimeoutError
                after = "it was not drawn after the busy cell ended either"
            raise AssertionError(f"while a cell kept the kernel busy: {err}; {after}") from None
        assert not busy.finished(), (
            f"the update arrived only once the busy cell had ended ({time.monotonic() - started:.1f} s "
            f"after it started, {latency:.1f} s after the flush)"
        )
        print(f"{s.front_end}: step {last} drawn {latency:.2f} s after the flush, kernel busy")
    finally:
        busy.wait(timeout=BUSY_SECONDS + 30)
    assert s.read_chart(cell, tag).lines()[run].raw["x"][-1] == last


# --------------------------------------------------------------------------------------------------
# 4. Zoom: a drag records the x range in view_state, board.view returns that range; a double-click
#    resets both
# --------------------------------------------------------------------------------------------------


def _view_counts(s: Boards, zoom: dict[str, list[float]]) -> dict[str, list[int]]:
    """What the VIEW cell should print: [first step, last step, points] per tag|run."""
    out = {}
    for tag in TAGS:
        for run in RUNS:
            steps = sorted(s.written[run][tag])
            if tag in zoom:
                lo, hi = sorted(zoom[tag])
                steps = [st for st in steps if lo <= st <= hi]
            if steps:
                out[f"{tag}|{run}"] = [steps[0], steps[-1], len(steps)]
    return out


def test_zoom_and_view(boards: Boards):
    from playwright.sync_api import expect

    s, cell, tag = boards, C_SHOW, "loss/train"
    state = s.state()
    assert state["x_axis"] == "step"
    s.chart(cell, tag)
    area = s.plot_area(cell, tag)
    area.scroll_into_view_if_needed()
    box = area.bounding_box()
    x0, x1 = box["x"] + 0.3 * box["width"], box["x"] + 0.6 * box["width"]
    s.page.mouse.move(x0, box["y"] + 0.1 * box["height"])
    s.page.mouse.down()
    s.page.mouse.move(x1, box["y"] + 0.9 * box["height"], steps=8)
    s.page.mouse.up()

    # Zoomed: a narrower x range, and the label counts the points in view.
    s.wait_chart(cell, tag, "return !!chart && /in view/.test(chart.sub) && !/loading/.test(chart.sub);",
                 timeout=10)
    chart = s.read_chart(cell, tag)
    lo, hi = chart.xrange
    full_last = max(s.last_step(r) for r in RUNS)
    assert 0 < lo < hi < full_last, f"x range after the drag: {chart.xrange}"

    view_state = s.run_until(C_STATE, "STATE", lambda v: tag in v["view_state"].get("tags", {}),
                             "view_state records the zoom")["view_state"]
    assert view_state["x_axis"] == "step"
    assert list(view_state["tags"]) == [tag], view_state
    zx = view_state["tags"][tag]["x"]
    assert zx == pytest.approx([lo, hi], rel=1e-9), (zx, chart.xrange)

    in_view = sum(1 for r in RUNS for st in s.written[r][tag] if zx[0] <= st <= zx[1])
    total = sum(s.points(r, tag) for r in RUNS)
    assert chart.sub == f"{count(total)} points · in view: {count(in_view)} (every point)"

    view = s.run(C_VIEW, "VIEW")
    want = _view_counts(s, {tag: zx})
    assert view == want
    for run in RUNS:
        first, last, _ = view[f"{tag}|{run}"]
        assert zx[0] <= first and last <= zx[1]

    # Double-click: back to the whole range, view_state forgets the zoom, board.view has it all.
    area.dblclick(position={"x": 0.5 * box["width"], "y": 0.5 * box["height"]})
    s.wait_chart(cell, tag, "return !!chart && !/in view/.test(chart.sub);", timeout=10)
    chart = s.read_chart(cell, tag)
    assert chart.xrange[0] <= 0 and chart.xrange[1] >= full_last, chart.xrange
    view_state = s.run_until(C_STATE, "STATE", lambda v: not v["view_state"].get("tags"),
                             "view_state forgets the zoom")["view_state"]
    assert view_state == {"tags": {}, "x_axis": "step"}
    assert s.run(C_VIEW, "VIEW") == _view_counts(s, {})
    expect(s.card(cell, tag).locator(".tbnb-card-sub")).not_to_contain_text("in view")


# --------------------------------------------------------------------------------------------------
# 5. Settings from the page reach the Python traits
# --------------------------------------------------------------------------------------------------


def test_settings_from_page(boards: Boards):
    from playwright.sync_api import expect

    s, cell, tag = boards, C_SHOW, "accuracy/train"
    board = s.board(cell)
    pane = board.locator(".tbnb-settings")
    if pane.is_hidden():
        board.locator('.tbnb-top button[title="Settings"]').click()
    expect(pane).to_be_visible()
    before = s.state()

    # The smoothing slider: a click at a fifth of its width.
    slider = pane.locator('input[type=range][aria-label="Smoothing"]')
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    slider.click(position={"x": 0.2 * box["width"], "y": box["height"] / 2})
    value = float(slider.input_value())
    assert value != before["smoothing"] and 0.05 < value < 0.4, (value, before["smoothing"])
    expect(pane.locator('input[aria-label="Smoothing value"]')).to_have_value(slider.input_value())
    s.run_until(C_STATE, "STATE", lambda v: v["smoothing"] == value, f"board.smoothing == {value}")
    s.chart(cell, tag)
    s.wait_chart(cell, tag, "return !!chart;", timeout=5)
    for run, line in s.read_chart(cell, tag).lines().items():
        assert_page_smoothing(line.smoothed["y"], line.raw["y"], value, run)

    # Smoothing off: the lines take the raw values at once; once the slider rests, the hover
    # text drops "(value ...)" and the y axis is fitted to the raw lines (which lie in view).
    slider.fill("0")
    s.wait_chart(cell, tag, "return !!chart && chart.traces.every((t) => !/[(]value/.test(t.hovertemplate || ''));",
                 timeout=10)
    chart = s.read_chart(cell, tag)
    raw_values = []
    for run, line in chart.lines().items():
        assert line.smoothed["y"] == line.raw["y"], f"{run}: smoothing 0 draws the raw values"
        assert line.raw["fullVisible"] is True, f"{run}: the raw line stays drawn, under the other"
        raw_values += line.raw["y"]
    lo, hi = np.quantile(raw_values, [0.05, 0.95])
    assert chart.yrange[0] <= lo and hi <= chart.yrange[1], (chart.yrange, lo, hi)
    slider.fill(str(value))
    s.wait_chart(cell, tag, "return !!chart && chart.traces.some((t) => /[(]value/.test(t.hovertemplate || ''));",
                 timeout=10)
    for run, line in s.read_chart(cell, tag).lines().items():
        assert_page_smoothing(line.smoothed["y"], line.raw["y"], value, f"{run} back to {value}")
    s.run_until(C_STATE, "STATE", lambda v: v["smoothing"] == value, f"board.smoothing == {value} again")

    # The x axis select: relative time, then back to steps.
    select = pane.locator('select[aria-label="Horizontal axis"]')
    first = RUN_ORDER[0]  # traces[0]: its raw line
    steps = s.read_chart(cell, tag).lines()[first].raw["x"]
    select.select_option("relative")
    s.run_until(C_STATE, "STATE", lambda v: v["x_axis"] == "relative", "board.x_axis == 'relative'")
    s.wait_chart(cell, tag, "return !!chart && chart.traces.length > 0 && !/loading/.test(chart.sub)"
                 " && !same(chart.traces[0].x, args[2]);", steps, timeout=10)
    relative = s.read_chart(cell, tag).lines()[first].raw["x"]
    # Seconds (or a larger unit) since the run's first event: small, from about 0, in order.
    assert 0 <= relative[0] < 1 and relative == sorted(relative) and relative != steps, relative[:5]

    select.select_option("step")
    s.run_until(C_STATE, "STATE", lambda v: v["x_axis"] == "step", "board.x_axis == 'step'")
    s.wait_chart(cell, tag, "return !!chart && chart.traces.length > 0 && same(chart.traces[0].x, args[2]);",
                 steps, timeout=10)


# A chart's drawn width (plotly's layout, its svg) against its box on the page; whether the card
# is inside the scrolled cards area.
FIT_JS = """
([cell, tag]) => {
  const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
  const root = cells[cell].querySelector('.jp-OutputArea .tbnb');
  const card = [...root.querySelectorAll('.tbnb-section:not(.tbnb-pinned) .tbnb-card')]
    .find((c) => c.dataset.tag === tag);
  const plot = card.querySelector('.tbnb-plot');
  const svg = plot.querySelector('.main-svg');
  const main = root.querySelector('.tbnb-main').getBoundingClientRect();
  const r = card.getBoundingClientRect();
  return {
    box: plot.clientWidth,
    drawn: plot._fullLayout ? plot._fullLayout.width : null,
    svg: svg ? Number(svg.getAttribute('width')) : null,
    onScreen: r.bottom > main.top && r.top < main.bottom,
  };
}
"""


def test_chart_follows_a_resize_made_while_off_screen(boards: Boards):
    """A card whose width changes while it is scrolled out of the cards area is drawn at its
    new width when scrolled back (here the page gets 120 px narrower; opening the settings pane, a
    narrower JupyterLab panel or a new card width do the same)."""
    s, cell, tag = boards, C_SHOW, "accuracy/train"
    board = s.board(cell)
    pane = board.locator(".tbnb-settings")
    if pane.is_hidden():  # open: one column of cards in both front ends, room to scroll
        board.locator('.tbnb-top button[title="Settings"]').click()
    main_scroll = (  # scroll the cards area to `top` px (-1: the bottom)
        "(el, top) => { const m = el.querySelector('.tbnb-main');"
        " m.scrollTop = top < 0 ? m.scrollHeight : top; }"
    )
    board.evaluate(main_scroll, 0)
    s.chart(cell, tag)
    viewport = s.page.viewport_size
    try:
        # From a chart that fits: resized while on screen (an earlier test may have left it
        # otherwise, by opening the settings pane while the card was scrolled away).
        box = s.page.evaluate(FIT_JS, [cell, tag])["box"]
        s.page.set_viewport_size({"width": viewport["width"] - 200, "height": viewport["height"]})
        s.page.wait_for_function(f"([a, box]) => ({FIT_JS})(a).box !== box", arg=[[cell, tag], box],
                                 timeout=5000)
        s.page.set_viewport_size(viewport)
        s.page.wait_for_function(f"(a) => {{ const f = ({FIT_JS})(a); return f.drawn === f.box; }}",
                                 arg=[cell, tag], timeout=5000)
        before = s.page.evaluate(FIT_JS, [cell, tag])

        board.evaluate(main_scroll, -1)
        s.page.wait_for_timeout(200)
        assert not s.page.evaluate(FIT_JS, [cell, tag])["onScreen"], "the card should be scrolled away"
        s.page.set_viewport_size({"width": viewport["width"] - 120, "height": viewport["height"]})
        s.page.wait_for_timeout(500)
        board.evaluate(main_scroll, 0)
        s.card(cell, tag).scroll_into_view_if_needed()
        try:
            s.page.wait_for_function(
                f"(a) => {{ const f = ({FIT_JS})(a); return f.onScreen && f.drawn === f.box; }}",
                arg=[cell, tag], timeout=3000,
            )
        except Exception:  # noqa: BLE001 - playwright's TimeoutError
            fit = s.page.evaluate(FIT_JS, [cell, tag])
            raise AssertionError(
                f"{tag}: chart drawn {fit['drawn']} px wide (svg {fit['svg']} px) in a box of "
                f"{fit['box']} px "
                f"after the page narrowed by 120 px while the card was scrolled away (before: "
                f"{before['drawn']} px in {before['box']} px): it is clipped on the right"
            ) from None
    finally:
        s.page.set_viewport_size(viewport)


# --------------------------------------------------------------------------------------------------
# 6. Hygiene and a look: only loopback, no JS errors, screenshots
# --------------------------------------------------------------------------------------------------


def test_page_hygiene_and_screenshot(boards: Boards):
    s = boards
    # The magic's board, scrolled to its top, every chart of the first screen drawn.
    s.board(C_MAGIC).evaluate("(el) => { el.querySelector('.tbnb-main').scrollTop = 0; }")
    s.page.locator(".jp-Notebook .jp-Cell").nth(C_MAGIC).scroll_into_view_if_needed()
    s.board(C_MAGIC).locator(".tbnb-top").scroll_into_view_if_needed()
    s.chart(C_MAGIC, TAGS[2])
    s.page.wait_for_timeout(300)
    path = screenshot(s.page, f"board-{s.front_end}")
    assert path.is_file() and path.stat().st_size > 10_000
    # The tbnb.show board with its settings pane open.
    show = s.board(C_SHOW)
    if show.locator(".tbnb-settings").is_hidden():
        show.locator('.tbnb-top button[title="Settings"]').click()
    show.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    s.page.wait_for_timeout(300)
    screenshot(s.page, f"board-{s.front_end}-settings")

    assert_no_js_errors(s.log)
    assert_only_loopback(s.log)
    assert any(u.startswith(s.server.url) for u in s.log.requests)
