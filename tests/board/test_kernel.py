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


def _run(kc, code: str, timeout: float = 30, cell_id: str | None = None) -> list[dict]:
    """Execute ``code`` (as the cell ``cell_id`` of JupyterLab, which sends the id in the
    request's metadata); return every IOPub message until the kernel is idle again."""
    if cell_id is None:
        msg_id = kc.execute(code)
    else:
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": True}
        msg = kc.session.msg("execute_request", content, metadata={"cellId": cell_id})
        kc.shell_channel.send(msg)
        msg_id = msg["header"]["msg_id"]
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


def _kernel():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return jupyter_client.manager.start_new_kernel(kernel_name="python3", cwd=str(REPO), env=env)


def _setup(kc, logdir: Path, bundle: Path) -> None:
    """In the kernel: tbnb with the test bundle, and ``w``, a writer of run "a" in ``logdir``
    holding one point of "loss"."""
    _run(kc, textwrap.dedent(f"""
        from pathlib import Path
        from tbnb.board import assets
        assets.BUNDLE = Path({str(bundle)!r})
        import tbnb
        from tbnb.testing import EventWriter
        w = EventWriter(Path({str(logdir)!r}) / "a", start_time=1e9)
        w.add_scalar("loss", 0.0, 0, wall_time=1e9); w.flush()
    """))


def test_changed_messages_arrive_while_a_cell_is_busy(tmp_path: Path, bundle: Path) -> None:
    km, kc = _kernel()
    try:
        _setup(kc, tmp_path, bundle)
        _run(kc, f"board = tbnb.show({str(tmp_path)!r}, reload_interval=0.05)")
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


def test_rerunning_a_show_cell_closes_the_boards_it_showed(tmp_path: Path, bundle: Path) -> None:
    """A cell run again replaces its output: the Boards of its previous run stop polling and
    close; Boards shown by one run, or by other cells, stay (polled by one thread: they share
    the logdir's feed). The kernel's first Board also sends plotly.js unasked, the next ones
    do not."""
    km, kc = _kernel()
    try:
        _setup(kc, tmp_path, bundle)
        _run(kc, "shown = []")
        show = f"shown.append(tbnb.show({str(tmp_path)!r}, reload_interval=0.05))"
        first = _run(kc, f"{show}\n{show}", cell_id="cell-A")  # two Boards in one run
        assert len(_custom(first, "plotly")) == 1
        _run(kc, show, cell_id="cell-B")
        again = _run(kc, show, cell_id="cell-A")
        assert _custom(again, "plotly") == []
        closed = [m["content"]["comm_id"] for m in again if m["msg_type"] == "comm_close"]
        assert len(closed) == 2
        state = _run(kc, "import threading; print([b.comm is None for b in shown], "
                         "sum(t.name.startswith('tbnb-poll') for t in threading.enumerate()))")
        printed = "".join(m["content"]["text"] for m in state if m["msg_type"] == "stream").strip()
        # The two Boards left show one logdir: one feed, one poll thread between them.
        assert printed == "[True, True, False, False] 1", printed
        _run(kc, "for b in shown: b.close()")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
