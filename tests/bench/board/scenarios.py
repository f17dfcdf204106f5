"""The measurements, each on a fresh page: first draw, scrolling, smoothing, memory (one Board in
a notebook, once per repetition), and the saved size of a notebook with three Boards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from tests.ui.harness import (
    _descendants,
    assert_only_loopback,
    open_notebook,
    run_cell,
    run_notebook_in_browser,
    screenshot,
)

from ..datasets import warm_page_cache
from ..measure import HarnessError
from .session import Page, Session, install_probe, js_heap, new_page, save_with_ctrl_s, set_save_widget_state

SHOW = "board = tbnb.show(D)"
#: Slider positions visited in order, starting from the default 0.6. 0 hides the raw lines (a
#: full redraw of each card), and leaving 0 shows them again.
POSITIONS = (0.9, 0.95, 0.3, 0.0, 0.6, 0.99)
#: A drag: one input event per animation frame from 0.6 to 0.9.
DRAG = tuple(round(0.6 + 0.025 * i, 3) for i in range(1, 13))
FIRST_DRAW_TIMEOUT_S = 60.0
#: Run in the kernel (outside any cell) after the show cell ran twice: Boards still alive.
BOARDS_ALIVE = """
import gc as _gc, json as _json, threading as _threading
from tbnb.board.widget import Board as _Board
_gc.collect()
_boards = [o for o in _gc.get_objects() if isinstance(o, _Board)]
print(_json.dumps({"boards": len(_boards), "polling": sum(b.polling for b in _boards),
                   "open_comms": sum(b.comm is not None for b in _boards), "threads": _threading.active_count()}))
