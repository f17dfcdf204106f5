"""The end-to-end figure: from the user's command to the visible scalar cards drawn and stable,
the load of the logdir included, for tbnb and for TensorBoard's own web UI, in the same run.

- tbnb: a notebook whose kernel is running and has done ``%load_ext tbnb`` (as a user would);
  Shift+Enter on ``%tbnb --logdir D``, timed from the keydown the page sees.
- TensorBoard: ``tensorboard --logdir D`` launched as a user launches it (its default loader,
  the Rust data server when installed); the page is opened as soon as the server answers; timed
  from the launch. The page is opened with ``?forceSVG=true``: its default WebGL lines are
  painted by a worker on an offscreen canvas, which this GPU-less headless Chromium did not
  show (blank charts in the screenshots) and which no DOM check can see; SVG lines are paths,
  so "drawn" can be checked as for tbnb (a line per run in every visible card).

Both end when every card the user can see is drawn with every run and nothing in them changed
for ``QUIET_MS`` (``stable.js``; the end is the last change, not the end of the quiet period).
TensorBoard opened while its data server is still reading shows the runs read so far and, here,
never added the others by itself: when its cards show lines but not every run and stay so for
``stable.js``'s ``partialMs``, its figure ends at their last change and is marked partial (this
favours TensorBoard: it is timed as done before it shows every run). The scalar data its
page received is also checked for completeness (every run up to the last step).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

from tests.ui.harness import free_port, open_notebook, run_cell, screenshot

from ..datasets import warm_page_cache
from ..measure import HarnessError
from .session import Session, new_page

STABLE_JS = Path(__file__).resolve().parent / "stable.js"
QUIET_MS = 1000
TIMEOUT_S = 120.0


def _watch(page: Any, kind: str, runs: int) -> None:
    page.evaluate("(o) => window.__tbnbStable.watch(o)",
                  {"kind": kind, "runs": runs, "quietMs": QUIET_MS, "timeoutMs": TIMEOUT_S * 1000})


def _wait_stable(page: Any, what: str, log: Callable[[str], None]) -> dict[str, Any]:
    """stable.js's result; one that timed out is logged and returned (its ``end`` is None)."""
    page.wait_for_function("() => window.__tbnbStable.result && window.__tbnbStable.result.ok !== null",
                           polling=100, timeout=(TIMEOUT_S + 10) * 1000)
    res = page.evaluate("() => window.__tbnbStable.result")
    if not res["ok"]:
        log(f"  {what}: visible cards not all drawn with every run and stable within {TIMEOUT_S:.0f} s: "
            f"{json.dumps(res)}")
        res["end"] = res["readyAt"] = None
    return res


def _since(t: float | None, t0: float) -> float | None:
    return None if t is None else t - t0


def tbnb_e2e(sess: Session, logdir: Path, runs: int, rep: int, shots: list[str] | None,
             log: Callable[[str], None]) -> dict[str, Any]:
    """Shift+Enter on ``%tbnb --logdir D`` until the visible cards are drawn and stable."""
    server = sess.server
    name = f"e2e_{rep}.ipynb"
    # A cell after the magic: Shift+Enter moves to it instead of appending a new one.
    server.write_notebook(name, ["%load_ext tbnb", f"%tbnb --logdir {logdir}", ""])
    with new_page(sess, init_scripts=[STABLE_JS]) as pg:
        page = pg.page
        open_notebook(page, server, name)
        run_cell(page, name, 0)
        warm_page_cache(logdir)
        page.evaluate("() => window.__tbnbStable.reset()")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        cell.locator(".jp-InputArea-editor").click()
        page.wait_for_timeout(300)
        _watch(page, "tbnb", runs)
        page.keyboard.press("Shift+Enter")
        res = _wait_stable(page, f"tbnb rep {rep}", log)
        key = page.evaluate("() => window.__tbnbStable.keyAt")
        if key is None:
            raise HarnessError("the Shift+Enter keydown was not seen by the page")
        if shots is not None:
            shots.append(str(screenshot(page, "bench-board-e2e-tbnb")))
        errors = pg.errors()
    return {"ms": _since(res["end"], key), "ready_ms": _since(res["readyAt"], key), "partial": res["partial"],
            "first_paint_ms": _since(res["firstPaint"], key), "visible": res["visible"], "errors": errors}


def _wait_http(url: str, proc: subprocess.Popen, deadline: float) -> float:
    """Poll ``url`` until it answers 200; the time it first did (time.time())."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return time.time()
        except OSError:
            pass
        if proc.poll() is not None:
            raise HarnessError(f"tensorboard exited with status {proc.returncode} before serving")
        if time.time() > deadline:
            raise HarnessError("tensorboard did not serve its page in time")
        time.sleep(0.02)


def _complete(bodies: list[Any], runs: int, last_step: int) -> dict[str, Any]:
    """Whether every scalar time series TensorBoard's page received reached ``last_step`` in every run."""
    tags: dict[str, bool] = {}
    for body in bodies:
        for entry in body if isinstance(body, list) else []:
            per_run = entry.get("runToSeries") or {}
            full = len(per_run) == runs and all(s and s[-1].get("step") == last_step for s in per_run.values())
            tags[entry.get("tag")] = tags.get(entry.get("tag"), False) or full
    return {"tags": len(tags), "complete": sum(tags.values())}


def tensorboard_e2e(sess: Session, logdir: Path, runs: int, last_step: int, rep: int,
                    shots: list[str] | None, log: Callable[[str], None]) -> dict[str, Any]:
    """``tensorboard --logdir D`` launched until its visible time series cards are drawn and stable."""
    port = free_port()
    warm_page_cache(logdir)
    context = sess.browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(path=str(STABLE_JS))
    page = context.new_page()
    bodies: list[Any] = []

    def on_response(response: Any) -> None:
        if "/plugin/timeseries/timeSeries" in response.url:
            try:
                bodies.append(response.json())
            except Exception:  # noqa: BLE001 - a body not read (page closed): counted as incomplete
                bodies.append(None)

    page.on("response", on_response)
    with tempfile.TemporaryDirectory(prefix="tbnb-bench-tb-") as tmp:
        log_file = (Path(tmp) / "tensorboard.log").open("w")
        launched = time.time()
        proc = subprocess.Popen([tensorboard_command(), "--logdir", str(logdir), "--host", "127.0.0.1", "--port", str(port)],
                                stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}/"
            serving = _wait_http(url, proc, launched + TIMEOUT_S)
            page.goto(f"{url}?forceSVG=true", wait_until="commit")
            _watch(page, "tensorboard", runs)
            res = _wait_stable(page, f"TensorBoard rep {rep}", log)
            if shots is not None:
                shots.append(str(screenshot(page, "bench-board-e2e-tensorboard")))
        finally:
            context.close()
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log_file.close()
    launched_ms = launched * 1000
    return {"ms": _since(res["end"], launched_ms), "ready_ms": _since(res["readyAt"], launched_ms),
            "first_paint_ms": _since(res["firstPaint"], launched_ms), "lines_at_end": res["linesVisible"],
            "partial": res["partial"],
            "serving_ms": serving * 1000 - launched_ms, "visible": res["visible"],
            "data": _complete(bodies, runs, last_step)}


def tensorboard_command() -> str:
    """The ``tensorboard`` a user's shell would launch; HarnessError if there is none."""
    found = shutil.which("tensorboard")
    if not found:
        raise HarnessError("`tensorboard` is not on PATH: pip install tensorboard (a test dependency)")
    return found
