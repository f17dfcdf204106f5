"""Run discovery: which directories of a logdir are runs, and which files are their event files.

A run is a directory that directly holds a file whose name contains ``tfevents`` (TensorBoard's
rule); its name is its path relative to the logdir, with ``/`` separators, and ``"."`` for the
logdir itself. Event files are read in name order, which is creation order for TF's writers.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .problems import Problem


def is_event_file(name: str) -> bool:
    """TensorBoard's test: the basename contains ``tfevents`` (``.profile-empty`` markers excluded)."""
    return "tfevents" in name and not name.endswith(".profile-empty")


@dataclass
class Entries:
    """One directory's listing as discovery reads it."""

    files: list[str]  # names of its event files, sorted
    subdirs: list[str]  # names of its subdirectories (symlinked ones too), sorted
    linked: bool  # one of the subdirectories is a symlink
    unsure: bool  # an entry whose kind could not be read was left out


def sort_entries(entries: Iterable[os.DirEntry[str]]) -> Entries:
    """A listing's event files and subdirectories (the one reading of both discovery walks)."""
    files: list[str] = []
    subdirs: list[str] = []
    linked = unsure = False
    for entry in entries:
        try:
            if entry.is_dir():
                linked = linked or entry.is_symlink()
                subdirs.append(entry.name)
                continue
        except OSError:
            unsure = True
            continue
        if is_event_file(entry.name):
            files.append(entry.name)
    files.sort()
    subdirs.sort()
    return Entries(files, subdirs, linked, unsure)


def run_name(directory: str, prefix: int) -> str:
    """The run ``directory`` is, under a logdir whose path and separator are ``prefix`` long."""
    rel = directory[prefix:] if len(directory) >= prefix else ""
    return rel.replace(os.sep, "/") if rel else "."


def find_runs(logdir: str | os.PathLike[str]) -> tuple[dict[str, list[Path]], list[Problem]]:
    """Walk ``logdir`` and return ``{run name: [event file paths in name order]}`` plus problems.

    Unreadable directories are reported, not fatal; symlinked directories are followed once
    (a link cycle is not walked twice).
    """
    runs, problems = find_run_files(logdir)
    return {name: [Path(f) for f in files] for name, files in runs.items()}, problems


class _LinkedDirectory(Exception):
    """A symlink to a directory was met: the walk that guards against link cycles must run."""


def find_run_files(logdir: str | os.PathLike[str]) -> tuple[dict[str, list[str]], list[Problem]]:
    """``find_runs`` with the paths as strings: what a reload walks each poll, so it makes no
    path objects (top-down, subdirectories in name order, as ``os.walk`` would).

    Only a symlink can make a directory appear twice (or a cycle), so the walk first goes without
    a ``stat`` per directory (a sweep of 10,000 runs polled every few seconds pays for each);
    when it meets a link to a directory, it starts again, noting each directory's identity.
    """
    try:
        return _walk(logdir, guard=False)
    except _LinkedDirectory:
        return _walk(logdir, guard=True)


def _walk(logdir: str | os.PathLike[str], guard: bool) -> tuple[dict[str, list[str]], list[Problem]]:
    root = os.fspath(logdir)
    runs: dict[str, list[str]] = {}
    problems: list[Problem] = []
    seen: set[tuple[int, int]] = set()
    prefix = len(root.rstrip(os.sep)) + 1

    def walk(directory: str) -> None:
        if guard:
            try:
                st = os.stat(directory)
            except OSError:
                return
            key = (st.st_dev, st.st_ino)
            if key in seen:
                return
            seen.add(key)
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError as err:
            if err.errno == errno.ENOENT and directory != root:
                return  # gone since its parent was listed (the guarded walk's stat said the same)
            problems.append(Problem(str(err.filename or directory), 0, f"cannot read directory: {err.strerror or err}"))
            return
        found = sort_entries(entries)
        if found.linked and not guard:
            raise _LinkedDirectory
        if found.files:
            runs[run_name(directory, prefix)] = [os.path.join(directory, f) for f in found.files]
        for name in found.subdirs:
            walk(os.path.join(directory, name))

    if not guard and not os.path.exists(root):
        return {}, problems  # as the guarded walk: a missing logdir has no runs and no problem
    walk(root)
    return dict(sorted(runs.items())), problems