del _boards
"""


def setup_cell(logdir: Path) -> str:
    return f"import tbnb\nimport tbnb.board.widget  # imported here, not timed with the show cell\nD = {str(logdir)!r}"


def _shot(page: Any, name: str, shots: list[str]) -> None:
    shots.append(str(screenshot(page, f"bench-board-{name}")))


def _timeline(msgs: list[dict[str, Any]]) -> dict[str, Any]:
    """Kernel messages of the show cell, relative to its idle status (page clock, ms)."""
    exec_req = next((m for m in msgs if m["type"] == "execute_request" and m["dir"] == "send"), None)
    if exec_req is None:
        raise HarnessError("the show cell's execute_request was not seen")
    idle = next((m for m in msgs if m["type"] == "status" and m.get("state") == "idle"
                 and m["parentId"] == exec_req["id"]), None)
    if idle is None:
        raise HarnessError("the show cell's idle status was not seen")
    t0 = idle["t"]
    sent = {m["id"]: m for m in msgs if m["dir"] == "send" and m["type"] == "comm_msg" and m.get("custom")}
    by_req = {m.get("reqId"): m for m in sent.values() if m.get("reqId") is not None}

    def first(custom: str, direction: str) -> float | None:
        m = next((m for m in msgs if m.get("custom") == custom and m["dir"] == direction), None)
        return None if m is None else m["t"] - t0

    replies = []
    for m in msgs:
        if m["dir"] != "recv" or m.get("custom") != "series":
            continue
        req = by_req.get(m.get("reqId"))
        replies.append({"tag": m.get("tag"), "t": m["t"] - t0, "sent_at": None if req is None else req["t"] - t0,
                        "round_trip_ms": None if req is None else m["t"] - req["t"],
                        "buffer_bytes": m["bufferBytes"], "json_bytes": m["jsonBytes"], "points": m.get("points")})
    plotly_reply = next((m for m in msgs if m.get("custom") == "plotly" and m["dir"] == "recv"), None)
    exec_input = next((m for m in msgs if m["type"] == "execute_input"), None)
    return {
        "t_idle": t0,
        "cell_in_page_ms": t0 - exec_req["t"],
        "exec_input_date": exec_input and exec_input.get("date"),
        "index_sent": first("index", "send"), "index_reply": first("index", "recv"),
        "plotly_sent": first("plotly", "send"), "plotly_reply": first("plotly", "recv"),
        "plotly_bytes": plotly_reply and plotly_reply["bufferBytes"],
        "series_requests": sum(1 for m in sent.values() if m.get("custom") == "series"),
        "series_replies": replies,
    }


def _series_tags_before(msgs: list[dict[str, Any]], t: float) -> set[str]:
    """Tags whose series reply had arrived by page time ``t`` (prefetched cards)."""
    sent = {m.get("reqId"): m.get("tag") for m in msgs if m["dir"] == "send" and m.get("custom") == "series"}
    return {sent.get(m.get("reqId")) for m in msgs
            if m["dir"] == "recv" and m.get("custom") == "series" and m["t"] <= t} - {None}


def _first_draw(pg: Page, name: str, runs: int, rep: int) -> dict[str, Any]:
    """Run the show cell (code cell 1) and time its Board from the kernel's idle status until every
    card the user can see has all its runs drawn."""
    page = pg.page
    page.evaluate("() => window.__tbnbBench.clearMsgs()")
    pg.wire.clear()
    page.evaluate("([c, r, t]) => window.__tbnbBench.watchFirstDraw(c, r, t)", [1, runs, FIRST_DRAW_TIMEOUT_S * 1000])
    run_cell(page, name, 1, timeout=120.0)
    page.wait_for_function("() => window.__tbnbBench.first.ok !== null", polling=100,
                           timeout=(FIRST_DRAW_TIMEOUT_S + 5) * 1000)
    first = page.evaluate("() => window.__tbnbBench.first")
    msgs = page.evaluate("() => window.__tbnbBench.msgs")
    plotly = page.evaluate("() => window.__tbnbBenchPlotly")
    if not first["ok"]:
        state = page.evaluate("([c, r]) => window.__tbnbBench.describe(c, r)", [1, runs])
        raise HarnessError(f"rep {rep}: visible cards not drawn within {FIRST_DRAW_TIMEOUT_S:.0f} s: {json.dumps(state)}")
    tl = _timeline(msgs)
    t0 = tl["t_idle"]

    def rel(v: float | None) -> float | None:
        return None if v is None or v < first["armedAt"] else v - t0

    return {
        "ms": first["doneAt"] - t0,
        "root_ms": rel(first["rootAt"]), "cards_ms": rel(first["cardsAt"]),
        "first_chart_ms": rel(first["firstChartAt"]),
        "plotly_defined_ms": rel(plotly["definedAt"]),
        "drawn_at_ms": {tag: v - t0 for tag, v in first["drawnAt"].items()},
        "at_done": first["atDone"],
        "timeline": tl,
        "plotly_wrapped": plotly["wrapped"],
        "plotly_calls": [{**c, "t0": c["t0"] - t0} for c in plotly["calls"] if first["armedAt"] <= c["t0"] <= first["doneAt"]],
    }


def one_board(sess: Session, logdir: Path, runs: int, rep: int, log: Callable[[str], None],
              shots: list[str] | None) -> dict[str, Any]:
    """A notebook with the setup cell and ``board = tbnb.show(D)``: first draw, memory,
    smoothing slider, scrolling, then the show cell once more (plotly.js already on the page).
    ``shots``: save screenshots into it (None: none)."""
    server = sess.server
    name = f"one_board_{rep}.ipynb"
    server.write_notebook(name, [setup_cell(logdir), SHOW])
    out: dict[str, Any] = {"rep": rep}
    with new_page(sess) as pg:
        page = pg.page
        open_notebook(page, server, name)
        install_probe(page, name)
        run_cell(page, name, 0)
        warm_page_cache(logdir)
        out["heap_before"] = js_heap(page)
        out["kernel_rss_before_mb"] = kernel_rss_mb(server, page, name)

        # ---- 1. first draw, from the show cell's idle status
        out["first"] = _first_draw(pg, name, runs, rep)
        page.wait_for_timeout(1500)  # prefetching settles; nothing off screen should be drawn
        out["first"]["settled"] = page.evaluate("([c, r]) => window.__tbnbBench.describe(c, r)", [1, runs])
        out["first"]["wire"] = pg.wire.summary()
        out["heap_after_draw"] = js_heap(page)
        out["kernel_rss_mb"] = kernel_rss_mb(server, page, name)
        if shots is not None:
            _shot(page, "first-draw", shots)

        # ---- 2. smoothing: open the settings pane if it is closed, let the cards resize
        if not out["first"]["settled"]["settingsOpen"]:
            page.locator(".jp-Notebook .jp-Cell").nth(1).locator('.tbnb-top button[aria-label="Settings"]').click()
            page.wait_for_timeout(1200)
        out["smoothing_layout"] = page.evaluate("([c, r]) => window.__tbnbBench.describe(c, r)", [1, runs])
        page.evaluate("() => window.__tbnbBench.clearCalls()")
        page.evaluate("([c, r]) => window.__tbnbBench.trackSmoothing(c, r)", [1, runs])
        positions = []
        for value in POSITIONS:
            res = page.evaluate("([c, v]) => window.__tbnbBench.setSmoothing(c, v)", [1, value])
            res["value"] = value
            positions.append(res)
            page.wait_for_timeout(300)  # the debounced trait save goes to the kernel and back
        drag = page.evaluate("([c, vs]) => window.__tbnbBench.dragSmoothing(c, vs)", [1, list(DRAG)])
        page.wait_for_timeout(300)
        mouse = _mouse_drag(page, 0.3)
        calls = page.evaluate("() => window.__tbnbBenchPlotly.calls")
        out["smoothing"] = {"positions": positions, "drag": drag, "mouse_drag": mouse, "plotly_calls": calls}
        page.evaluate("() => window.__tbnbBench.stopTracking()")
        if shots is not None:
            _shot(page, "smoothing", shots)

        # ---- scrolling the card area: one screen down, then to the end
        scrolls = {}
        for how in ("page", "end"):
            res = page.evaluate("([c, r, h]) => window.__tbnbBench.scroll(c, r, h)", [1, runs, how])
            page.wait_for_timeout(800)
            ready = _series_tags_before(page.evaluate("() => window.__tbnbBench.msgs"), res["t0"])
            res["prefetched"] = [t for t in res["newlyVisible"] if t in ready]
            scrolls[how] = res
            if shots is not None:
                _shot(page, f"scrolled-{how}", shots)
        out["scroll"] = scrolls
        out["heap_end"] = js_heap(page)

        # ---- the show cell again: a new Board on a page that has plotly.js already
        out["rerun"] = _first_draw(pg, name, runs, rep)
        page.wait_for_timeout(1000)
        out["kernel_rss_after_rerun_mb"] = kernel_rss_mb(server, page, name)
        out["boards_alive_after_rerun"] = json.loads(
            page.evaluate("([p, c]) => window.__tbnbBench.kernelExec(p, c)", [name, BOARDS_ALIVE]))
        out["errors"] = pg.errors()
        out["off_loopback"] = _off_loopback(pg)
    log(f"  [{rep}] first draw {out['first']['ms']:.0f} ms after idle "
        f"({len(out['first']['at_done']['visible'])} cards visible), again with plotly.js loaded "
        f"{out['rerun']['ms']:.0f} ms; smoothing "
        + ", ".join(f"{p['value']}: {_ms(p['allAt'])}" for p in positions)
        + f"; drag {_ms(drag['allAt'])}, mouse {_ms(mouse.get('allAt'))}; scroll page {_ms(scrolls['page']['ms'])}, "
        f"end {_ms(scrolls['end']['ms'])}")
    return out


def kernel_rss_mb(server: Any, page: Any, notebook: str) -> float | None:
    """Resident memory of the kernel of ``notebook`` (its connection file names its id), MB."""
    kernel_id = page.evaluate("(p) => window.__tbnbBench.kernelId(p)", notebook).encode()
    for pid in _descendants(server.process.pid):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if kernel_id not in cmdline:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024 / 1e6
        except OSError:
            continue
    return None


_PLOTLY_EVAL_JS = """(b64) => new Promise((resolve) => {
  const s = atob(b64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  const t0 = performance.now();
  const url = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  const script = document.createElement("script");
  script.onload = () => resolve({ ms: performance.now() - t0, ok: Boolean(window.Plotly) });
  script.onerror = () => resolve({ ms: null, ok: false });
  script.src = url;
  document.head.appendChild(script);
})"""


def plotly_eval_floor(sess: Session) -> dict[str, Any]:
    """plotly.min.js run the way the Board runs it (a Blob URL script), in an empty page of the
    same browser: the part of the first draw that no Board code can shorten."""
    import base64

    from tbnb.board.assets import plotly_js

    data, version = plotly_js()
    b64 = base64.b64encode(data).decode()
    context = sess.browser.new_context()
    try:
        page = context.new_page()
        page.goto("about:blank")
        res = page.evaluate(_PLOTLY_EVAL_JS, b64)
    finally:
        context.close()
    return {**res, "bytes": len(data), "version": version}


def _ms(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.0f} ms"


def _off_loopback(pg: Page) -> str | None:
    """The UI tests' rule: every request stays on loopback. None, or the failure's text."""
    try:
        assert_only_loopback(pg.log)
    except AssertionError as err:
        return str(err)
    return None


def _mouse_drag(page: Any, target: float) -> dict[str, Any]:
    """Drag the smoothing slider's thumb with the mouse to ``target``; B.track for the last input."""
    slider = page.locator(".jp-Notebook .jp-Cell").nth(1).locator('.tbnb-settings input[aria-label="Smoothing"]')
    box = slider.bounding_box()
    value = float(slider.input_value())
    thumb = 8  # half the thumb: Chromium maps [left + thumb, right - thumb] to [min, max]
    x_of = lambda v: box["x"] + thumb + (box["width"] - 2 * thumb) * v / 0.999
    y = box["y"] + box["height"] / 2
    page.mouse.move(x_of(value), y)
    page.mouse.down()
    page.mouse.move(x_of(target), y, steps=15)
    page.mouse.up()
    page.evaluate("() => window.__tbnbBench.smoothingSettled(3000)")
    track = page.evaluate("() => window.__tbnbBench.track")
    track["final_value"] = float(slider.input_value())
    return track


def saved_notebook(sess: Session, logdir: Path, save_state: bool, runs: int,
                   shots: list[str] | None) -> dict[str, Any]:
    """Three ``tbnb.show(D)`` cells run in the browser, saved with Ctrl+S: the file's size."""
    server = sess.server
    set_save_widget_state(server, save_state)
    label = "on" if save_state else "off"
    name = f"three_boards_state_{label}.ipynb"
    server.write_notebook(name, [setup_cell(logdir)] + ["tbnb.show(D)"] * 3)
    written = (server.root_dir / name).stat().st_size
    with new_page(sess) as pg:
        page = pg.page
        run_notebook_in_browser(page, server, name, timeout=240.0)
        install_probe(page, name)
        page.wait_for_function(
            "([r]) => { const d = window.__tbnbBench.describe(1, r); return d && d.drawn.length > 0; }",
            arg=[runs], polling=200, timeout=60_000)
        page.wait_for_timeout(1000)
        boards = page.evaluate("() => document.querySelectorAll('.jp-Notebook .tbnb').length")
        rss = kernel_rss_mb(server, page, name)
        path = save_with_ctrl_s(page, server, name)
        if shots is not None:
            _shot(page, f"saved-state-{label}", shots)
        errors = pg.errors()
    size = path.stat().st_size
    nb = json.loads(path.read_text())
    widgets = nb.get("metadata", {}).get("widgets")
    state = (widgets or {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    models = sorted({m.get("model_name") for m in state.values()})
    esm_bytes = sum(len(m.get("state", {}).get("_esm", "")) for m in state.values())
    outputs = [len(json.dumps(c.get("outputs", []))) for c in nb["cells"] if c["cell_type"] == "code"]
    return {
        "save_widget_state": save_state, "bytes": size, "bytes_before_run": written, "boards_on_page": boards, "kernel_rss_mb": rss,
        "widget_state_bytes": len(json.dumps(widgets)) if widgets else 0, "widget_models": len(state),
        "widget_model_names": models, "esm_bytes_in_state": esm_bytes, "output_bytes_per_cell": outputs,
        "errors": errors,
    }
