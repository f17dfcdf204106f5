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

On Linux, once a logdir has WATCH_MIN_DIRS directories on a local file system, the stats go
too: each directory is watched (``inotify``) before it is listed, so a directory with no event
queued holds what its listing found, and a file in it has the size it had. A poll then lists
again only the directories whose entries changed, and names the runs where anything happened
(``touched``): the reader stats only those runs' files. No periodic full walk is needed there:
an overflowed queue says so, and everything is listed again.

This is a fast path of ``discovery.find_run_files`` and gives exactly what it gives: wherever
it would need a decision of its own (a symlinked directory, which the general walk guards
against cycles for; a directory that cannot be stat-ed or listed, which the general walk reports
as a problem), it hands the whole walk over to the general one.
"""

from __future__ import annotations

import errno
import os
import time
from dataclasses import dataclass

from .discovery import find_run_files, run_name, sort_entries
from .inotify import Changes, DirectoryWatch, watchable
from .problems import Problem

#: Longer than the coarsest mtime granularity of a file system (FAT: 2 s; ext4, XFS, tmpfs: 1 ns).
RACY_NS = 2_000_000_000
#: Every this many polls, every directory is listed again whatever its mtime says.
FULL_WALK_EVERY = 20
#: Polls that start a watch and hand over to the general walk (a symlinked run, a directory
#: gone mid-walk) before the logdir is polled by stats alone.
MAX_FAILED_STARTS = 3
#: A logdir of this many directories is watched for changes where it can be (below it, a poll's
#: stats cost under a few milliseconds, and an inotify instance, of which a user has few, is kept).
WATCH_MIN_DIRS = 64


@dataclass
class _Listing:
    """What one listing of a directory found, and the identity it had just before."""

    key: tuple[int, int, int] | None  # st_dev, st_ino, st_mtime_ns (None: kept by a watch)
    trusted: bool  # listed more than RACY_NS after its mtime: an equal key proves equal entries
    subdirs: list[str]  # full paths, in name order
    run: str  # the run it is when it holds event files
    files: list[str]  # its event files' full paths, in name order


class _HandOver(Exception):
    """The general walk must answer this poll."""


class CachedDiscovery:
    """``find_run_files`` for one logdir, polled again and again (one per Logdir).

    ``watch_min_dirs``: the number of directories from which the logdir is watched (None: never).
    """

    def __init__(self, watch_min_dirs: int | None = WATCH_MIN_DIRS) -> None:
        self._listings: dict[str, _Listing] = {}
        self._polls = 0
        self._watch_min_dirs = watch_min_dirs
        self._watch: DirectoryWatch | None = None
        self._watchable: bool | None = None  # whether inotify sees all of the logdir (asked once)
        self._failed_starts = 0  # polls that started a watch and were handed to the general walk
        self._last: dict[str, list[str]] | None = None  # the last watched poll's answer
        #: After a poll: the runs whose files may have changed since the poll before (their
        #: directory had an event, or was listed afresh); None when any run may have.
        self.touched: set[str] | None = None

    @property
    def watching(self) -> bool:
        """Whether polls are answered from change notification."""
        return self._watch is not None

    def find_run_files(self, logdir: str | os.PathLike[str]) -> tuple[dict[str, list[str]], list[Problem]]:
        """What ``discovery.find_run_files(logdir)`` gives now. The lists of files are the ones kept
        for the next poll (an idle poll of 10,000 runs would otherwise copy 10,000 lists, which
        live long enough to make the interpreter's full garbage collections frequent): callers
        read them, never change them."""
        root = os.fspath(logdir)
        self.touched = None
        if self._watch is not None:
            return self._watched_poll(root, logdir)
        starting = self._start_watch(root)
        self._polls += 1
        if not starting and self._polls % FULL_WALK_EVERY == 0:
            self._listings.clear()
        try:
            runs, self._listings, _ = self._walk(root, self._watch)
        except _HandOver:
            self._listings.clear()
            if starting:  # (a logdir with a symlinked run hands over every poll: not a watch each)
                self._drop_watch()
                self._failed_starts += 1
                if self._failed_starts >= MAX_FAILED_STARTS:
                    self._watchable = False
            return find_run_files(logdir)
        except OSError:  # no watch could be added (none left): stats from now on
            self._give_up_watching()
            return find_run_files(logdir)
        answer = {name: runs[name] for name in sorted(runs)}
        if self._watch is not None:
            if len(self._listings) >= (self._watch_min_dirs or 0):
                self._last = answer
            else:  # a small logdir: its stats cost less than an inotify instance kept (its
                self._drop_watch()  # listings, keyed by stats made after their watches, stand)
        return answer, []

    def _start_watch(self, root: str) -> bool:
        """Watch the logdir from now on, where inotify sees all of it, on its first poll (kept if
        it has WATCH_MIN_DIRS directories: the watches are added in place of stats, ~free) or the
        poll after it grew to that many."""
        if self._watch_min_dirs is None or (self._listings and len(self._listings) < self._watch_min_dirs):
            return False
        if self._watchable is None:
            self._watchable = watchable(root)
        if not self._watchable:
            return False
        try:
            self._watch = DirectoryWatch()
        except OSError:
            self._watchable = False  # (no inotify here, or no instance left: stats it is)
            return False
        return True

    def _drop_watch(self) -> None:
        """Back to stats (a watch may be made again, as on a first poll)."""
        if self._watch is not None:
            self._watch.close_soon()
        self._watch = None
        self._last = None

    def _give_up_watching(self) -> None:
        """Back to stats for good (the watch could not cover every directory)."""
        self._drop_watch()
        self._watchable = False
        self._listings.clear()

    def _watched_poll(self, root: str, logdir: str | os.PathLike[str]) -> tuple[dict[str, list[str]], list[Problem]]:
        watch = self._watch
        assert watch is not None
        try:
            changes = watch.drain()
        except OSError:
            changes = None
        if changes is not None and not changes.touched and self._last is not None:
            self.touched = set()
            return self._last, []
        self._last = None
        if changes is None:
            self._listings.clear()
        try:
            runs, listings, touched = self._walk(root, watch, changes or Changes())
        except _HandOver:  # (a symlinked or unreadable directory: the general walk answers, and
            # the next polls start a watch again, MAX_FAILED_STARTS times at most)
            self._drop_watch()
            self._listings.clear()
            return find_run_files(logdir)
        except OSError:
            self._give_up_watching()
            return find_run_files(logdir)
        self._listings = listings
        answer = {name: runs[name] for name in sorted(runs)}
        self.touched = None if changes is None else touched
        if len(listings) < (self._watch_min_dirs or 0):
            self._drop_watch()  # shrunk: its stats cost less than an inotify instance kept
            self._listings.clear()  # (listed under the watch, without stats)
        else:
            watch.keep(listings)
            self._last = answer
        return answer, []

    def _walk(self, root: str, watch: DirectoryWatch | None = None,
              changes: Changes | None = None) -> tuple[dict[str, list[str]], dict[str, _Listing], set[str]]:
        """The walk, depth first in name order: the runs, the listings, and the runs whose
        directory had an event or was listed afresh (with ``changes`` only).

        By stats (no ``changes``): a directory is listed again unless a stat finds it as a
        trusted listing left it; with ``watch`` (the poll that starts it), it is watched first.
        With ``changes`` (a watched poll): it is listed again (after its watch is added) when it
        is new, lost its watch, or its entries changed; otherwise its listing stands, with no
        system call."""
        old = self._listings
        new: dict[str, _Listing] = {}
        runs: dict[str, list[str]] = {}
        touched: set[str] = set()
        prefix = len(root.rstrip(os.sep)) + 1
        # (a new directory's listing is keyed by a stat only while the logdir may yet prove too
        # small to keep its watch; past that, the watch keeps it)
        keyed = self._watch_min_dirs or 0
        pending = [root]
        while pending:
            directory = pending.pop()
            listing = old.get(directory)
            if changes is not None:
                assert watch is not None
                if listing is None or directory in changes.listed or directory not in watch:
                    _add(watch, directory)
                    listing = _list(directory, None, prefix)  # (kept by the watch: no stat needed)
                    if listing.files:
                        touched.add(listing.run)
                elif listing.files and directory in changes.touched:
                    touched.add(listing.run)
            else:
                key: tuple[int, int, int] | None = None
                if watch is not None:
                    _add(watch, directory)
                if watch is None or listing is not None or len(new) < keyed:
                    try:
                        st = os.stat(directory)
                    except OSError:
                        raise _HandOver from None
                    key = (st.st_dev, st.st_ino, st.st_mtime_ns)
                if listing is None or not listing.trusted or listing.key != key:
                    listing = _list(directory, key, prefix)
            new[directory] = listing
            if listing.files:
                runs[listing.run] = listing.files
            pending.extend(reversed(listing.subdirs))  # depth first, in name order
        return runs, new, touched


def _add(watch: DirectoryWatch, directory: str) -> None:
    """Watch ``directory`` (before it is listed: a later change is then an event). OSError, other
    than for a directory gone, replaced or unreadable (the general walk reports those), when no
    watch can be added."""
    try:
        watch.add(directory)
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP):
            raise _HandOver from None
        raise


def _list(directory: str, key: tuple[int, int, int] | None, prefix: int) -> _Listing:
    """A fresh listing of ``directory``, whose identity just before was ``key`` (None: not known,
    a listing kept by a watch; without the watch it is listed again)."""
    listed_at = time.time_ns()
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        raise _HandOver from None
    found = sort_entries(entries)
    if found.linked or found.unsure:
        raise _HandOver
    base = directory if directory.endswith(os.sep) else directory + os.sep  # (os.path.join's result
    # for a name with no separator, without its checks: a sweep's first poll joins 20,000 of them)
    return _Listing(key=key, trusted=key is not None and key[2] < listed_at - RACY_NS,
                    subdirs=[base + name for name in found.subdirs],
                    run=run_name(directory, prefix),
                    files=[base + name for name in found.files])
