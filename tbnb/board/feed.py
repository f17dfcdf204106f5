"""A logdir's feed: its reader, the one thread that polls it, and what each Board on it has still
to hear. Every Board on the same logdir with the same reader flags is a member of one feed.

One reload per interval per reader, however many Boards show it: the feed polls at the shortest
``reload_interval`` of its polling members and tells each of them, on every poll, everything
the reader changed since that member last heard (``unseen``), so that every Board tells its page
about every change, whoever's reload found it. A member that does not poll (``reload_interval=0``)
keeps its news until its own reload (``board.refresh()``).

The feed holds its Boards weakly (a Board dropped without ``close()`` must not be kept alive by
the poll thread), and so does the thread hold the feed (poll.py). A poll leaves out a Board that
was collected, or whose comm its front end closed (marimo closes a re-run cell's comm without
telling the widget); with its last member gone, the feed stops polling and leaves the registry.

Locks: ``lock`` makes one reload at a time and guards the members' news. Boards hear their news
after it is released, so that a Board may close itself while hearing (the registry's lock is
always taken before a feed's, never inside it).
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from typing import Any, Callable

from ..reader.logdir.logdir import ReloadResult
from .poll import Poller
from .sources import MultiLogdir

log = logging.getLogger(__name__)

#: ``hear(board, news, when, message) -> bool``: a Board takes what a poll found (``message``: why
#: the poll failed, else None); False when it can no longer hear (closed), and leaves the feed.
Hear = Callable[[Any, ReloadResult, float, "str | None"], bool]


def merge_results(into: ReloadResult, more: ReloadResult) -> None:
    """Add what ``more`` changed to ``into`` (a Board's changes not yet handed to it)."""
    into.new_runs += [r for r in more.new_runs if r not in into.new_runs]
    into.removed_runs += [r for r in more.removed_runs if r not in into.removed_runs]
    into.purged_runs += [r for r in more.purged_runs if r not in into.purged_runs]
    for run, tags in more.new_tags.items():
        known = into.new_tags.setdefault(run, [])
        known += [t for t in tags if t not in known]
    for key, n in more.points.items():
        into.points[key] = into.points.get(key, 0) + n
    into.problems += more.problems


class Member:
    """One Board on a feed: its news not yet heard, and (once started) how to reach it."""

    def __init__(self, board: Any) -> None:
        self.unseen = ReloadResult()
        self.interval = 0.0  # seconds between its polls; 0: it does not poll
        self._board = weakref.ref(board)
        self._hear: Hear | None = None

    def listen(self, hear: Hear, interval: float) -> None:
        self._hear, self.interval = hear, float(interval)

    def board(self) -> Any:
        """The Board, or None when it was collected."""
        return self._board()

    def tell(self, news: ReloadResult, when: float, message: str | None) -> bool:
        """Hand ``news`` to the Board; False when it is gone."""
        board = self.board()
        if board is None or self._hear is None:
            return False
        return self._hear(board, news, when, message)


class Feed:
    """A reader, its polling and the news of the Boards reading it."""

    def __init__(self, key: str, reader: MultiLogdir) -> None:
        self.key = key
        self.reader = reader
        self.lock = threading.RLock()
        self.members: list[Member] = []
        self.loaded = False
        #: Runs whose files vanished, until they come back (every member's status says so).
        self.removed: list[str] = []
        self._known: set[str] = set()  # runs announced so far
        self._poller: Poller[Feed] | None = None

    # -- members -----------------------------------------------------------------------------

    def attach(self, member: Member) -> None:
        """A new Board: if the reader has read already, everything it holds is news to it."""
        with self.lock:
            if self.loaded:
                member.unseen.new_runs = self.reader.runs()
                member.unseen.new_tags = {run: list(self.reader.tags(run)) for run in member.unseen.new_runs}
            self.members.append(member)

    def detach(self, member: Member) -> None:
        """A Board leaves (``leave``: the feed stops polling, and leaves the registry, with its last)."""
        with self.lock:
            if member in self.members:
                self.members.remove(member)

    def listen(self, member: Member, hear: Hear, interval: float) -> None:
        """The member's Board has read: it hears every poll from now on (if ``interval`` > 0)."""
        member.listen(hear, interval)
        self.adjust_polling()

    @property
    def interval(self) -> float:
        """Seconds between polls: the shortest of the polling members' (0: nobody polls)."""
        with self.lock:
            wanted = [m.interval for m in self.members if m.interval > 0 and m.board() is not None]
        return min(wanted, default=0.0)

    def polling_for(self, member: Member) -> bool:
        """Whether the member's Board hears polls now."""
        poller = self._poller
        return member.interval > 0 and member in self.members and poller is not None and poller.alive

    @property
    def poll_thread(self) -> str | None:
        """The poll thread's name (``tbnb-poll-N``) while it runs, for tests and debugging."""
        poller = self._poller
        return poller.thread_name if poller is not None and poller.alive else None

    def adjust_polling(self) -> None:
        """One thread at the wanted interval: started, restarted at a new interval, or stopped.
        Called with no lock held: stopping a thread waits for its poll in progress to end."""
        with self.lock:
            interval = self.interval
            old = self._poller
            if old is not None and old.alive and old.interval == interval:
                return
            self._poller = None
            if interval > 0:
                self._poller = Poller(self, Feed.poll, interval)
                self._poller.start()
        if old is not None:
            old.stop()

    # -- reading -----------------------------------------------------------------------------

    def reload(self, member: Member, first_bytes: int | None = None) -> ReloadResult:
        """Reload for one member (its first read, ``refresh()``): its news, the others' kept for them."""
        with self.lock:
            fresh = self._reload(first_bytes)
            for other in self.members:
                if other is not member:
                    merge_results(other.unseen, fresh)
            mine, member.unseen = member.unseen, ReloadResult()
            merge_results(mine, fresh)
            return mine

    def take(self, member: Member) -> ReloadResult:
        """The member's news so far, handed over (after its own reload failed)."""
        with self.lock:
            mine, member.unseen = member.unseen, ReloadResult()
            return mine

    def _reload(self, first_bytes: int | None) -> ReloadResult:
        """One reload of the reader; on a failure (raised again), what it may have changed already
        is kept for every member (``_missed``)."""
        try:
            fresh = self.reader.reload(first_bytes)
        except BaseException:
            missed = self._missed()
            for member in self.members:
                merge_results(member.unseen, missed)
            raise
        self.loaded = True
        self._known.update(fresh.new_runs)
        self._known.difference_update(fresh.removed_runs)
        back = set(fresh.new_runs)
        self.removed = [r for r in self.removed if r not in back]
        self.removed += [r for r in fresh.removed_runs if r not in self.removed]
        return fresh

    def _missed(self) -> ReloadResult:
        """What a reload that failed part way may have changed: the runs it found are new, and
        every series may have new points (the pages ask again). The reader's state is whatever
        it reached; its next reload goes on from there."""
        try:
            runs = self.reader.runs()
            tags = {run: list(self.reader.tags(run)) for run in runs}
        except Exception:  # noqa: BLE001 - the reader is in no state to list: nothing to add
            return ReloadResult()
        new = [r for r in runs if r not in self._known]
        self._known.update(new)
        return ReloadResult(new_runs=new, new_tags={r: tags[r] for r in new},
                            points={(run, tag): 0 for run in runs for tag in tags[run]})

    def poll(self) -> None:
        """One poll (the thread's tick): one reload, then every polling Board hears its news.

        A failing reload (an OSError on a network file system...) is a status message for every
        Board, and the next poll tries again: a poll must never kill the thread.
        """
        message = None
        with self.lock:
            try:
                fresh = self._reload(None)
            except Exception as err:  # noqa: BLE001 - retried next poll
                log.warning("tbnb: reload of %s failed: %s", self.reader.describe(), err)
                message, fresh = f"reload failed: {err}", ReloadResult()  # _reload kept what it missed
            self.members = [m for m in self.members if m.board() is not None]  # collected Boards leave
            news = []
            for member in self.members:
                merge_results(member.unseen, fresh)
                if member.interval > 0:
                    mine, member.unseen = member.unseen, ReloadResult()
                    news.append((member, mine))
        now = time.time()
        gone = []
        for member, mine in news:
            try:
                if not member.tell(mine, now, message):
                    gone.append(member)
            except Exception:  # one Board's failure must not keep the news from the others
                log.exception("tbnb: a Board could not take a poll's news")
        with self.lock:
            self.members = [m for m in self.members if m not in gone]
        _forget_if_empty(self)
        self.adjust_polling()


# -- the registry: one feed per reader key ----------------------------------------------------

_registry: dict[str, Feed] = {}
_registry_lock = threading.RLock()


def feed_for(key: str, open_reader: Callable[[], MultiLogdir], member: Member) -> Feed:
    """The feed of ``key`` (made with ``open_reader()`` if none), ``member`` attached to it."""
    with _registry_lock:
        feed = _registry.get(key)
        if feed is None:
            feed = _registry[key] = Feed(key, open_reader())
        feed.attach(member)
    return feed


def leave(feed: Feed, member: Member) -> None:
    """``member`` leaves ``feed``; the feed leaves the registry with its last member."""
    feed.detach(member)
    _forget_if_empty(feed)
    # With no lock held: stopping the thread waits for a poll in progress, which may take them.
    feed.adjust_polling()


def _forget_if_empty(feed: Feed) -> None:
    with _registry_lock:
        if not feed.members and _registry.get(feed.key) is feed:
            del _registry[feed.key]


def feeds() -> list[Feed]:
    """The feeds Boards hold now (for tests and diagnostics)."""
    with _registry_lock:
        return list(_registry.values())
