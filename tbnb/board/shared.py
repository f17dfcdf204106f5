"""One reader per logdir per kernel: Boards on the same logdir, with the same reader flags, share
it instead of each holding a copy of every series (a notebook often shows one logdir in several
cells). The reader is dropped when the last Board using it closes.

Each Board reads through its own ``SharedSource``, a MultiLogdir over the shared Logdir objects.
A reload is done once for all of them; what it changed is kept for each of the other Boards
until their own next reload, so that every Board tells its page about every change. A Board's
virtual scalar tags (``board.derived``: virtual_scalars.py) are its own source's: listed, read
and reported by it beside the shared reader's logged tags.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..reader.files.location import is_url
from ..reader.logdir.logdir import ReloadResult
from ..reader.runs.series import ScalarSeries
from ..reader.runs.size_guidance import parse_samples_per_plugin
from .sources import MultiLogdir
from .virtual_scalars import LoggedView, VirtualScalars

if TYPE_CHECKING:
    from tbnb.format.proto import summary_pb2

_registry: dict[str, _Shared] = {}
_registry_lock = threading.Lock()


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


def reader_key(logdir: str | os.PathLike[str] | None, logdir_spec: str | None,
               samples_per_plugin: str | Mapping[str, Any] | None, purge_orphaned_data: bool,
               storage_options: Mapping[str, Any] | None) -> str:
    """What makes two Boards' readers the same: the logdir(s) and every reader flag."""
    where = logdir if logdir is None or is_url(logdir) else os.path.abspath(os.path.expanduser(logdir))
    flags = sorted(parse_samples_per_plugin(samples_per_plugin).items())
    return json.dumps([str(where) if where is not None else None, logdir_spec, flags, bool(purge_orphaned_data),
                       storage_options or {}], sort_keys=True, default=repr)


class _Shared:
    """A reader and the Boards' sources reading it."""

    def __init__(self, key: str, reader: MultiLogdir) -> None:
        self.key = key
        self.reader = reader
        self.sources: list[SharedSource] = []
        self.loaded = False
        self.lock = threading.RLock()

    def reload(self, source: SharedSource, first_bytes: int | None = None) -> ReloadResult:
        with self.lock:
            fresh = self.reader.reload(first_bytes)
            self.loaded = True
            for other in self.sources:
                if other is not source:
                    merge_results(other.unseen, fresh)
            mine, source.unseen = source.unseen, ReloadResult()
            merge_results(mine, fresh)
            return mine


class SharedSource(MultiLogdir):
    """One Board's view of a shared reader: the reader's read API, its own reload results."""

    def __init__(self, shared: _Shared) -> None:
        super().__init__(shared.reader.entries)
        self.shared: _Shared | None = shared
        #: Changes made by other Boards' reloads since this Board's last one.
        self.unseen = ReloadResult()
        #: What the source read, once its Board closed (and it let go of the reader).
        self.closed_as: str | None = None
        #: This Board's virtual scalar tags (its providers, their cached series).
        self.virtual = VirtualScalars(LoggedView(self, MultiLogdir))
        if shared.loaded:  # joining a reader that has read already: everything is new to this Board
            self.unseen.new_runs = self.runs()
            self.unseen.new_tags = {run: list(self.tags(run)) for run in self.unseen.new_runs}

    def describe(self) -> str:
        return self.closed_as or super().describe()

    def reload(self, first_bytes: int | None = None) -> ReloadResult:
        shared = self.shared
        if shared is None:
            raise RuntimeError("this Board's reader was released (the Board is closed)")
        result = shared.reload(self, first_bytes)
        self.virtual.report(result)
        return result

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
        """This Board is done: the reader is dropped with the last Board that used it.

        The closed Board lets go of it too (it reads nothing more), so that a closed Board kept
        in a variable or in the notebook's output history does not keep the reader alive.
        """
        shared, self.shared = self.shared, None
        if shared is None:
            return
        self.closed_as = self.describe()
        self.entries = []
        with _registry_lock:
            if self in shared.sources:
                shared.sources.remove(self)
            if not shared.sources and _registry.get(shared.key) is shared:
                del _registry[shared.key]


def acquire(logdir: str | os.PathLike[str] | None = None, logdir_spec: str | None = None, *,
            samples_per_plugin: str | Mapping[str, Any] | None = None, purge_orphaned_data: bool = True,
            storage_options: Mapping[str, Any] | None = None) -> SharedSource:
    """A source for a new Board: on the reader other open Boards with the same logdir and flags
    use, or on a new one (``MultiLogdir.open``'s arguments and errors)."""
    key = reader_key(logdir, logdir_spec, samples_per_plugin, purge_orphaned_data, storage_options)
    with _registry_lock:
        shared = _registry.get(key)
        if shared is None:
            reader = MultiLogdir.open(logdir, logdir_spec, samples_per_plugin=samples_per_plugin,
                                      purge_orphaned_data=purge_orphaned_data, storage_options=storage_options)
            shared = _registry[key] = _Shared(key, reader)
        with shared.lock:  # (the lock order everywhere: registry, then reader)
            source = SharedSource(shared)
            shared.sources.append(source)
    return source


def shared_readers() -> int:
    """How many readers Boards hold now (for tests and diagnostics)."""
    with _registry_lock:
        return len(_registry)
