"""One JupyterLab server and one headless Chromium for the whole benchmark, fresh pages on them.

Everything comes from the UI test harness (``tests/ui/harness.py``): the server on loopback with
isolated settings, Debian's Chromium with the same flags, the notebook helpers. This module only
adds the page instrumentation (``plotly_hook.js``, ``probe.js``), the websocket log, the JS heap
figures and the saving of a notebook through the UI.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.ui.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    BrowserLog,
    JupyterServer,
    js_errors,
    missing_requirements,
    requirements_message,
    start_jupyter_server,
    stop_jupyter_server,
)

from ..measure import HarnessError
from .wire import WireLog

HERE = Path(__file__).resolve().parent
PROBE_JS = (HERE / "probe.js").read_text()
PLOTLY_HOOK_JS = HERE / "plotly_hook.js"
#: The UI tests' page size.
VIEWPORT = {"width": 1280, "height": 900}
WIDGETS_SETTINGS = Path("@jupyter-widgets") / "jupyterlab-manager" / "plugin.jupyterlab-settings"


@dataclass
class Session:
    server: JupyterServer
    browser: Any  # playwright Browser


@contextlib.contextmanager
def session(log) -> Iterator[Session]:
    """Start JupyterLab and Chromium; stop both (and the kernels) however the block ends."""
    missing = missing_requirements("lab")
    if missing:
        raise HarnessError(requirements_message(missing))
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="tbnb-bench-board-") as tmp:
        log("starting JupyterLab and Chromium ...")
        server = start_jupyter_server("lab", Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                try:
                    yield Session(server, browser)
                finally:
                    browser.close()
        finally:
            stop_jupyter_server(server)


@dataclass
class Page:
    page: Any
    log: BrowserLog
    wire: WireLog

    def errors(self) -> list[str]:
        return js_errors(self.log)


@contextlib.contextmanager
def new_page(sess: Session, init_scripts: tuple[Path, ...] | list[Path] = ()) -> Iterator[Page]:
    """A fresh browser context (its own globalThis: plotly.js comes over the comm again) with the
    plotly hook (and ``init_scripts``), recording console errors and websocket frames; its kernels stop afterwards."""
    context = sess.browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    context.add_init_script(path=str(PLOTLY_HOOK_JS))
    for script in init_scripts:
        context.add_init_script(path=str(script))
    page = context.new_page()
    out = Page(page, BrowserLog(), WireLog())
    out.log.attach(page)
    page.on("websocket", out.wire.attach)
    try:
        yield out
    finally:
        _shutdown_kernels_from(page, sess.server)
        context.close()
        sess.server.shutdown_kernels()


_SHUTDOWN_JS = """async () => {
  const sm = window.jupyterapp && window.jupyterapp.serviceManager;
  if (!sm) return false;
  await sm.sessions.shutdownAll();
  await sm.kernels.shutdownAll();
  return true;
}"""


def _shutdown_kernels_from(page: Any, server: JupyterServer, timeout: float = 15.0) -> None:
    """Stop every kernel through the page's own service manager, and wait until they are gone.

    ``JupyterServer.shutdown_kernels()`` alone is not enough: its DELETE requests carry no XSRF
    token and the server answers 403 (swallowed), so kernels of earlier repetitions would keep
    running (each with its Boards polling) until the server stops.
    """
    with contextlib.suppress(Exception):  # a page that crashed or never loaded JupyterLab: best effort
        page.evaluate(_SHUTDOWN_JS)
        deadline = time.monotonic() + timeout
        while server.api("/api/kernels") and time.monotonic() < deadline:
            time.sleep(0.2)


def install_probe(page: Any, notebook: str) -> None:
    """window.__tbnbBench, following the kernel of ``notebook``."""
    page.evaluate(PROBE_JS)
    page.evaluate("(path) => window.__tbnbBench.hookKernel(path)", notebook)


def set_save_widget_state(server: JupyterServer, on: bool) -> None:
    """JupyterLab's "Save Jupyter widget state in notebooks" setting, read by pages opened after."""
    path = server.home / "settings" / WIDGETS_SETTINGS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"saveState": on}))


def js_heap(page: Any) -> dict[str, float]:
    """The page's JS heap after a full garbage collection (CDP ``Performance.getMetrics``)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("HeapProfiler.collectGarbage")
        cdp.send("Performance.enable")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    finally:
        cdp.detach()
    return {"heap_used_mb": metrics.get("JSHeapUsedSize", 0) / 1e6,
            "heap_total_mb": metrics.get("JSHeapTotalSize", 0) / 1e6,
            "nodes": metrics.get("Nodes"), "listeners": metrics.get("JSEventListeners")}


_DIRTY_JS = """(path) => {
  for (const w of window.jupyterapp.shell.widgets('main')) {
    if (w && w.context && w.context.path === path) return w.context.model.dirty;
  }
  return null;
}"""


def save_with_ctrl_s(page: Any, server: JupyterServer, notebook: str, timeout: float = 30.0) -> Path:
    """Press Ctrl+S in the notebook and wait until the file on disk is rewritten and clean."""
    path = server.root_dir / notebook
    before = path.stat().st_mtime_ns
    page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first.click()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.stat().st_mtime_ns != before and page.evaluate(_DIRTY_JS, notebook) is False:
            # A save writes once; give the file a moment in case it was caught mid-write.
            page.wait_for_timeout(300)
            return path
        page.wait_for_timeout(100)
    raise HarnessError(f"{notebook} was not saved within {timeout:.0f} s of Ctrl+S")
