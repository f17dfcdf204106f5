"""Real-browser UI test harness: a real Jupyter server, Debian's Chromium driven by Playwright.

The fixtures in ``conftest.py`` are thin wrappers around what is here, so that UI tests can also
import the helpers directly (``from .harness import run_cell, screenshot, ...``).

Nothing here downloads anything: the browser is ``/usr/bin/chromium`` (never ``playwright
install``), and the server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
FRONT_ENDS = ("lab", "notebook")
REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS_DIR = REPO_ROOT / "tests" / "artifacts"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
HARMLESS_SCHEMES = frozenset({"data", "blob", "about"})

#: Default timeouts (seconds). The machines are shared and have 2 CPUs: be generous, not slow.
SERVER_START_TIMEOUT = 60.0
NOTEBOOK_READY_TIMEOUT = 60.0
RUN_TIMEOUT = 60.0
#: Playwright's ``expect(...)`` default (its own default is 5 s), set by the ``browser`` fixture.
EXPECT_TIMEOUT = 15.0


# --------------------------------------------------------------------------------------------------
# Environment checks (skip locally, fail in CI)
# --------------------------------------------------------------------------------------------------


def in_ci() -> bool:
    """True when the environment variable CI is set to something other than "", 0, false or no."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_requirements(front_end: str | None = None) -> list[str]:
    """What the UI tests need and this machine lacks, as human-readable strings (empty if none)."""
    missing = []
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        missing.append(f"{CHROMIUM} (apt-get install -y chromium)")
    for module, pip_name in (
        ("playwright", "playwright"),
        ("jupyterlab", "jupyterlab"),
        ("nbformat", "nbformat"),
        ("ipykernel", "ipykernel"),
    ):
        if importlib.util.find_spec(module) is None:
            missing.append(f"the Python package {pip_name!r}")
    if front_end == "notebook":
        if importlib.util.find_spec("notebook") is None:
            missing.append("the Python package 'notebook' (Notebook 7)")
        else:
            from importlib.metadata import version

            major = int(version("notebook").split(".")[0])
            if major < 7:
                missing.append(f"Notebook 7 (installed: notebook {version('notebook')})")
    return missing


def requirements_message(missing: Sequence[str]) -> str:
    return (
        "UI tests need: "
        + "; ".join(missing)
        + ". Install them with .ci/install-browser (never `playwright install`)."
    )


# --------------------------------------------------------------------------------------------------
# The Jupyter server
# --------------------------------------------------------------------------------------------------


