"""A real IPython kernel holding a polling ``tbnb.Board``, queried through execute requests.

No front end: the Board's widget messages go nowhere, which is what a notebook whose page is
closed looks like. The kernel's memory, threads and file descriptors are read from ``/proc``
by this process, so that probing does not disturb what it measures.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[2]

#: Without a built JS bundle a Board refuses to start; the soak needs no page, so a stand-in
#: bundle takes its place then (as the board tests do).
STAND_IN = """
from pathlib import Path as _Path
from tbnb.board import assets as _assets
if not _assets.BUNDLE.exists():
    _fake = _Path({path!r})
    _fake.write_text("export default {{ render({{ el }}) {{ el.textContent = 'soak'; }} }};")
    _assets.BUNDLE, _assets.STYLES = _fake, _fake.with_suffix(".css")
"""

DUMP = """
import base64 as _b64, json as _json, numpy as _np
_src = board.logdir
_out = {"status": dict(board.status), "problems": [str(p) for p in _src.problems], "series": {}}
for _run in _src.runs():
    for _tag, _plugin in _src.tags(_run).items():
        if _plugin == "scalars":
            _s = _src.scalars(_run, _tag)
            _out["series"][_run + "\\t" + _tag] = [
                _b64.b64encode(_np.asarray(_s.step, dtype="<i8").tobytes()).decode(),
                _b64.b64encode(_np.asarray(_s.value, dtype="<f8").tobytes()).decode()]
print(_json.dumps(_out))
"""


@dataclass
class Probe:
    rss: int
    threads: int
    fds: int


class KernelBoard:
    """Start a kernel, make a Board polling ``logdir`` every second in it, probe it, stop it."""

    def __init__(self, logdir: Path, reload_interval: float = 1.0) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(env=env, cwd=str(ROOT))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)
        self.pid = int(self.run("import os; print(os.getpid())"))
        where = self.run("import tbnb; print(tbnb.__file__)")
        if not where.startswith(str(ROOT)):
            raise RuntimeError(f"the kernel imports another tbnb: {where}")
        self.run(STAND_IN.format(path=str(logdir.parent / "stand-in-board.js")))
        self.run(f"board = tbnb.Board({str(logdir)!r}, reload_interval={reload_interval!r})")

    def run(self, code: str, timeout: float = 300) -> str:
        """Execute ``code``; return what it printed; raise with the traceback on error."""
        chunks: list[str] = []
        errors: list[str] = []

        def hook(msg: dict[str, Any]) -> None:
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream" and content.get("name") == "stdout":
                chunks.append(content["text"])
            elif kind == "error":
                errors.append("\n".join(content.get("traceback", [])) or content.get("evalue", ""))

        reply = self.kc.execute_interactive(code, output_hook=hook, timeout=timeout, store_history=False)
        if errors or reply["content"]["status"] != "ok":
            raise RuntimeError(f"kernel error running {code[:80]!r}: {''.join(errors)[-2000:]}")
        return "".join(chunks).strip()

    def probe(self) -> Probe:
        status = Path(f"/proc/{self.pid}/status").read_text().splitlines()
        fields = {line.split(":")[0]: line.split()[1] for line in status if ":" in line and len(line.split()) > 1}
        fds = len(os.listdir(f"/proc/{self.pid}/fd"))
        return Probe(int(fields["VmRSS"]) * 1024, int(fields["Threads"]), fds)

    def fd_targets(self) -> Counter:
        """What the kernel's open file descriptors point to (to name a leak, not just count it)."""
        out: Counter = Counter()
        for fd in os.listdir(f"/proc/{self.pid}/fd"):
            try:
                out[os.readlink(f"/proc/{self.pid}/fd/{fd}")] += 1
            except OSError:
                continue
        return out

    def dump(self) -> dict[str, Any]:
        return json.loads(self.run(DUMP))

    def close(self) -> None:
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=True)
