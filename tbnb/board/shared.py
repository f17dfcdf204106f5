"""One reader per logdir per kernel: Boards on the same logdir, with the same reader flags, share
it instead of each holding a copy of every series (a notebook often shows one logdir in several
cells). The reader, its polling and its news are the logdir's feed (feed.py), dropped when the
last Board using it closes or is collected.

Each Board reads through its own ``SharedSource``, a MultiLogdir over the feed's Logdir objects:
its membership of the feed, and its virtual scalar tags (``board.derived``: virtual_scalars.py),
listed, read and reported by it beside the shared reader's logged tags.

A Board's start-up is one path through its source: ``acquire`` (the feed of its logdir and
flags, joined), ``start`` (the first read, then the feed's polls), ``release`` (it leaves).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..reader.files.location import is_url
from ..reader.logdir.logdir import ReloadResult
from ..reader.runs.series import ScalarSeries
from ..reader.runs.size_guidance import parse_samples_per_plugin
from .feed import Feed, Hear, Member, feed_for, feeds, leave
from .first_read import first_read
from .sources import MultiLogdir
from .status import next_status
from .virtual_scalars import LoggedView, VirtualScalars

if TYPE_CHECKING:
    from tbnb.format.proto import summary_pb2

def reader_key(logdir: str | os.PathLike[str] | None, logdir_spec: str | None,
               samples_per_plugin: str | Mapping[str, Any] | None, purge_orphaned_data: bool,
               storage_options: Mapping[str, Any] | None) -> str:
    """What makes two Boards' readers the same: the logdir(s) and every reader flag."""
    flags = sorted(parse_samples_per_plugin(samples_per_plugin).items())
    return json.dumps([_where(logdir), logdir_spec, flags, bool(purge_orphaned_data), storage_options or {}],
                      sort_keys=True, default=repr)


def _where(logdir: str | os.PathLike[str] | None) -> str | None:
    """A logdir as a reader key names it: a URL as written, a path absolute."""
    if logdir is None:
        return None
    return str(logdir) if is_url(logdir) else os.path.abspath(os.path.expanduser(logdir))


class SharedSource(MultiLogdir):
    """One Board's view of a shared reader: the reader's read API, its own news and virtual tags."""

    def __init__(self, feed: Feed, member: Member) -> None:
        super().__init__(feed.reader.entries)
        self.feed: Feed | None = feed
        self.member = member
        #: What the source read, once its Board closed (and it let go of the reader).
        self.closed_as: str | None = None
        #: This Board's virtual scalar tags (its providers, their cached series).
        self.virtual = VirtualScalars(LoggedView(self, MultiLogdir))

    @property
    def unseen(self) -> ReloadResult:
        """Changes other Boards' reloads made since this Board last heard."""
        return self.member.unseen

    def describe(self) -> str:
        return self.closed_as or super().describe()

    def reload(self, first_bytes: int | None = None) -> ReloadResult:
        feed = self.feed
        if feed is None:
            raise RuntimeError("this Board's reader was released (the Board is closed)")
        return self.heard(feed.reload(self.member, first_bytes))

    def take_unseen(self) -> ReloadResult:
        """What this Board has still to hear (its own reload failed: what the reader reached)."""
        return self.heard(self.feed.take(self.member)) if self.feed is not None else ReloadResult()

    def heard(self, news: ReloadResult) -> ReloadResult:
        """``news`` of the reader, with what it changed of this Board's virtual tags added."""
        self.virtual.report(news)
        return news

    def start(self, hear: Hear, interval: float,
              on_preview: Callable[[ReloadResult], None] | None = None) -> ReloadResult:
        """The Board's first read (first_read.py), then the feed's polls every ``interval``
        seconds (0: none); returns what the first read found for the Board to take in."""
        first = first_read(self, on_preview)
        if self.feed is not None:
            self.feed.listen(self.member, hear, interval)
        return first

    @property
    def polling(self) -> bool:
        """Whether the Board hears the feed's polls."""
        return self.feed is not None and self.feed.polling_for(self.member)

    def status(self, old: dict[str, Any], changed_at: float | None, message: str | None = None, *,
               polling: bool | None = None) -> dict[str, Any] | None:
        """The Board's next ``status`` (status.py): its counts, the feed's polling (unless given)
        and the runs whose files vanished."""
        removed = list(self.feed.removed) if self.feed is not None else []
        return next_status(self, old, polling=self.polling if polling is None else polling, removed=removed,
                           changed_at=changed_at, message=message)

    # -- logged tags, then virtual ones (never shadowing a logged tag) ----------------------------

    def tags(self, run: str) -> dict[str, str]:
        logged = super().tags(run)
        if not self.virtual:
            return logged
        return {**logged, **self.virtual.tags(run)}

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        if self.virtual and self.virtual.owner(run, tag) is not None:
            return self.virtual.scalars(run, tag)
        return super().scalars(run, tag)

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None:
        if self.virtual and self.virtual.owner(run, tag) is not None:
            return self.virtual.metadata(run, tag)
        return super().metadata(run, tag)

    def point_count(self, run: str, tag: str) -> int:
        if self.virtual and self.virtual.owner(run, tag) is not None:
            return self.virtual.point_count(run, tag)
        return super().point_count(run, tag)

    def release(self) -> None:
        """This Board is done: it leaves the feed, which stops with its last Board.

        The closed Board lets go of the reader too (it reads nothing more), so that a closed
        Board kept in a variable or in the notebook's output history does not keep it alive.
        """
        feed, self.feed = self.feed, None
        if feed is None:
            return
        self.closed_as = self.describe()
        self.entries = []
        leave(feed, self.member)


def acquire(board: Any, logdir: str | os.PathLike[str] | None = None, logdir_spec: str | None = None, *,
            samples_per_plugin: str | Mapping[str, Any] | None = None, purge_orphaned_data: bool = True,
            storage_options: Mapping[str, Any] | None = None) -> SharedSource:
    """A source for a new Board: on the feed other Boards with the same logdir and flags use, or
    on a new one (``MultiLogdir.open``'s arguments and errors). ``board`` is held weakly."""
    key = reader_key(logdir, logdir_spec, samples_per_plugin, purge_orphaned_data, storage_options)

    def open_reader() -> MultiLogdir:
        return MultiLogdir.open(logdir, logdir_spec, samples_per_plugin=samples_per_plugin,
                                purge_orphaned_data=purge_orphaned_data, storage_options=storage_options)

    member = Member(board)
    feed = feed_for(key, open_reader, member)
    return SharedSource(feed, member)


def shared_readers(logdir: str | os.PathLike[str] | None = None) -> int:
    """How many readers Boards hold now, or only of ``logdir`` (whatever their flags), for tests
    and diagnostics. (A Board left unclosed holds its reader until the collector takes the Board
    and a poll sees it gone.)"""
    if logdir is None:
        return len(feeds())
    where = _where(logdir)
    return sum(json.loads(f.key)[0] == where for f in feeds())
