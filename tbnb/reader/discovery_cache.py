"""Run discovery that lists again only the directories whose entries changed since the last poll.

A directory's modification time changes whenever an entry is added to it, removed or renamed,
so a directory whose (device, inode, mtime) is what it was when it was listed holds the same
entries: a stat replaces the listing. A sweep of 10,000 runs polled every few seconds then pays
a stat per directory instead of a listing and the Python work of sorting its entries out.

That holds only for a listing *trusted* to be complete: one made while the directory's mtime was
older than the listing by more than any file system's timestamp granularity (RACY_NS, FAT's two
seconds), so that a change after the listing must give a different mtime ("racily clean", as
git calls it). A directory changed more recently is listed again on every poll until it has been
quiet that long. A network file system whose server clock runs behind ours could still hide a
change inside one timestamp; every FULL_WALK_EVERY-th poll therefore lists everything again.

This is a fast path of ``discovery.find_run_files`` and gives exactly what it gives: wherever
it would need a decision of its own (a symlinked directory, which the general walk guards
against cycles for; a directory that cannot be stat-ed or listed, which the general walk reports
as a problem), it hands the whole walk over to the general one.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from .discovery import find_run_files, run_name, sort_entries
from .problems import Problem

#: Longer than the coarsest mtime granularity of a file system (FAT: 2 s; ext4, XFS, tmpfs: 1 ns).
RACY_NS = 2_000_000_000
#: Every this many polls, every directory is listed again whatever its mtime says.
FULL_WALK_EVERY = 20


@dataclass
class _Listing:
    """What one listing of a directory found, and the identity it had just before."""

    key: tuple[int, int, int]  # st_dev, st_ino, st_mtime_ns
    trusted: bool  # listed more than RACY_NS after its mtime: an equal key proves equal entries
    subdirs: list[str]  # full paths, in name order
    run: str  # the run it is when it holds event files
    files: list[str]  # its event files' full paths, in name order


class _HandOver(Exception):
    """The general walk must answer this poll."""


class CachedDiscovery:
    """``find_run_files`` for one logdir, polled again and again (one per Logdir)."""

    def __init__(self) -> None:
        self._listings: dict[str, _Listing] = {}
        self._polls = 0

    def find_run_files(self, logdir: str | os.PathLike[str]) -> tuple[dict[str, list[str]], list[Problem]]:
        """What ``discovery.find_run_files(logdir)`` gives now. The lists of files are the ones kept
        for the next poll (an idle poll of 10,000 runs would otherwise copy 10,000 lists, which
        live long enough to make the interpreter's full garbage collections frequent): callers
        read them, never change them."""
        self._polls += 1
        if self._polls % FULL_WALK_EVERY == 0:
            self._listings.clear()
        root = os.fspath(logdir)
        try:
            runs, listings = self._walk(root)
        except _HandOver:
            self._listings.clear()
            return find_run_files(logdir)
        self._listings = listings
        return {name: runs[name] for name in sorted(runs)}, []

    def _walk(self, root: str) -> tuple[dict[str, list[str]], dict[str, _Listing]]:
        old = self._listings
        new: dict[str, _Listing] = {}
        runs: dict[str, list[str]] = {}
        prefix = len(root.rstrip(os.sep)) + 1
        pending = [root]
        while pending:
            directory = pending.pop()
            try:
                st = os.stat(directory)
            except OSError:
                raise _HandOver from None
            key = (st.st_dev, st.st_ino, st.st_mtime_ns)
            listing = old.get(directory)
            if listing is None or not listing.trusted or listing.key != key:
                listing = _list(directory, key, prefix)
            new[directory] = listing
            if listing.files:
                runs[listing.run] = listing.files
            pending.extend(reversed(listing.subdirs))  # depth first, in name order
        return runs, new


def _list(directory: str, key: tuple[int, int, int], prefix: int) -> _Listing:
    """A fresh listing of ``directory``, whose identity just before was ``key``."""
    listed_at = time.time_ns()
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        raise _HandOver from None
    found = sort_entries(entries)
    if found.linked or found.unsure:
        raise _HandOver
    return _Listing(key=key, trusted=key[2] < listed_at - RACY_NS,
                    subdirs=[os.path.join(directory, name) for name in found.subdirs],
                    run=run_name(directory, prefix),
                    files=[os.path.join(directory, name) for name in found.files])
