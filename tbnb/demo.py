"""``tbnb demo``: the project's main job — a board on an example logdir tbnb writes itself.

Without ``--lab`` it writes the example and prints what the reader makes of it (fast, no
browser). With ``--lab`` it also puts the quickstart notebook beside the example and opens it
in JupyterLab, where the Board shows every dashboard live.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

#: The quickstart notebook when running from a checkout of the repository.
REPO_QUICKSTART = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"


def ensure_logdir(logdir: Path, out: TextIO) -> None:
    """Write the example logdir unless it is already there."""
    from .writer import write_demo_logdir

    if not logdir.is_dir():
        write_demo_logdir(logdir)
        print(f"wrote an example logdir to {logdir}/", file=out)


def summarise(logdir: Path, out: TextIO) -> None:
    """Print runs, tags by plugin and point counts, and how long loading took."""
    from .reader.logdir.logdir import load

    started = time.perf_counter()
    lg = load(logdir)
    elapsed = time.perf_counter() - started
    for run in lg.runs():
        print(f"run {run}", file=out)
        for tag, plugin in lg.tags(run).items():
            if plugin == "scalars":
                print(f"  {plugin:<12} {tag}  ({len(lg.scalars(run, tag))} points)", file=out)
            else:
                print(f"  {plugin:<12} {tag}", file=out)
    print(f"loaded {len(lg.runs())} runs in {elapsed * 1000:.0f} ms; problems: {len(lg.problems)}", file=out)
    print(f"in a notebook: import tbnb; tbnb.show({str(logdir)!r})", file=out)


def quickstart_notebook() -> dict:
    """The quickstart notebook: the repository's, or a short one when tbnb was installed alone."""
    import nbformat

    if REPO_QUICKSTART.is_file():
        return nbformat.read(REPO_QUICKSTART, as_version=4)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# tbnb demo\nTensorBoard's dashboards in the output cell."),
        nbformat.v4.new_code_cell("%load_ext tbnb\n%tbnb --logdir demo-runs"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def prepare_lab(folder: Path, out: TextIO) -> Path:
    """Put the example logdir and the quickstart notebook in ``folder``; return the notebook."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    ensure_logdir(folder / "demo-runs", out)
    notebook = folder / "quickstart.ipynb"
    if not notebook.exists():
        nbformat.write(quickstart_notebook(), notebook)
    return notebook


def lab_command(notebook: Path) -> list[str]:
    """The command that opens ``notebook`` in JupyterLab (on loopback, as any local Lab)."""
    notebook = notebook.resolve()
    command = [sys.executable, "-m", "jupyter", "lab", str(notebook), f"--ServerApp.root_dir={notebook.parent}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers often run as root; Jupyter refuses it otherwise
    return command


def run(logdir: str, lab: str | None, out: TextIO,
        execute: Callable[[str, Sequence[str]], object] = os.execvp) -> int:
    """The ``tbnb demo`` command."""
    if lab is None:
        path = Path(logdir)
        ensure_logdir(path, out)
        summarise(path, out)
        return 0
    if shutil.which("jupyter") is None and not _has_module("jupyterlab"):
        print("tbnb demo: JupyterLab is not installed: pip install 'tbnb[demo]' (or jupyterlab)", file=sys.stderr)
        return 1
    notebook = prepare_lab(Path(lab), out)
    summarise(notebook.parent / "demo-runs", out)
    command = lab_command(notebook)
    print("starting:", " ".join(command), file=out)
    out.flush()
    execute(command[0], command)
    return 0


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