def _die_with_parent_prefix() -> list[str]:
    """A command prefix that SIGTERMs the server when the process that started it (pytest) dies,
    however it dies (CI timeout, SIGKILL): util-linux's setpriv, Essential on Debian. The server
    then shuts its kernels down itself. [] where setpriv is missing (atexit still applies)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv and sys.platform.startswith("linux") else []


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: User settings written for every test server: no news/update toasts over the screenshots, and
#: every cell attached to the DOM (windowing "none") so that selectors and execution counts are
#: there for all cells, wherever they are scrolled.
TEST_USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


@dataclass
class JupyterServer:
    """A running ``jupyter lab`` / ``jupyter notebook`` on 127.0.0.1, no token."""

    front_end: str  # "lab" or "notebook"
    url: str  # "http://127.0.0.1:PORT", no trailing slash
    port: int
    root_dir: Path  # the server's root_dir: notebooks written here are served
    home: Path  # config/settings/runtime dirs of this server (outside root_dir)
    log_path: Path  # the server's stdout+stderr
    process: subprocess.Popen | None = field(default=None, repr=False)

    # ----- notebooks -----
    def write_notebook(self, name: str, cells: Sequence[str], *, kernel: str = "python3") -> Path:
        """Write ``root_dir/name`` (a new .ipynb, one code cell per string) and return its path.

        A cell string starting with ``"%%md\\n"`` becomes a markdown cell (the rest is its
        source). The kernelspec metadata is set, so the front end starts the kernel without
        asking.
        """
        import nbformat

        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {
            "name": kernel,
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        nb.metadata["language_info"] = {"name": "python"}
        for src in cells:
            if src.startswith("%%md\n"):
                nb.cells.append(nbformat.v4.new_markdown_cell(src[len("%%md\n") :]))
            else:
                nb.cells.append(nbformat.v4.new_code_cell(src))
        path = self.root_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
        return path

    def notebook_url(self, name: str) -> str:
        """The URL that opens ``name`` (relative to root_dir) in this server's front end."""
        quoted = urllib.parse.quote(name)
        if self.front_end == "lab":
            # ?reset: start from an empty workspace, so that notebooks opened by earlier tests
            # are not reopened (and their kernels not restarted) in this page.
            return f"{self.url}/lab/tree/{quoted}?reset"
        return f"{self.url}/notebooks/{quoted}"

    # ----- REST API -----
    def api(self, path: str, method: str = "GET", timeout: float = 10.0) -> Any:
        """Call the server's REST API (``path`` like "/api/status"); return the decoded JSON."""
        req = urllib.request.Request(self.url + path, method=method)
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def sessions(self) -> list[dict]:
        return self.api("/api/sessions")

    def shutdown_kernels(self) -> None:
        """Delete every session and kernel (between tests; the server keeps running)."""
        try:
            for s in self.sessions():
                try:
                    self.api(f"/api/sessions/{s['id']}", method="DELETE")
                except urllib.error.URLError:
                    pass
            for k in self.api("/api/kernels"):
                try:
                    self.api(f"/api/kernels/{k['id']}", method="DELETE")
                except urllib.error.URLError:
                    pass
        except (urllib.error.URLError, OSError):
            pass

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"


#: Servers started and not yet stopped: stopped at interpreter exit too (an interrupted session
#: may skip fixture teardown, and the server is in its own session, out of reach of Ctrl+C).
_RUNNING: dict[int, JupyterServer] = {}


@atexit.register
def _stop_all_at_exit() -> None:
    for server in list(_RUNNING.values()):
        with contextlib.suppress(Exception):  # best effort at exit
            stop_jupyter_server(server, grace=5.0)


def _write_user_settings(settings_dir: Path) -> None:
    for rel, value in TEST_USER_SETTINGS.items():
        p = settings_dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(value))


