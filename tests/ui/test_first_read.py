"""On a big logdir, ``%tbnb`` lays out its cards from the index of each file's first bytes while the
kernel still reads the rest (tbnb/board/first_read.py), then draws every point once the read ends.

The rest of the read is made to last a few seconds (a cell wraps ``first_read`` with a sleep
after the first pass), so the cards can be seen while the ``%tbnb`` cell is still running.
Both front ends; screenshot tests/artifacts/first-read-cards-<front end>.png.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tbnb.testing import EventWriter

from .harness import (
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    open_notebook,
    own_page,
    run_cell,
    screenshot,
    start_cell,
)
from .host_apps import wait_for_last_step

pytestmark = pytest.mark.ui

NB = "first_read.ipynb"
TAGS = ("acc", "loss", "lr")
STEPS = 3000  # ~500 KB a file: far beyond the first pass's 64 KB
REST_SECONDS = 8.0


def write_logdir(root: Path) -> Path:
    for run in ("a", "b"):
        with EventWriter(root / run) as w:
            for s in range(STEPS):
                for i, tag in enumerate(TAGS):
                    w.add_scalar(tag, (i + 1) / (s + 1), s)
    return root


def cells(logdir: Path) -> list[str]:
    return [
        "%load_ext tbnb",
        # The rest of the read takes REST_SECONDS more: the cards must be there before it ends.
        ("import time\nimport tbnb.board.first_read as F, tbnb.board.shared as S\n_real = F.first_read\n"
         "def _slow(source, on_preview):\n"
         "    def later(preview):\n"
         "        on_preview(preview)\n"
         f"        time.sleep({REST_SECONDS})\n"
         "    return _real(source, later if on_preview else None)\n"
         "S.first_read = _slow"),  # where a Board's start-up calls it (shared.py)
        f"%tbnb --logdir {logdir} --reload_interval 0",
    ]


def card_tags(page, cell: int = 2) -> list[str]:
    """Tags of the cards of the Board in cell ``cell``'s output."""
    return page.evaluate(
        "(cell) => [...(document.querySelectorAll('.jp-Notebook .jp-Cell')[cell] || document)"
        ".querySelectorAll('.jp-OutputArea .tbnb .tbnb-section:not(.tbnb-pinned) .tbnb-card')]"
        ".map((c) => c.dataset.tag)", cell)


def test_cards_are_laid_out_while_the_rest_is_read(jupyter_server: JupyterServer, browser) -> None:
    logdir = write_logdir(jupyter_server.root_dir / "first-read-logs")
    jupyter_server.write_notebook(NB, cells(logdir))
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, 0)
        run_cell(page, NB, 1)
        shown = start_cell(page, NB, 2)
        began = time.monotonic()
        while sorted(set(card_tags(page))) != list(TAGS):
            assert not shown.finished(), (
                f"the cell ended before the cards were laid out; cards: {card_tags(page)}")
            assert time.monotonic() - began < REST_SECONDS + 30, f"no cards; cards: {card_tags(page)}"
            page.wait_for_timeout(100)
        laid_out = time.monotonic() - began
        assert not shown.finished(), "the cards came only once the read had ended"
        assert laid_out < REST_SECONDS, laid_out
        screenshot(page, f"first-read-cards-{jupyter_server.front_end}")
        print(f"{jupyter_server.front_end}: cards laid out {laid_out:.1f} s after Ctrl+Enter, the cell still running")
        shown.wait(timeout=REST_SECONDS + 60)
        for run in ("a", "b"):
            chart = wait_for_last_step(page, "loss", run, STEPS - 1, timeout=60)
        assert chart["sub"].startswith(f"{2 * STEPS:,} points"), chart["sub"]
        assert sorted(set(card_tags(page))) == list(TAGS)  # laid out once: nothing added or lost
    assert_no_js_errors(log)

