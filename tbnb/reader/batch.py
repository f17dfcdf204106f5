"""Applying a batch of records read in bulk, with exactly the general path's result.

A batch's records fall into three kinds: scalar records decoded into columns
(``scalars_bulk``), one-value records walked for their tag, step and wall time
(``values_bulk``: histograms, images, text...), and the rest, parsed one by one with protobuf.
Order matters only within a series and around a SessionLog START (which purges every series),
so protobuf-parsed records that touch neither the bulk tags nor purging are applied as they
come, and bulk rows are applied per tag in segments, cut only where a parsed record does touch
them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from . import compat
from .proto import event_pb2, summary_pb2
from .scalars_bulk import BulkScalars
from .store import BlobRef, Record, _tuple_new
from .values_bulk import BulkValues

if TYPE_CHECKING:
    from .run import Run, RunDelta

_START = event_pb2.SessionLog.START


def _groups(rows: np.ndarray, tags: np.ndarray, lo: int, hi: int) -> list[np.ndarray]:
    """Positions of the bulk rows whose record index (``rows``, ascending) is in [lo, hi),
    one array per tag (``tags``: each row's tag index), each in order."""
    a, b = (int(i) for i in np.searchsorted(rows, [lo, hi]))
    if a == b:
        return []
    part = tags[a:b]
    # A stable sort of 16-bit keys is a radix sort in numpy: a log has far fewer tags than that.
    order = np.argsort(part.astype(np.uint16) if part.max(initial=0) < 1 << 16 else part, kind="stable")
    cuts = np.flatnonzero(np.diff(part[order])) + 1
    return [sel + a for sel in np.split(order, cuts)]


class BulkBatch:
    """One batch of records (``buf[starts[i]:starts[i]+lengths[i]]``) applied to a run."""

    def __init__(self, run: Run, buf: bytes, starts: np.ndarray, lengths: np.ndarray, path: str, base: int,
                 delta: RunDelta, scalars: BulkScalars, values: BulkValues) -> None:
        self.run_, self.buf, self.starts, self.lengths = run, buf, starts, lengths
        self.path, self.base, self.delta = path, base, delta
        self.scalars, self.values = scalars, values

    def apply(self) -> None:
        run = self.run_
        self._separate()
        covered = np.zeros(len(self.starts), dtype=bool)
        covered[self.scalars.rows] = True
        covered[self.values.rows] = True
        events = [(i, run._parse(self.buf, int(self.starts[i]), int(self.lengths[i]), self.path, self.base,
                                 self.delta)) for i in np.flatnonzero(~covered).tolist()]
        if run.start_time is None:
            self._start_time(events)
        bulk_tags = {name for name, _ in self.scalars.tags} | set(self.values.tags)
        segment_start = 0
        for i, event in events:
            if event is None:
                continue
            if self._touches(event, bulk_tags):
                self._segment(segment_start, i)
                segment_start = i + 1
            run._event(event, self.buf, int(self.starts[i]), int(self.lengths[i]), self.path, self.base,
                       self.delta)
        self._segment(segment_start, len(self.starts))

    def _separate(self) -> None:
        """Leave to protobuf the value rows of tags that also have scalar rows in the batch.

        (A TF2 scalar tag's first record carries metadata, so the scalar decoder refuses it and
        the walker takes it; parsed one by one, such records cut the segments, keeping order.)
        """
        s, v = self.scalars, self.values
        both = {name for name, _ in s.tags} & set(v.tags)
        if both:
            keep = ~np.array([name in both for name in v.tags])[v.tag]
            self.values = BulkValues(v.rows[keep], v.tag[keep], v.tags, v.step[keep], v.wall[keep],
                                     v.has_metadata[keep])

    def _start_time(self, events: list[tuple[int, event_pb2.Event | None]]) -> None:
        candidates = [(i, e.wall_time) for i, e in events if e is not None and e.wall_time][:1]
        for rows, wall in ((self.scalars.rows, self.scalars.wall), (self.values.rows, self.values.wall)):
            nonzero = np.flatnonzero(wall != 0)
            if nonzero.size:
                candidates.append((int(rows[nonzero[0]]), float(wall[nonzero[0]])))
        if candidates:
            self.run_.start_time = min(candidates)[1]

    def _touches(self, event: event_pb2.Event, bulk_tags: set[str]) -> bool:
        what = event.WhichOneof("what")
        if what == "session_log":
            return self.run_.purge and event.session_log.status == _START
        if what == "summary":
            return any(compat.value_tag(v) in bulk_tags for v in event.summary.value)
        return False

    def _general(self, rows: np.ndarray) -> None:
        self.run_._process_rows(self.buf, rows.tolist(), self.starts, self.lengths, self.path, self.base,
                                self.delta)

    def _segment(self, lo: int, hi: int) -> None:
        """Apply the bulk rows with record index in [lo, hi)."""
        self._scalar_segment(lo, hi)
        self._value_segment(lo, hi)

    def _scalar_segment(self, lo: int, hi: int) -> None:
        bulk, run = self.scalars, self.run_
        for sel in _groups(bulk.rows, bulk.tag, lo, hi):
            name, tf2 = bulk.tags[int(bulk.tag[sel[0]])]
            plugin = run.plugins.get(name)
            if plugin is None and not tf2:  # a TF1 simple_value names its tag's plugin
                md = compat.metadata_of(summary_pb2.Summary.Value(tag=name, simple_value=0.0))
                assert md is not None
                run.metadata[name] = md
                run._new_tag(name, "scalars", self.delta)
                plugin = "scalars"
            if plugin == "scalars":
                run._pending_for(name).add_columns(bulk.step[sel], bulk.wall[sel], bulk.value[sel])
            else:  # first seen as a tensor of no plugin, or another plugin's tag: the general path
                self._general(bulk.rows[sel])

    def _value_segment(self, lo: int, hi: int) -> None:
        bulk, run = self.values, self.run_
        for sel in _groups(bulk.rows, bulk.tag, lo, hi):
            name = bulk.tags[int(bulk.tag[sel[0]])]
            if name not in run.plugins:  # its first value names the plugin: let protobuf read it
                self._general(bulk.rows[sel[:1]])
                sel = sel[1:]
            plugin = run.plugins.get(name)
            if not len(sel):
                continue
            if plugin is None or plugin == "scalars":
                self._general(bulk.rows[sel])
                continue
            rows = bulk.rows[sel]
            blob = plugin in compat.BLOB_PLUGINS
            run._add_items(name, plugin, bulk.step[sel], bulk.wall[sel],
                           self._payloads(self.starts[rows], self.lengths[rows], blob), self.delta)

    def _payloads(self, starts: np.ndarray, lengths: np.ndarray,
                  blob: bool) -> Callable[[np.ndarray], list[BlobRef | Record]]:
        """The reservoir's payload maker for these records: file positions of blobs (read when
        shown), or copies of the records' bytes (``buf`` is reused by the next read). Built
        with C-level maps: a batch keeps thousands of them."""
        path, base, buf = self.path, self.base, self.buf

        def payloads(index: np.ndarray) -> list[BlobRef | Record]:
            at, size = starts[index], lengths[index]
            if blob:
                fields = zip(repeat(path), (at + base).tolist(), size.tolist(), repeat(0))
                return list(map(_tuple_new, repeat(BlobRef), fields))
            data = map(bytes, map(buf.__getitem__, map(slice, at.tolist(), (at + size).tolist())))
            return list(map(_tuple_new, repeat(Record), zip(data, repeat(0))))

        return payloads
