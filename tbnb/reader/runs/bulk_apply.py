"""Applying a batch of framed records to a run's data: in bulk where it can, with exactly the
general path's result.

A batch's records fall into three kinds: scalar records decoded into columns
(``scalars_bulk``), one-value records walked for their tag, step and wall time
(``values_bulk``: histograms, images, text...), and the rest, parsed one by one with protobuf.
Order matters only within a series and around a SessionLog START (which purges every series),
so protobuf-parsed records that touch neither the bulk tags nor purging are applied as they
come, and bulk rows are applied per tag in segments, cut only where a parsed record does touch
them. Every rule (which plugin a tag has, when the run started, what purges) is the run data's
(``run_data.RunData``): this module only decides which records go which way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat

import numpy as np

from tbnb.format.proto import event_pb2

from ..events import data_compat
from ..events.events import parse_event
from ..events.scalars_bulk import BulkScalars, decode_scalars
from ..events.values_bulk import BulkValues, walk_values
from ..files.problems import Problem
from ..records.grouping import group_by_tag
from ..records.records import Framed
from .items import BlobRef, Record, new_tuple
from .run_data import RunData, RunDelta

#: Batches smaller than this skip the bulk decoders (protobuf is as fast for a few records).
BULK_MIN_RECORDS = 64


def apply_batch(data: RunData, buf: memoryview, framed: Framed, path: str, base: int, delta: RunDelta,
                bulk: bool = True) -> None:
    """Apply the records ``framed`` found in ``buf`` (read at file offset ``base``) to ``data``;
    ``bulk=False`` parses every record with protobuf (the reference)."""
    starts, lengths = framed.starts, framed.lengths
    if not bulk or len(starts) < BULK_MIN_RECORDS:
        data.apply_records(buf, range(len(starts)), starts, lengths, path, base, delta)
        return
    scalars = decode_scalars(buf, starts, lengths, framed.rows)
    rest = np.ones(len(starts), dtype=bool)
    rest[scalars.rows] = False
    rest_rows = np.flatnonzero(rest)
    if len(rest_rows) >= BULK_MIN_RECORDS:
        values = walk_values(buf, starts[rest_rows], lengths[rest_rows])
        values.rows = rest_rows[values.rows]
    else:
        values = BulkValues.empty()
    BulkBatch(data, buf, starts, lengths, path, base, delta, scalars, values).apply()


def parse_uncovered(buf: memoryview, starts: np.ndarray, lengths: np.ndarray, covered: Sequence[np.ndarray],
                    path: str, base: int, problems: list[Problem]) -> list[tuple[int, event_pb2.Event | None]]:
    """``(record index, Event or None)`` of the batch's records that no bulk decoder took (rows
    ``covered``), parsed with protobuf in record order; an unreadable one is None, with a problem."""
    taken = np.zeros(len(starts), dtype=bool)
    for rows in covered:
        taken[rows] = True
    return [(i, parse_event(buf, int(starts[i]), int(lengths[i]), path, base, problems))
            for i in np.flatnonzero(~taken).tolist()]


def see_start_time(data: RunData, events: list[tuple[int, event_pb2.Event | None]],
                   bulk: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """The run's start time from a batch whose records are applied out of record order: its
    parsed ``events`` and its bulk rows (``(record indices, wall times)`` per decoder)."""
    if data.start_time is None and events and events[0][0] == 0 and events[0][1] is not None \
            and events[0][1].wall_time:
        data.see_wall_time(events[0][1].wall_time)  # the batch's first record has one (a file_version)
    if data.start_time is None:
        parsed = [(i, e.wall_time) for i, e in events if e is not None]
        rows = np.array([i for i, _ in parsed], dtype=np.int64)
        walls = np.array([w for _, w in parsed], dtype=np.float64)
        data.see_wall_times([(rows, walls), *bulk])


class BulkBatch:
    """One batch of records (``buf[starts[i]:starts[i]+lengths[i]]``) applied to a run's data."""

    def __init__(self, data: RunData, buf: memoryview, starts: np.ndarray, lengths: np.ndarray, path: str,
                 base: int, delta: RunDelta, scalars: BulkScalars, values: BulkValues) -> None:
        self.data, self.buf, self.starts, self.lengths = data, buf, starts, lengths
        self.path, self.base, self.delta = path, base, delta
        self.scalars, self.values = scalars, values

    def apply(self) -> None:
        data = self.data
        self._separate()
        events = parse_uncovered(self.buf, self.starts, self.lengths, (self.scalars.rows, self.values.rows),
                                 self.path, self.base, self.delta.problems)
        see_start_time(data, events, [(self.scalars.rows, self.scalars.wall), (self.values.rows, self.values.wall)])
        bulk_tags = set(self.scalars.tags) | set(self.values.tags)
        segment_start = 0
        for i, event in events:
            if event is None:
                continue
            if self._touches(event, bulk_tags):
                self._segment(segment_start, i)
                segment_start = i + 1
            data.apply_event(event, self.buf, int(self.starts[i]), int(self.lengths[i]), self.path, self.base,
                             self.delta)
        self._segment(segment_start, len(self.starts))

    def _separate(self) -> None:
        """Leave to protobuf the value rows of tags that also have scalar rows in the batch.

        (A TF2 scalar tag's first record carries metadata, so the scalar decoder refuses it and
        the walker takes it; parsed one by one, such records cut the segments, keeping order.)
        """
        s, v = self.scalars, self.values
        both = set(s.tags) & set(v.tags)
        if both:
            keep = ~np.array([name in both for name in v.tags])[v.tag]
            self.values = BulkValues(v.rows[keep], v.tag[keep], v.tags, v.step[keep], v.wall[keep],
                                     v.has_metadata[keep])

    def _touches(self, event: event_pb2.Event, bulk_tags: set[str]) -> bool:
        """Whether ``event`` must be applied in order with the bulk rows: it purges, or it holds
        a value of a bulk tag."""
        if self.data.purges_at(event):
            return True
        if event.WhichOneof("what") == "summary":
            return any(data_compat.value_tag(v) in bulk_tags for v in event.summary.value)
        return False

    def _general(self, rows: np.ndarray) -> None:
        self.data.apply_records(self.buf, rows.tolist(), self.starts, self.lengths, self.path, self.base,
                                self.delta)

    def _segment(self, lo: int, hi: int) -> None:
        """Apply the bulk rows with record index in [lo, hi)."""
        self._scalar_segment(lo, hi)
        self._value_segment(lo, hi)

    def _scalar_segment(self, lo: int, hi: int) -> None:
        bulk, data = self.scalars, self.data
        for sel in group_by_tag(bulk.rows, bulk.tag, lo, hi):  # a tag's rows, both forms, in order
            name = bulk.tags[int(bulk.tag[sel[0]])]
            plugin = data.plugin(name)
            if plugin is None and not bulk.tf2[sel[0]]:  # a TF1 simple_value names its tag's plugin
                plugin = data.name_simple_value_tag(name, self.delta)
            if plugin == "scalars":
                data.add_scalars(name, bulk.step[sel], bulk.wall[sel], bulk.value[sel])
            else:  # first seen as a tensor of no plugin, or another plugin's tag: the general path
                self._general(bulk.rows[sel])

    def _value_segment(self, lo: int, hi: int) -> None:
        bulk, data = self.values, self.data
        for sel in group_by_tag(bulk.rows, bulk.tag, lo, hi):
            name = bulk.tags[int(bulk.tag[sel[0]])]
            if data.plugin(name) is None:  # its first value names the plugin: let protobuf read it
                self._general(bulk.rows[sel[:1]])
                sel = sel[1:]
            plugin = data.plugin(name)
            if not len(sel):
                continue
            if plugin is None or plugin == "scalars":
                self._general(bulk.rows[sel])
                continue
            rows = bulk.rows[sel]
            blob = plugin in data_compat.BLOB_PLUGINS
            data.add_items(name, plugin, bulk.step[sel], bulk.wall[sel],
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
                return list(map(new_tuple, repeat(BlobRef), fields))
            data = map(bytes, map(buf.__getitem__, map(slice, at.tolist(), (at + size).tolist())))
            return list(map(new_tuple, repeat(Record), zip(data, repeat(0))))

        return payloads
