"""Fixtures for the real-browser UI tests: a Jupyter server (JupyterLab 4 or Notebook 7), Debian's
Chromium driven by Playwright, and recorders of what the page requested and logged.

Every test under tests/ui gets the ``ui`` marker. Select or deselect them with ``-m ui`` /
``-m "not ui"``.

If Chromium, playwright or jupyterlab is missing the UI tests are skipped, with the reason.
When the environment variable CI is set they fail instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# The helpers are re-exported too; ``from .harness import ...`` is the canonical import.
from .harness import (  # noqa: F401
    CHROMIUM,
    CHROMIUM_ARGS,
    EXPECT_TIMEOUT,
    FRONT_ENDS,
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    assert_only_loopback,
    cell_output,
    in_ci,
    js_errors,
    missing_requirements,
    notebook_state,
    open_notebook,
    own_page,
    requirements_message,
    run_cell,
    run_notebook_in_browser,
    screenshot,
    start_jupyter_server,
    stop_jupyter_server,
    wait_for_kernel_idle,
)

_UI_DIR = Path(__file__).resolve().parent


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "ui: real-browser test (Chromium + a Jupyter server); see tests/ui/conftest.py"
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _UI_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.ui)


def _require(front_end: str | None = None) -> None:
    missing = missing_requirements(front_end)
    if not missing:
        return
    msg = requirements_message(missing)
    if in_ci():
        pytest.fail(f"CI is set and {msg}", pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def ui_requirements():
    """Skip (locally) or fail (CI set) when Chromium, playwright or jupyterlab is missing."""
    _require()


@pytest.fixture(autouse=True)
def _ui_requirements_autouse(ui_requirements):
    """Every test under tests/ui checks the requirements, even one using no other fixture."""


# --------------------------------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session", params=FRONT_ENDS)
def jupyter_server(request, ui_requirements, tmp_path_factory):
    """A running Jupyter server (session scope), one per front end: "lab" then "notebook".

    Tests using it run once per front end; to restrict a test, use
    ``@pytest.mark.parametrize("jupyter_server", ["lab"], indirect=True)``.
    Yields a :class:`harness.JupyterServer`: ``.url``, ``.root_dir``, ``.front_end``,
    ``.write_notebook(name, cells) -> Path``, ``.notebook_url(name)``, ``.api(path)``.
    """
    front_end = request.param
    _require(front_end)
    server = start_jupyter_server(front_end, tmp_path_factory.mktemp(f"jupyter-{front_end}"))
    try:
        yield server
    finally:
        stop_jupyter_server(server)


@pytest.fixture
def front_end(jupyter_server) -> str:
    """ "lab" or "notebook": the front end of this test's ``jupyter_server``."""
    return jupyter_server.front_end


# --------------------------------------------------------------------------------------------------
# Browser
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _playwright(ui_requirements):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(_playwright):
    """Debian's headless Chromium (session scope), launched by Playwright's sync API.
    Also raises ``expect(...)``'s default timeout to EXPECT_TIMEOUT (15 s)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT * 1000)
    b = _playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def browser_log() -> BrowserLog:
    """What ``page`` does: ``.requests`` (URLs), ``.console`` (ConsoleEntry), ``.page_errors``."""
    return BrowserLog()


@pytest.fixture
def page(request, browser, browser_log):
    """A fresh page (own browser context, 1280x900) recording into ``browser_log``.

    On teardown the context is closed and, if the test used ``jupyter_server``, its kernels
    and sessions are shut down (the server itself lives on for the session).
    """
    server = request.getfixturevalue("jupyter_server") if "jupyter_server" in request.fixturenames else None
    with own_page(browser, browser_log, server) as pg:
        yield pg