def start_jupyter_server(
    front_end: str, base: Path, *, timeout: float = SERVER_START_TIMEOUT
) -> JupyterServer:
    """Start ``jupyter lab`` or ``jupyter notebook`` in its own process group; wait for /api/status.

    ``base`` is an empty directory: ``base/root`` becomes the server's root_dir, ``base/home``
    holds its config, user settings, workspaces and runtime files, isolated from ``~/.jupyter``.
    """
    if front_end not in FRONT_ENDS:
        raise ValueError(f"front_end must be one of {FRONT_ENDS}, not {front_end!r}")
    root_dir = base / "root"
    home = base / "home"
    root_dir.mkdir(parents=True, exist_ok=True)
    for sub in ("config", "runtime", "settings", "workspaces", "ipython"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    _write_user_settings(home / "settings")

    env = dict(os.environ)
    # The kernelspec runs "python": make it this interpreter.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.update(
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        IPYTHONDIR=str(home / "ipython"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("JUPYTER_TOKEN", None)
    # Kernels import this checkout's tbnb (installed or not), not another copy.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)

    last_error = ""
    for _attempt in range(3):  # a free port can be taken between free_port() and the bind
        port = free_port()
        log_path = base / f"server-{port}.log"
        cmd = [
            *_die_with_parent_prefix(),
            sys.executable,
            "-m",
            "jupyter",
            front_end,
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.ip=127.0.0.1",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={root_dir}",
            "--expose-app-in-browser",  # window.jupyterapp: kernel status and cells, exactly
        ]
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=str(root_dir),
                env=env,
                start_new_session=True,
            )
        server = JupyterServer(front_end, f"http://127.0.0.1:{port}", port, root_dir, home, log_path, proc)
        _RUNNING[proc.pid] = server
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            try:
                server.api("/api/status", timeout=2.0)
                return server
            except (urllib.error.URLError, OSError, ValueError):
                time.sleep(0.2)
        last_error = server.log_tail()
        stop_jupyter_server(server)
        if proc.returncode not in (None, 0) and "already in use" not in last_error:
            break
    raise RuntimeError(f"jupyter {front_end} did not answer /api/status. Its log ends with:\n{last_error}")


def _descendants(pid: int) -> list[int]:
    """All live descendants of ``pid`` (Linux /proc walk); [] where /proc is unavailable."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().decode(errors="replace").rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (OSError, IndexError):
        return False


def stop_jupyter_server(server: JupyterServer, *, grace: float = 10.0) -> None:
    """Stop the server's process group, and the kernels it started (which run in sessions of
    their own: jupyter_client starts them with start_new_session), leaving nothing behind."""
    proc = server.process
    if proc is None:
        return
    _RUNNING.pop(proc.pid, None)
    if proc.poll() is None:
        server.shutdown_kernels()  # graceful: the kernels' own shutdown
    # Kernels are not in the server's process group; remember them before the server goes.
    stragglers = _descendants(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGTERM)  # pgid == pid: start_new_session
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
    # Anything of ours that survived (a kernel of a killed server): by pid.
    deadline = time.monotonic() + 5
    for pid in stragglers:
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    server.process = None


# --------------------------------------------------------------------------------------------------
# What the page did: requests, console messages, uncaught errors
# --------------------------------------------------------------------------------------------------


@dataclass
class ConsoleEntry:
    type: str  # "log", "debug", "info", "warning", "error", ...
    text: str
    url: str  # source location of the console call ("" if unknown)

    def __str__(self) -> str:
        return f"console.{self.type}: {self.text}" + (f"  ({self.url})" if self.url else "")


@dataclass
class PageError:
    message: str
    stack: str

    def __str__(self) -> str:
        return f"uncaught: {self.message}\n{self.stack}"


@dataclass
class BrowserLog:
    """Everything the page (and its workers) did, recorded from the moment the page was made."""

    requests: list[str] = field(default_factory=list)  # URLs of HTTP(S) requests and websockets
    console: list[ConsoleEntry] = field(default_factory=list)
    page_errors: list[PageError] = field(default_factory=list)

    def attach(self, page) -> None:
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("websocket", lambda ws: self.requests.append(ws.url))
        page.on("console", self._on_console)
        page.on("crash", lambda _p: self.page_errors.append(PageError("the page crashed", "")))
        page.on(
            "pageerror",
            lambda e: self.page_errors.append(
                PageError(getattr(e, "message", str(e)), getattr(e, "stack", "") or "")
            ),
        )

    def _on_console(self, msg) -> None:
        try:
            loc = msg.location or {}
            url = loc.get("url", "") if isinstance(loc, dict) else ""
        except Exception:  # noqa: BLE001 - a detached frame
            url = ""
        self.console.append(ConsoleEntry(msg.type, msg.text, url))

    def errors(self) -> list[str]:
        """Uncaught page errors and console.error messages, as strings, in no particular order."""
        return [str(e) for e in self.page_errors] + [str(c) for c in self.console if c.type == "error"]


#: Errors the front ends themselves produce, with nothing of ours loaded. Each entry: a regex
#: matched against the error string (message and stack). Keep this list short and precise.
KNOWN_FRONT_END_ERRORS: tuple[str, ...] = (
    # Notebook 7.6 (with JupyterLab 4.6 packages), on opening any notebook, in its own bundle:
    r"(?s)^uncaught: Cannot read properties of undefined \(reading 'schema'\).*/static/notebook/",
)


@contextlib.contextmanager
def own_page(browser, log: BrowserLog, server: JupyterServer | None = None):  # -> Iterator[Page]
    """A page in a browser context of its own (1280x900, 30 s default timeout) recording into
    ``log``; on exit the context is closed and, given a server, its kernels are shut down (the
    server itself lives on)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        log.attach(page)
        yield page
    finally:
        context.close()
        if server is not None:
            server.shutdown_kernels()


