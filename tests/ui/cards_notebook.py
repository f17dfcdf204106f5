"""The notebook of cards the browser tests render: a logdir with every kind of card (and hostile
names), a notebook showing one card of each kind, executed and converted with the network cut off.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .harness import REPO_ROOT

#: A run name and a text that would run script if any of it were read as markup.
HOSTILE_RUN = '<img src=x onerror="window.__pwned=1">'
HOSTILE_TEXT = "<script>window.__pwned=1</script> & <b>not bold</b>"
#: (cell source, kind, tag): one card of each kind; the first chart carries plotly.js.
CARDS = (
    ('tbnb.card(LOGDIR, "loss/train", smoothing=0.9)', "scalars", "loss/train"),
    ('tbnb.card(LOGDIR, "weights/dense_1")', "histograms", "weights/dense_1"),
    ('tbnb.card(LOGDIR, "weights/dense_1", mode="overlay")', "histograms", "weights/dense_1"),
    ('tbnb.card(LOGDIR, "weights/dense_1", "distributions")', "distributions", "weights/dense_1"),
    ('tbnb.card(LOGDIR, "inputs/sample")', "images", "inputs/sample"),
    ('tbnb.card(LOGDIR, "audio/tone")', "audio", "audio/tone"),
    ('tbnb.card(LOGDIR, "hostile/text")', "text", "hostile/text"),
)


@dataclass
class Executed:
    """The logdir, the executed notebook and its HTML conversion."""

    logdir: Path
    notebook: Path
    html: Path


def write_logdir(root: Path) -> Path:
    """tbnb's demo logdir plus a run with a hostile name holding loss/train and a hostile text."""
    from tbnb.testing import EventWriter, write_demo_logdir

    logdir = write_demo_logdir(root / "logs")
    with EventWriter(logdir / HOSTILE_RUN) as w:
        for step, value in enumerate(np.linspace(2.0, 0.5, 40).tolist()):
            w.add_scalar("loss/train", value, step * 10, wall_time=1_700_000_000.0 + step)
        w.add_text("hostile/text", HOSTILE_TEXT, 3, wall_time=1_700_000_100.0)
    return logdir


def write_notebook(path: Path, logdir: Path) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells.append(nbformat.v4.new_code_cell(f"import tbnb\nLOGDIR = {str(logdir)!r}"))
    nb.cells += [nbformat.v4.new_code_cell(source) for source, _, _ in CARDS]
    nbformat.write(nb, str(path))
    return path


def offline(cmd: list[str]) -> list[str]:
    """``cmd`` in a new network namespace with only loopback up (the kernel's ZMQ sockets use it):
    every other network request fails. Needs root (or user namespaces)."""
    script = 'ip link set lo up && exec "$@"'
    prefix = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]
    return [*prefix, "sh", "-c", script, "sh", *cmd]


def can_cut_network() -> str | None:
    """None if ``offline`` works here, else why not."""
    if not (shutil.which("unshare") and shutil.which("ip")):
        return "unshare or ip (util-linux, iproute2) is missing"
    done = subprocess.run(offline(["true"]), check=False, capture_output=True, text=True)
    return None if done.returncode == 0 else f"unshare -n failed: {done.stderr.strip()}"


def execute_and_convert(root: Path) -> Executed:
    """Write the logdir and notebook, execute it (nbclient, via nbconvert) and convert it to HTML,
    both with the network cut off."""
    logdir = write_logdir(root)
    source = write_notebook(root / "cards.ipynb", logdir)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO_ROOT), os.environ.get("PYTHONPATH"))))}
    jupyter = [sys.executable, "-m", "jupyter", "nbconvert"]
    for cmd in ([*jupyter, "--to", "notebook", "--execute", "--output", "cards-executed.ipynb", str(source)],
                [*jupyter, "--to", "html", str(root / "cards-executed.ipynb")]):
        done = subprocess.run(offline(cmd), check=False, capture_output=True, text=True, env=env, cwd=root,
                              timeout=600)
        assert done.returncode == 0, f"{cmd} failed:\n{done.stderr[-3000:]}"
    return Executed(logdir, root / "cards-executed.ipynb", root / "cards-executed.html")
