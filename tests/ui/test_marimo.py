"""The Board in marimo (which renders anywidgets itself, no Jupyter front end): a marimo app
whose cell is ``board = tbnb.show(logdir)``, served by ``marimo run`` and by ``marimo edit``,
drawn in Chromium; points appended to the logdir, and a new run, appear without running a cell.
Screenshots: tests/artifacts/marimo-run.png, marimo-edit.png.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .harness import BrowserLog, assert_only_loopback, own_page, screenshot
from .host_apps import (
    LIVE_DEADLINE,
    charts,
    host_env,
    require_module,
    serving,
    wait_for_last_step,
    write_loss,
)

pytestmark = pytest.mark.ui

APP = Path(__file__).resolve().parent / "hosts" / "marimo_board.py"
#: `marimo edit` runs no cell until told to; this setting beside the app runs them on open.
AUTO_RUN = "[tool.marimo.runtime]\nauto_instantiate = true\n"


@pytest.mark.parametrize("mode", ["run", "edit"])
def test_marimo_draws_and_updates_live(mode: str, browser, tmp_path: Path) -> None:
    require_module("marimo", "marimo")
    logdir = tmp_path / "logs"
    write_loss(logdir / "a", range(50))
    shutil.copy(APP, tmp_path / APP.name)
    (tmp_path / "pyproject.toml").write_text(AUTO_RUN)
    command = ["marimo", mode, APP.name, "--headless", "--host", "127.0.0.1", "--port", "{port}"]
    if mode == "edit":
        command += ["--no-token", "--skip-update-check"]
    env = host_env(TBNB_TEST_LOGDIR=str(logdir), MARIMO_SKIP_UPDATE_CHECK="1")
    log = BrowserLog()
    with serving(f"marimo-{mode}", command, tmp_path, env) as server, own_page(browser, log) as page:
        page.goto(server.url)
        chart = wait_for_last_step(page, "loss", "a", 49, timeout=90)
        assert chart["sub"].startswith("50 points"), chart["sub"]

        write_loss(logdir / "a", range(50, 80))  # appended to the run...
        chart = wait_for_last_step(page, "loss", "a", 79, timeout=LIVE_DEADLINE)
        assert chart["traces"][0]["x"][-30:] == list(range(50, 80))
        write_loss(logdir / "b", range(10))  # ...and a new run
        chart = wait_for_last_step(page, "loss", "b", 9, timeout=LIVE_DEADLINE)
        assert {t["name"] for t in chart["traces"]} == {"a", "b"}
        assert chart["sub"].startswith("90 points"), chart["sub"]
        assert len(charts(page)) == 1  # shown once: tbnb.show's display() adds no second board
        screenshot(page, f"marimo-{mode}", full_page=True)
        errors = [e for e in log.errors() if "tbnb" in e or "plotly" in e.lower()]
        assert not errors, errors
    assert_only_loopback(log)
