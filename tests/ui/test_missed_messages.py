"""A front end that misses the messages sent while a cell runs catches up with ``board.refresh()``.

Colab renders nothing the Board's poll thread sends (colabtools#3373) and VS Code may render a
view after the messages it needed: such a page shows stale data however long it waits, because
the poll thread has already announced what it found. Here JupyterLab's kernel websocket is
routed through the test, which drops every comm message for the page while a "training" cell
runs (writing points to one run and creating another); afterwards the chart still shows the old
data, and after ``board.refresh()`` in the next cell it shows every point and the new run.
Screenshots: tests/artifacts/missed-messages-stale.png, missed-messages-refreshed.png.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from .harness import BrowserLog, JupyterServer, open_notebook, own_page, run_cell, screenshot
from .host_apps import LIVE_DEADLINE, RELOAD_INTERVAL, charts, wait_for_last_step, write_loss

pytestmark = pytest.mark.ui

NB = "missed.ipynb"
KERNEL_SOCKET = re.compile(r".*/api/kernels/[^/]+/channels.*")


def cells(logdir: Path) -> list[str]:
    return [
        f"import tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval={RELOAD_INTERVAL})",
        # The training loop: writes while the poll thread reloads every RELOAD_INTERVAL.
        ("import time\nfrom tbnb.testing import EventWriter\n"
        f"with EventWriter({str(logdir / 'a')!r}) as writer:\n"
        "    for step in range(50, 80):\n"
        "        writer.add_scalar('loss', 1.0 / (step + 1), step)\n"
        "        writer.flush()\n"
        "        time.sleep(0.05)\n"
        f"with EventWriter({str(logdir / 'b')!r}) as writer:\n"
        "    for step in range(10):\n"
        "        writer.add_scalar('loss', 1.0 / (step + 1), step)\n"
        f"time.sleep({6 * RELOAD_INTERVAL})  # the poll thread has found everything before the cell ends"),
        "board.refresh()",
    ]


class CommFilter:
    """Routes the kernel websocket; while ``dropping``, comm messages to the page are dropped."""

    def __init__(self) -> None:
        self.dropping = False
        self.dropped = 0
        self._lock = threading.Lock()

    def route(self, ws) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)  # page -> kernel: untouched
        server.on_message(lambda message: self._to_page(ws, message))

    def _to_page(self, ws, message: str | bytes) -> None:
        text = message if isinstance(message, bytes) else message.encode()
        if self.dropping and b"comm_msg" in text[:4096]:  # the header names the message type
            with self._lock:
                self.dropped += 1
            return
        ws.send(message)


@pytest.mark.parametrize("jupyter_server", ["lab"], indirect=True)
def test_a_page_that_missed_messages_catches_up_on_refresh(jupyter_server: JupyterServer, browser) -> None:
    logdir = jupyter_server.root_dir / "missed-logs"
    write_loss(logdir / "a", range(50))
    jupyter_server.write_notebook(NB, cells(logdir))
    comms = CommFilter()
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        page.route_web_socket(KERNEL_SOCKET, comms.route)
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, 0)
        wait_for_last_step(page, "loss", "a", 49, timeout=90)

        comms.dropping = True
        run_cell(page, NB, 1, timeout=120)
        comms.dropping = False
        assert comms.dropped > 0, "the poll thread sent nothing while the cell ran: nothing was imitated"
        page.wait_for_timeout(4000 * RELOAD_INTERVAL)  # several polls: they have nothing new to say
        (chart,) = [c for c in charts(page) if c["tag"] == "loss"]
        assert [(t["name"], t["x"][-1]) for t in chart["traces"]] == [("a", 49), ("a", 49)], chart
        page.locator('.tbnb-card[data-tag="loss"]').first.scroll_into_view_if_needed()
        screenshot(page, "missed-messages-stale")

        run_cell(page, NB, 2)
        chart = wait_for_last_step(page, "loss", "a", 79, timeout=LIVE_DEADLINE)
        chart = wait_for_last_step(page, "loss", "b", 9, timeout=LIVE_DEADLINE)
        assert {t["name"] for t in chart["traces"]} == {"a", "b"}
        assert chart["sub"].startswith("90 points"), chart["sub"]
        page.locator('.tbnb-card[data-tag="loss"]').first.scroll_into_view_if_needed()
        screenshot(page, "missed-messages-refreshed")
