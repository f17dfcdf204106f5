"""What a viewer of a Voilà page can do from the browser console: open a connection of their own
to the page's kernel (its id is in the page's config) and send it any widget message, and a
browser of the test's own that the test can kill when its page stops answering.

Every wait has a deadline: a reply awaited in the page resolves with ``None`` when it does not
come in time (the awaiting ``page.evaluate`` returns), and ``watchdog`` kills the browser when
the page itself stops running JavaScript (then Playwright's pending call raises), so that a
stalled kernel or page fails the test with a message instead of hanging it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from .harness import CHROMIUM, CHROMIUM_ARGS, free_port

#: The page's own connection to its kernel, in Jupyter's binary websocket protocol (subprotocol
#: "v1.kernel.websocket.jupyter.org", JupyterLab's: little-endian uint64 count and offsets, then
#: channel, header, parent header, metadata, content and buffers); in the older JSON protocol the
#: server forwarded no message with buffers here. ``__viewer.send`` returns the message id;
#: ``__viewer.wait`` resolves with the first message (already received or to come) that a
#: predicate accepts, or null after ``ms``.
CONNECT_JS = """
async ({path, ms}) => {
  const ws = new WebSocket(`ws://${location.host}${path}`, ["v1.kernel.websocket.jupyter.org"]);
  ws.binaryType = "arraybuffer";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no connection to the kernel in ${ms} ms`)), ms);
    ws.onopen = () => { clearTimeout(timer); resolve(); };
    ws.onerror = () => { clearTimeout(timer); reject(new Error("the kernel connection failed")); };
  });
  const text = new TextDecoder();
  const decode = (data) => {
    const view = new DataView(data);
    const count = Number(view.getBigUint64(0, true));
    const offsets = Array.from({length: count}, (_, i) => Number(view.getBigUint64(8 * (i + 1), true)));
    const part = (i) => text.decode(new Uint8Array(data, offsets[i], offsets[i + 1] - offsets[i]));
    const [header, parent, metadata, content] = [1, 2, 3, 4].map((i) => JSON.parse(part(i)));
    return {channel: part(0), header, msg_type: header.msg_type, parent_header: parent, metadata, content};
  };
  const encode = (channel, msg) => {
    const parts = [channel, ...[msg.header, msg.parent_header, msg.metadata, msg.content].map((v) => JSON.stringify(v))]
      .map((s) => new TextEncoder().encode(s));
    const head = 8 * (parts.length + 2);
    const offsets = [head];
    for (const p of parts) offsets.push(offsets[offsets.length - 1] + p.length);
    const out = new Uint8Array(offsets[offsets.length - 1]);
    const view = new DataView(out.buffer);
    view.setBigUint64(0, BigInt(offsets.length), true);
    offsets.forEach((o, i) => view.setBigUint64(8 * (i + 1), BigInt(o), true));
    parts.forEach((p, i) => out.set(p, offsets[i]));
    return out;
  };
  const received = [];
  let waiters = [];
  ws.onmessage = (event) => {
    let msg;
    try { msg = decode(event.data); } catch (err) { received.push({undecoded: String(err)}); return; }
    msg.received = performance.now();
    received.push(msg);
    waiters = waiters.filter((w) => !(w.accept(msg) && (w.resolve(msg), true)));
  };
  let n = 0;
  const send = (channel, msgType, content) => {
    const msgId = `viewer-${n++}`;
    const header = {msg_id: msgId, msg_type: msgType, username: "viewer", session: "viewer",
                    date: new Date().toISOString(), version: "5.3"};
    ws.send(encode(channel, {header, parent_header: {}, metadata: {}, content}));
    return msgId;
  };
  const wait = (accept, ms) => new Promise((resolve) => {
    const early = received.find((m) => !m.undecoded && accept(m));
    if (early) return resolve(early);
    const waiter = {accept, resolve};
    waiters.push(waiter);
    setTimeout(() => { waiters = waiters.filter((w) => w !== waiter); resolve(null); }, ms);
  });
  globalThis.__viewer = {send, wait, received};
}
"""

#: Placeholders in a message's content, filled in the page (Playwright need not carry them):
#: "@BIG@" becomes ten million characters, "@DEEP@" lists nested 500 deep.
FILL_JS = """
const fill = (value) => {
  if (value === "@BIG@") return "x".repeat(10_000_000);
  if (value === "@DEEP@") { let v = []; for (let i = 0; i < 500; i++) v = [v]; return v; }
  if (Array.isArray(value)) return value.map(fill);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  return value;
};
"""

#: Send a comm message to ``comm`` and, with ``reply``, wait for the first comm message from it
#: that ``reply`` (a function of the message's data, as text) accepts: {ms, kernelMs, data} or
#: null. ``ms`` is until the page got the reply; ``kernelMs`` until the kernel sent it (its
#: header's date; one machine, one clock), which a page busy drawing does not lengthen.
COMM_JS = FILL_JS + """
async ({comm, data, reply, ms}) => {
  const filled = fill(data);
  const started = performance.now(), sent = Date.now();
  globalThis.__viewer.send("shell", "comm_msg", {comm_id: comm, data: filled});
  if (!reply) return {ms: performance.now() - started, data: null};
  const accept = new Function("data", `return (${reply})(data);`);
  const got = await globalThis.__viewer.wait(
    (m) => m.msg_type === "comm_msg" && m.content.comm_id === comm && m.received >= started && accept(m.content.data), ms);
  return got && {ms: got.received - started, kernelMs: Date.parse(got.header.date) - sent, data: got.content.data};
}
"""

#: A shell request and its reply (the kernel's main thread answers): {ms, kernelMs, content} or null.
SHELL_JS = """
async ({msgType, content, ms}) => {
  const started = performance.now(), sent = Date.now();
  const id = globalThis.__viewer.send("shell", msgType, content);
  const got = await globalThis.__viewer.wait((m) => m.parent_header && m.parent_header.msg_id === id
                                             && m.msg_type.endsWith("_reply"), ms);
  return got && {ms: got.received - started, kernelMs: Date.parse(got.header.date) - sent, content: got.content};
}
"""


class Viewer:
    """The viewer's connection to the kernel of ``page`` (a Voilà page), from the page itself."""

    def __init__(self, page, timeout_ms: int) -> None:
        self.page = page
        self.timeout_ms = timeout_ms
        config = json.loads(page.locator("#jupyter-config-data").text_content())
        base = config.get("baseUrl", "/")
        path = f"{base}api/kernels/{config['kernelId']}/channels?session_id=viewer-{time.time_ns()}"
        page.evaluate(CONNECT_JS, {"path": path, "ms": timeout_ms})

    def shell(self, msg_type: str, content: dict[str, Any]) -> dict | None:
        """A shell request's reply ({ms, content}), or None when none came in time."""
        return self.page.evaluate(SHELL_JS, {"msgType": msg_type, "content": content, "ms": self.timeout_ms})

    def comm(self, comm: str, data: Any, reply: str | None = None) -> dict | None:
        """Send ``data`` on ``comm``; with ``reply`` (JS: data => bool), its reply ({ms, data})
        or None when none came in time."""
        return self.page.evaluate(COMM_JS, {"comm": comm, "data": data, "reply": reply, "ms": self.timeout_ms})

    def recent(self, n: int = 8) -> list:
        """The last ``n`` messages received, in short (for failure messages)."""
        return self.page.evaluate("""(n) => globalThis.__viewer.received.slice(-n).map((m) => m.undecoded ? m :
            [m.msg_type, m.content && m.content.comm_id, m.content && m.content.data && m.content.data.method,
             m.content && m.content.data && m.content.data.content && [m.content.data.content.type,
                                                                       m.content.data.content.id]])""", n)

    def widget_states(self) -> dict[str, dict]:
        """The state of every widget of the kernel, by comm id (comm_info, then request_state)."""
        info = self.shell("comm_info_request", {"target_name": "jupyter.widget"})
        assert info is not None, "the kernel did not answer comm_info_request"
        states = {}
        for comm_id in info["content"]["comms"]:
            got = self.comm(comm_id, {"method": "request_state"}, "(d) => d.method === 'update'")
            assert got is not None, f"widget {comm_id} did not send its state"
            states[comm_id] = got["data"]["state"]
        return states


@contextmanager
def watchdog(pgid: int, seconds: float) -> Iterator[threading.Event]:
    """Kill the process group ``pgid`` (the test's browser) ``seconds`` from now unless the block
    ends first; the event yielded says whether it did. A page stuck in JavaScript then makes
    Playwright raise instead of waiting forever (``page.evaluate`` has no timeout of its own)."""
    fired = threading.Event()

    def fire() -> None:
        fired.set()
        with suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()


@contextmanager
def own_chromium(playwright, profile: Path, js_flags: str = "", timeout: float = 60.0) -> Iterator[tuple[Any, int]]:
    """Debian's Chromium started by this test in a process group of its own, reached over CDP:
    yields (Playwright browser, process group id) and stops the group afterwards."""
    port = free_port()
    argv = [CHROMIUM, "--headless", f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={profile}", *CHROMIUM_ARGS, *([f"--js-flags={js_flags}"] if js_flags else []),
            "about:blank"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"Chromium did not listen on port {port} within {timeout:.0f} s") from None
                time.sleep(0.2)
        browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}", timeout=timeout * 1000)
        try:
            yield browser, proc.pid
        finally:
            with suppress(Exception):  # already gone when the watchdog killed it
                browser.close()
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(5)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
