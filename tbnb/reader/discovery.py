"""Run discovery: which directories of a logdir are runs, and which files are their event files.

A run is a directory that directly holds a file whose name contains ``tfevents`` (TensorBoard's
rule); its name is its path relative to the logdir, with ``/`` separators, and ``"."`` for the
logdir itself. Event files are read in name order, which is creation order for TF's writers.
"""

from __future__ import annotations

import os
from pathlib import Path

from .problems import Problem


def is_event_file(name: str) -> bool:
    """TensorBoard's test: the basename contains ``tfevents`` (``.profile-empty`` markers excluded)."""
    return "tfevents" in name and not name.endswith(".profile-empty")


def run_name(logdir: Path, directory: Path) -> str:
    """Name of the run in ``directory``: relative to ``logdir``, ``/``-separated, ``.`` for the root."""
    rel = os.path.relpath(directory, logdir)
    return "." if rel == "." else rel.replace(os.sep, "/")


def find_runs(logdir: str | os.PathLike[str]) -> tuple[dict[str, list[Path]], list[Problem]]:
    """Walk ``logdir`` and return ``{run name: [event file paths in name order]}`` plus problems.

    Unreadable directories are reported, not fatal; symlinked directories are followed once
    (a link cycle is not walked twice).
    """
    root = Path(logdir)
    runs: dict[str, list[Path]] = {}
    problems: list[Problem] = []
    seen: set[tuple[int, int]] = set()

    def on_error(err: OSError) -> None:
        problems.append(Problem(str(err.filename or root), 0, f"cannot read directory: {err.strerror or err}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            dirnames[:] = []
            continue
        seen.add(key)
        dirnames.sort()
        files = sorted(f for f in filenames if is_event_file(f))
        if files:
            directory = Path(dirpath)
            runs[run_name(root, directory)] = [directory / f for f in files]
    return dict(sorted(runs.items())), problems
