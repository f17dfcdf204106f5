"""The Board served as an app by Voilà (a notebook's outputs, no notebook UI): a notebook whose
cell is ``board = tbnb.show(logdir)``, drawn in Chromium; points appended to the logdir, and a
new run, appear without running anything. Screenshot: tests/artifacts/voila.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import BrowserLog, own_page, screenshot
from .host_apps import (
    LIVE_DEADLINE,
    RELOAD_INTERVAL,
    charts,
    host_env,
    require_module,
    serving,
    wait_for_last_step,
    write_loss,
)

pytestmark = pytest.mark.ui

CELL = f"""import os
import tbnb
board = tbnb.show(os.environ["TBNB_TEST_LOGDIR"], reload_interval={RELOAD_INTERVAL})
board"""


def write_notebook(path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, str(path))


def test_voila_draws_and_updates_live(browser, tmp_path: Path) -> None:
    require_module("voila", "voila")
    logdir = tmp_path / "logs"
    write_loss(logdir / "a", range(50))
    write_notebook(tmp_path / "board.ipynb")
    command = ["voila", "board.ipynb", "--no-browser", "--port={port}", "--Voila.ip=127.0.0.1",
               "--show_tracebacks=True"]
    env = host_env(TBNB_TEST_LOGDIR=str(logdir))
    log = BrowserLog()
    with serving("voila", command, tmp_path, env) as server, own_page(browser, log) as page:
        page.goto(server.url)
        chart = wait_for_last_step(page, "loss", "a", 49, timeout=90)
        assert chart["sub"].startswith("50 points"), chart["sub"]

        write_loss(logdir / "a", range(50, 80))
        chart = wait_for_last_step(page, "loss", "a", 79, timeout=LIVE_DEADLINE)
        assert chart["traces"][0]["x"][-30:] == list(range(50, 80))
        write_loss(logdir / "b", range(10))
        chart = wait_for_last_step(page, "loss", "b", 9, timeout=LIVE_DEADLINE)
        assert {t["name"] for t in chart["traces"]} == {"a", "b"}
        assert chart["sub"].startswith("90 points"), chart["sub"]
        assert len(charts(page)) == 1  # the board is displayed once, not again as the cell's value
        screenshot(page, "voila", full_page=True)
        errors = [e for e in log.errors() if "tbnb" in e or "plotly" in e.lower()]
        assert not errors, errors
    # Voila's own page template links Font Awesome from a CDN (blocked offline, nothing of ours).
    outside = [u for u in log.requests if not u.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:"))]
    assert all("fontawesome" in u for u in outside), outside