def js_errors(log: BrowserLog, *, ignore: Iterable[str] = KNOWN_FRONT_END_ERRORS) -> list[str]:
    """``log.errors()`` minus those matching a regex of ``ignore``."""
    pats = [re.compile(p) for p in ignore]
    return [e for e in log.errors() if not any(p.search(e) for p in pats)]


def assert_no_js_errors(log: BrowserLog, *, ignore: Iterable[str] = KNOWN_FRONT_END_ERRORS) -> None:
    """Fail listing every uncaught page error and console.error not matching ``ignore``."""
    errs = js_errors(log, ignore=ignore)
    assert not errs, "JavaScript errors on the page:\n" + "\n---\n".join(errs)


def _is_loopback(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in HARMLESS_SCHEMES:
        return True
    return (parts.hostname or "").lower() in LOOPBACK_HOSTS


def assert_only_loopback(requests: Iterable[str] | BrowserLog) -> None:
    """Fail listing every URL whose host is not 127.0.0.1 / localhost / [::1].

    data:, blob: and about: URLs are fine. Accepts a list of URLs or a :class:`BrowserLog`.
    """
    urls = requests.requests if isinstance(requests, BrowserLog) else list(requests)
    bad = sorted({u for u in urls if not _is_loopback(u)})
    assert not bad, f"{len(bad)} request(s) left loopback:\n" + "\n".join(bad)


# --------------------------------------------------------------------------------------------------
# Driving the notebook
# --------------------------------------------------------------------------------------------------

# JS run in the page: find the notebook panel for a path (Lab: among the main-area widgets;
# Notebook 7: the only one) and describe its state.
_PANEL_JS = """
(path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return null;
  let panel = null;
  for (const w of app.shell.widgets('main')) {
    if (w && w.context && w.context.path === path && w.content && w.sessionContext) { panel = w; break; }
  }
  if (!panel) return {found: false};
  const sc = panel.sessionContext;
  const kernel = sc.session && sc.session.kernel;
  const cells = [];
  for (const cell of panel.content.widgets) {
    const m = cell.model;
    const errors = [];
    if (m.type === 'code') {
      for (let i = 0; i < m.outputs.length; i++) {
        const o = m.outputs.get(i);
        if (o.type === 'error') {
          const j = o.toJSON();
          errors.push(`${j.ename}: ${j.evalue}`);
        }
      }
    }
    cells.push({type: m.type, count: m.type === 'code' ? m.executionCount : null, errors});
  }
  return {
    found: true,
    ready: panel.context.isReady && sc.isReady,
    status: kernel ? kernel.status : 'no-kernel',
    connection: kernel ? kernel.connectionStatus : 'none',
    displayStatus: sc.kernelDisplayStatus,
    pending: sc.pendingInput,
    cells,
  };
}
"""


def notebook_state(page, name: str) -> dict | None:
    """The notebook panel's state as the front end sees it (None before the app exists):
    ``{found, ready, status, connection, displayStatus, cells: [{type, count, errors}]}``."""
    return page.evaluate(_PANEL_JS, name)


def _wait(page, name: str, predicate, what: str, timeout: float, on_poll=None) -> dict:
    deadline = time.monotonic() + timeout
    state = None
    while True:
        if on_poll is not None:
            on_poll()
        state = notebook_state(page, name)
        if state and state.get("found") and predicate(state):
            return state
        if time.monotonic() > deadline:
            errs = [e for c in (state or {}).get("cells", []) for e in c["errors"]]
            raise TimeoutError(
                f"{what}: not within {timeout:.0f} s. Last state: {json.dumps(state)}"
                + (f"\nCell errors: {errs}" if errs else "")
            )
        page.wait_for_timeout(100)


def _idle(state: dict) -> bool:
    return state["ready"] and state["status"] == "idle" and state["connection"] == "connected"


def wait_for_kernel_idle(page, name: str, *, timeout: float = NOTEBOOK_READY_TIMEOUT) -> dict:
    """Wait until the notebook ``name`` is loaded and its kernel connected and idle."""

    def accept_kernel_dialog() -> None:
        # A notebook without a usable kernelspec asks which kernel to start: take the default.
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count() and dialog.first.is_visible():
            dialog.first.click()

    return _wait(page, name, _idle, f"kernel of {name} idle", timeout, on_poll=accept_kernel_dialog)


def open_notebook(page, server: JupyterServer, name: str, *, timeout: float = NOTEBOOK_READY_TIMEOUT) -> dict:
    """Open ``name`` in ``server``'s front end; return once its kernel is connected and idle."""
    page.goto(server.notebook_url(name), wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout * 1000)
    return wait_for_kernel_idle(page, name, timeout=timeout)


def _code_counts(state: dict) -> list[int | None]:
    return [c["count"] for c in state["cells"] if c["type"] == "code"]


def _click_menu(page, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^{re.escape(menu)}$")).first.click()
    entry = page.locator(
        ".lm-Menu:not(.lm-MenuBar) .lm-Menu-item",
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$")),
    )
    entry.first.click()


def _wait_executed(page, name: str, before: list[int | None], which: Sequence[int], timeout: float) -> dict:
    """Wait until every code cell in ``which`` (indices among code cells) has a new execution
    count and the kernel is idle; fail early, with the error, if a cell raised."""

    def done(state: dict) -> bool:
        counts = _code_counts(state)
        if len(counts) != len(before):
            return False
        code_cells = [c for c in state["cells"] if c["type"] == "code"]
        if any(code_cells[i]["errors"] for i in which if counts[i] is not None and counts[i] != before[i]):
            return True  # report below
        return _idle(state) and all(counts[i] is not None and counts[i] != before[i] for i in which)

    state = _wait(page, name, done, f"executing cells of {name}", timeout)
    code_cells = [c for c in state["cells"] if c["type"] == "code"]
    errs = [(i, code_cells[i]["errors"]) for i in which if code_cells[i]["errors"]]
    if errs:
        raise AssertionError(
            f"cell(s) of {name} raised: " + "; ".join(f"code cell {i}: {e}" for i, e in errs)
        )
    return state


def run_notebook_in_browser(
    page, server: JupyterServer, name: str, front_end: str | None = None, *, timeout: float = RUN_TIMEOUT
) -> dict:
    """Open ``name`` in the browser, run all its cells from the menu ("Run > Run All Cells"),
    and return when every code cell has an execution count and the kernel is idle again.

    Returns the final :func:`notebook_state`. Raises AssertionError if a cell raised (naming
    the exception), TimeoutError otherwise. ``front_end`` defaults to the server's; it must
    match it.
    """
    front_end = front_end or server.front_end
    if front_end != server.front_end:
        raise ValueError(f"server runs {server.front_end!r}, not {front_end!r}")
    state = open_notebook(page, server, name, timeout=timeout)
    before = _code_counts(state)
    _click_menu(page, "Run", "Run All Cells")
    return _wait_executed(page, name, before, range(len(before)), timeout)


@dataclass
class PendingCell:
    """A cell started by :func:`start_cell`: ``wait()`` for its end like :func:`run_cell` does."""

    page: Any = field(repr=False)
    name: str
    index: int  # among all cells
    code_index: int  # among code cells
    before: list[int | None] = field(repr=False)

    def wait(self, *, timeout: float = RUN_TIMEOUT) -> dict:
        """Wait for the cell's new execution count and an idle kernel; return the final
        :func:`notebook_state`. Raises AssertionError if the cell raised."""
        return _wait_executed(self.page, self.name, self.before, [self.code_index], timeout)

    def finished(self) -> bool:
        """Whether the cell's run has ended (it has its new execution count), from the model."""
        count = _code_counts(notebook_state(self.page, self.name))[self.code_index]
        return count is not None and count != self.before[self.code_index]


def start_cell(page, name: str, index: int) -> PendingCell:
    """Start cell ``index`` (0-based, among all cells) of the open notebook ``name`` the way a
    user does (click its editor, Ctrl+Enter) and return at once, without waiting for it to run
    (e.g. to keep the kernel busy while the test does something else). ``.wait()`` on the result
    waits as :func:`run_cell` does."""
    state = notebook_state(page, name)
    if not state or not state.get("found"):
        raise RuntimeError(f"{name} is not open in this page")
    cells = state["cells"]
    if cells[index]["type"] != "code":
        raise ValueError(f"cell {index} of {name} is a {cells[index]['type']} cell")
    code_index = sum(1 for c in cells[:index] if c["type"] == "code")
    before = _code_counts(state)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    return PendingCell(page, name, index, code_index, before)


def run_cell(page, name: str, index: int, *, timeout: float = RUN_TIMEOUT) -> dict:
    """Run cell ``index`` (0-based, among all cells) of the open notebook ``name`` the way a
    user does (click its editor, Ctrl+Enter) and wait for its new execution count and an idle
    kernel. Returns the final :func:`notebook_state`."""
    return start_cell(page, name, index).wait(timeout=timeout)


# The text of a cell's outputs, from the notebook model (not the DOM, which renders a moment
# later): streams, plain-text results and errors, in order.
_CELL_TEXT_JS = """
([path, index]) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return null;
  for (const w of app.shell.widgets('main')) {
    if (!(w && w.context && w.context.path === path && w.content)) continue;
    const cell = w.content.widgets[index];
    if (!cell || cell.model.type !== 'code') return null;
    const parts = [];
    const outputs = cell.model.outputs;
    for (let i = 0; i < outputs.length; i++) {
      const o = outputs.get(i).toJSON();
      if (o.output_type === 'stream') parts.push([].concat(o.text).join(''));
      else if (o.output_type === 'error') parts.push(`${o.ename}: ${o.evalue}\\n`);
      else if (o.data && o.data['text/plain'] !== undefined) {
        parts.push([].concat(o.data['text/plain']).join('') + '\\n');
      }
    }
    return parts.join('');
  }
  return null;
}
"""


def cell_text(page, name: str, index: int) -> str:
    """The text of cell ``index``'s outputs (0-based, among all cells) in the open notebook
    ``name``, read from the notebook model: stream text, ``text/plain`` results and errors as
    "ename: evalue", in order. After :func:`run_cell` returns it holds that run's output."""
    text = page.evaluate(_CELL_TEXT_JS, [name, index])
    if text is None:
        raise RuntimeError(f"{name} is not open in this page, or its cell {index} is not a code cell")
    return text


def cell_output(page, index: int):
    """Locator of cell ``index``'s output area (0-based, among all cells)."""
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")


def printed_json(page, name: str, index: int, marker: str) -> Any:
    """Run cell ``index`` and return the JSON it printed last on a line ``<marker> <json>``."""
    run_cell(page, name, index)
    text = cell_text(page, name, index)
    found = re.findall(rf"^{re.escape(marker)} (.*)$", text, re.MULTILINE)
    assert found, f"cell {index} printed no {marker} line: {text!r}"
    return json.loads(found[-1])


@dataclass
class BoardPage:
    """One front end's page with a notebook of Boards open: the server, the page, what the page
    logged, and the logdir the notebook shows."""

    server: JupyterServer
    page: Any
    log: BrowserLog
    logdir: Path

    @property
    def front_end(self) -> str:
        return self.server.front_end

    def board(self, cell: int):
        """Locator of the Board in the output of cell ``cell``."""
        return cell_output(self.page, cell).locator(".tbnb")


def screenshot(page, name: str, **kwargs) -> Path:
    """Save a PNG of the page to ``tests/artifacts/<name>.png`` and return its path.
    Extra keyword arguments go to ``page.screenshot`` (e.g. ``full_page=True``)."""
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
    path = ARTIFACTS_DIR / f"{safe}.png"
    page.screenshot(path=str(path), **kwargs)
    return path
