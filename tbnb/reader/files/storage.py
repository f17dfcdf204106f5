"""Where a logdir's event files live: a local directory, or any fsspec URL (``s3://``, ``gs://``,
``memory://``...), behind one small protocol that the files layer (``discovery``, ``run``) uses.

A local logdir is read with plain file calls (``os.walk``, ``os.stat``, ``open``) and never
imports fsspec: it is the common case and the fast one. A URL is handed to ``remote`` (fsspec),
imported only then. Both give the same things: one listing per reload (runs and their event
files, in name order), each file's size as that listing saw it, and reads of byte ranges.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, BinaryIO, Protocol, Union

from .discovery_cache import CachedDiscovery
from .problems import Problem

#: An event file's path: a ``Path`` for a local logdir, the filesystem's path string otherwise.
FilePath = Union[Path, str]

class StorageError(ValueError):
    """A logdir that cannot be read at all: a missing package, an unknown protocol, an endpoint
    that does not answer, a missing bucket, denied access. The message is one line that says
    what to install or check."""


class Storage(Protocol):
    """What the files layer needs from wherever event files live."""

    #: True for fsspec URLs (the Board and ``projector`` read local files only).
    remote: bool
    #: The logdir as shown in messages and names: no credentials.
    shown: str

    def exists(self) -> bool:
        """Whether the logdir is there (a directory; for a URL, anything under the prefix)."""

    def check(self) -> None:
        """Raise StorageError (or LogdirError's message) when the logdir cannot be read at all."""

    def list_runs(self) -> tuple[dict[str, list[FilePath]], list[Problem]] | None:
        """One listing: ``{run name: [event files in name order]}`` and problems; None when the
        listing itself failed (reported in the problems of the next call's caller)."""

    def touched_runs(self) -> set[str] | None:
        """The runs whose files may have changed between the last two listings; None when that
        is not known (every run's files are then checked)."""

    def size(self, path: FilePath) -> int:
        """The file's size (for a URL: as the last listing saw it); OSError if it is gone."""

    def open(self, path: FilePath) -> AbstractContextManager[BinaryIO]:
        """A readable, seekable file for one reload's reads (closed at its end)."""

    def read_range(self, path: FilePath, start: int, length: int) -> bytes:
        """``length`` bytes of a file from ``start`` (blobs read when shown)."""

    def directory(self, run: str) -> FilePath:
        """Where a run's event files are (``"."``: the logdir itself)."""

    def for_files(self, paths: list[FilePath]) -> Storage:
        """This storage as a task reading only ``paths`` needs it (small to send elsewhere)."""


class LocalStorage:
    """A directory on this machine: plain file reads, no fsspec."""

    remote = False

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self.shown = str(self.path)
        self._discovery = CachedDiscovery()  # each poll lists again only the directories that changed

    def exists(self) -> bool:
        return self.path.is_dir()

    def check(self) -> None:
        if not self.path.exists():
            raise StorageError(f"logdir {self.shown!r} does not exist")
        if not self.path.is_dir():
            raise StorageError(f"logdir {self.shown!r} is not a directory (pass the folder that holds the runs)")

    def list_runs(self) -> tuple[dict[str, list[FilePath]], list[Problem]]:
        if not self.path.is_dir():
            return {}, []
        runs, problems = self._discovery.find_run_files(self.path)
        return dict(runs), problems  # (a dict of str lists is a dict of FilePath lists)

    def touched_runs(self) -> set[str] | None:
        return self._discovery.touched  # (known where the logdir is watched for changes)

    def size(self, path: FilePath) -> int:
        return os.stat(path).st_size

    def open(self, path: FilePath) -> AbstractContextManager[BinaryIO]:
        return open(path, "rb")

    def read_range(self, path: FilePath, start: int, length: int) -> bytes:
        with open(path, "rb") as fh:
            fh.seek(start)
            return fh.read(length)

    def directory(self, run: str) -> FilePath:
        return self.path if run == "." else self.path / run

    def for_files(self, paths: list[FilePath]) -> LocalStorage:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (LocalStorage, (self.path,))
