"""Serving a Board from hosts other than JupyterLab (marimo, Voilà) for the browser tests.

Each host is a server process started on 127.0.0.1 in its own process group, with this
checkout's tbnb first on PYTHONPATH, stopped by its process group id. The page's charts are
found through open shadow roots (marimo renders anywidgets inside one).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tbnb.testing import EventWriter

from .harness import REPO_ROOT, free_port

#: Seconds a host may take to answer its first HTTP request (it starts a kernel for Voilà).
START_TIMEOUT = 90.0
#: Poll interval of the Boards the host apps show.
RELOAD_INTERVAL = 0.5
#: Appended points must be drawn within this long (poll interval + a loaded 2-CPU machine).
LIVE_DEADLINE = 15.0

#: Every plotly chart on the page, including inside open shadow roots: its traces' names and
#: x values, the card's tag and point-count label.
CHARTS_JS = """
() => {
  const plots = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    for (const p of root.querySelectorAll('.tbnb-card .js-plotly-plot')) plots.push(p);
  };
  walk(document);
  return plots.filter((p) => Array.isArray(p.data)).map((p) => {
    const card = p.closest('.tbnb-card');
    const sub = card && card.querySelector('.tbnb-card-sub');
    return {tag: card ? card.dataset.tag : null, sub: sub ? sub.textContent : '',
            traces: p.data.map((t) => ({name: t.name, x: Array.from(t.x || [])}))};
  });
}
"""


@dataclass
class HostServer:
    """A host serving one app or notebook at ``url``."""

    name: str
    url: str
    process: subprocess.Popen
    log_path: Path

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"


def host_env(**extra: str) -> dict[str, str]:
    """This environment, with the checkout's tbnb first and this interpreter's scripts on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def _die_with_pytest() -> list[str]:
    """SIGTERM the host when pytest dies however it dies (util-linux's setpriv, where present)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv and sys.platform.startswith("linux") else []


@contextmanager
def serving(name: str, command: Sequence[str], cwd: Path, env: dict[str, str], path: str = "/",
            timeout: float = START_TIMEOUT) -> Iterator[HostServer]:
    """Run ``command`` (with ``{port}`` in it) until ``http://127.0.0.1:{port}{path}`` answers
    200; yield the server, and stop its process group afterwards."""
    port = free_port()
    log_path = cwd / f"{name}-{port}.log"
    argv = [*_die_with_pytest(), *(part.format(port=port) for part in command)]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=str(cwd), env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    server = HostServer(name, f"http://127.0.0.1:{port}{path}", proc, log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}:\n{server.log_tail()}")
            try:
                with urllib.request.urlopen(server.url, timeout=5) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not answer {server.url} in {timeout:.0f} s:\n{server.log_tail()}")
            time.sleep(0.3)
        yield server
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the host's process group (its kernels too), then SIGKILL what is left."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def write_loss(run_dir: Path, steps: range) -> None:
    """``loss`` at ``steps`` in a new event file of ``run_dir``, as one more writer of a run does."""
    with EventWriter(run_dir) as writer:
        for step in steps:
            writer.add_scalar("loss", 1.0 / (step + 1), step)


def charts(page) -> list[dict]:
    """Every Board chart on the page (CHARTS_JS)."""
    return page.evaluate(CHARTS_JS)


def wait_for_last_step(page, tag: str, run: str, step: int, timeout: float) -> dict:
    """Wait until the chart of ``tag`` draws ``run`` up to ``step``; return the chart. On timeout
    say what the page draws instead."""
    deadline = time.monotonic() + timeout
    while True:
        found = [c for c in charts(page) if c["tag"] == tag]
        for chart in found:
            lines = [t["x"] for t in chart["traces"] if t["name"] == run and t["x"]]
            if lines and lines[0][-1] == step:
                return chart
        if time.monotonic() > deadline:
            raise AssertionError(f"step {step} of {run} not drawn in {tag} within {timeout:.0f} s; charts: "
                                 + repr([(c["tag"], c["sub"], [t["x"][-1:] for t in c["traces"]]) for c in found]))
        page.wait_for_timeout(200)


def require_module(module: str, pip_name: str) -> None:
    """Skip a host's test where its package is missing; fail instead in CI (the test extra has it)."""
    import importlib.util

    import pytest

    from .harness import in_ci

    if importlib.util.find_spec(module) is None:
        message = f"this host test needs {pip_name} (pip install -e '.[test]')"
        if in_ci():
            pytest.fail(f"CI is set and {message}", pytrace=False)
        pytest.skip(message)
