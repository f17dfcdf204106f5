"""In a real ipykernel: the poll thread's messages go out while another cell runs a training loop.

This is why polling is a thread (ipykernel's event loop is blocked while a cell runs). The kernel
is a subprocess driven by jupyter_client; what the page would receive is read from IOPub.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

#: The checkout under test: the kernel imports tbnb from here, whatever is installed.
REPO = Path(__file__).resolve().parents[2]


def _run(kc, code: str, timeout: float = 30) -> list[dict]:
    """Execute ``code``; return every IOPub message until the kernel is idle again."""
    msg_id = kc.execute(code)
    messages = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        messages.append(msg)
        if (msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"
                and msg["parent_header"].get("msg_id") == msg_id):
            break
    reply = kc.get_shell_msg(timeout=timeout)
    assert reply["content"]["status"] == "ok", reply["content"]
    return messages


def _custom(messages: list[dict], kind: str) -> list[dict]:
    return [m["content"]["data"]["content"] for m in messages
            if m["msg_type"] == "comm_msg" and m["content"]["data"].get("method") == "custom"
            and m["content"]["data"]["content"].get("type") == kind]


def test_changed_messages_arrive_while_a_cell_is_busy(tmp_path: Path, bundle: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3", cwd=str(REPO), env=env)
    try:
        _run(kc, textwrap.dedent(f"""
            from pathlib import Path
            from tbnb.board import assets
            assets.BUNDLE = Path({str(bundle)!r})
            import tbnb
            from tbnb.testing import EventWriter
            w = EventWriter(Path({str(tmp_path)!r}) / "a", start_time=1e9)
            w.add_scalar("loss", 0.0, 0, wall_time=1e9); w.flush()
            board = tbnb.show({str(tmp_path)!r}, reload_interval=0.05)
        """))
        training = _run(kc, textwrap.dedent("""
            import time
            for step in range(1, 21):  # a training loop: the kernel is busy throughout
                w.add_scalar("loss", float(step), step, wall_time=1e9 + step); w.flush()
                time.sleep(0.05)
            time.sleep(0.3)
        """))
        changed = _custom(training, "changed")
        assert changed and all(c["tags"] == {"a": ["loss"]} for c in changed)
        # the status trait (points held) was synced during the cell too
        updates = [m["content"]["data"]["state"]["status"] for m in training
                   if m["msg_type"] == "comm_msg" and "status" in m["content"]["data"].get("state", {})]
        assert updates and updates[-1]["points"] == 21
        closing = _run(kc, "board.close(); import threading; "
                           "print([t.name for t in threading.enumerate() if t.name.startswith('tbnb-poll')])")
        printed = "".join(m["content"]["text"] for m in closing if m["msg_type"] == "stream")
        assert printed.strip() == "[]"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
