"""One run: all of its event files, each read from its own byte offset, into columnar series.

Every event file of the run is read on every reload, in name order (TensorBoard's Rust loader;
its Python loader tails only the newest file and so loses a second writer's data). A reload
reads only the bytes added since the last one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
from google.protobuf.message import DecodeError

from . import compat
from .batch import BulkBatch
from .proto import event_pb2, summary_pb2
from .frame_bulk import SAMPLE_SPAN, frame_bulk, large_records
from .records import Framed, Problem, frame
from .scalars_bulk import decode_scalars
from .scratch import Scratch
from .values_bulk import BulkValues, walk_values
from .store import BlobRef, Item, Record, Reservoir, ScalarColumns

#: Bytes read from a file at a time (a larger record grows the read until it fits). 8 MiB keeps
#: the bulk paths efficient while bounding what each loading thread holds at once.
READ_CHUNK = 8 << 20
#: The same for logs of large records (images, histograms): their batches hold little besides the
#: bytes, and each batch has fixed costs, as has each reservoir's look at a tag.
LARGE_READ_CHUNK = 32 << 20
_START = event_pb2.SessionLog.START
GRAPH_TAG = "__run_graph__"
#: Batches smaller than this skip the bulk decoder (protobuf is as fast for a few records).
BULK_MIN_RECORDS = 64


@dataclass
class FileState:
    """How far an event file has been read, and what was last seen of its size."""

    offset: int = 0
    size: int = -1


@dataclass
class RunDelta:
    """What one reload of a run changed."""

    new_tags: list[str] = field(default_factory=list)
    points: dict[str, int] = field(default_factory=dict)
    purged: bool = False
    problems: list[Problem] = field(default_factory=list)


class _Pending:
    """Scalar points gathered during a reload (one by one, or as decoded columns), in order."""

    __slots__ = ("steps", "walls", "values", "chunks")

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.walls: list[float] = []
        self.values: list[float] = []
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def _seal(self) -> None:
        if self.steps:
            self.chunks.append((np.array(self.steps, dtype=np.int64), np.array(self.walls, dtype=np.float64),
                                np.array(self.values, dtype=np.float64)))
            self.steps, self.walls, self.values = [], [], []

    def add_columns(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> None:
        self._seal()
        self.chunks.append((steps, walls, values))

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._seal()
        if len(self.chunks) == 1:
            return self.chunks[0]
        if not self.chunks:
            return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
        s, w, v = zip(*self.chunks)
        return np.concatenate(s), np.concatenate(w), np.concatenate(v)


def _chunk_for(fh: BinaryIO, offset: int) -> int:
    """READ_CHUNK, or LARGE_READ_CHUNK where the records from ``offset`` on are large (the
    bulk framer's test, on their first few records)."""
    fh.seek(offset)
    return LARGE_READ_CHUNK if large_records(memoryview(fh.read(SAMPLE_SPAN)), "", offset) else READ_CHUNK


class Run:
    """The data of one run directory."""

    def __init__(self, name: str, directory: Path, capacities: dict[str, int | None],
                 purge_orphaned_data: bool = True, bulk: bool = True) -> None:
        self.name = name
        self.bulk = bulk
        self.directory = directory
        self.capacities = capacities
        self.purge = purge_orphaned_data
        self.files: dict[Path, FileState] = {}
        self.scalars: dict[str, ScalarColumns] = {}
        self.tensors: dict[str, Reservoir] = {}
        self.metadata: dict[str, summary_pb2.SummaryMetadata] = {}
        self.plugins: dict[str, str] = {}
        self.graph_def: bytes | None = None
        self.meta_graph_def: bytes | None = None
        self.run_metadata: dict[str, bytes] = {}
        self.file_version: str | None = None
        self.start_time: float | None = None
        self._pending: dict[str, _Pending] = {}

    # -- reading ------------------------------------------------------------------------------

    def reload(self, paths: list[Path], scratch: Scratch | None = None) -> RunDelta:
        """Read what is new in every event file of the run (``paths`` in name order), into
        ``scratch`` (a buffer of its own if not given)."""
        delta = RunDelta()
        scratch = scratch or Scratch()
        for gone in [p for p in self.files if p not in paths]:
            del self.files[gone]
        for path in paths:
            self._read_file(path, self.files.setdefault(path, FileState()), delta, scratch)
        self._flush(delta)
        delta.problems.sort(key=lambda p: (p.path, p.offset))
        return delta

    def changed(self, paths: list[Path]) -> bool:
        """Whether a reload could find anything: a file added or gone, one of another size, or
        one not read to its end (a file that cannot be stat-ed counts: the reload reports it)."""
        if len(paths) != len(self.files) or any(p not in self.files for p in paths):
            return True
        try:
            sizes = [os.stat(p).st_size for p in paths]
        except OSError:
            return True
        return any(size != self.files[p].size or size != self.files[p].offset for p, size in zip(paths, sizes))

    def _read_file(self, path: Path, state: FileState, delta: RunDelta, scratch: Scratch) -> None:
        try:
            size = os.stat(path).st_size
        except OSError as err:
            delta.problems.append(Problem(str(path), state.offset, f"cannot stat: {err.strerror or err}"))
            return
        if size < state.offset:
            delta.problems.append(Problem(str(path), state.offset,
                                          f"file shrank to {size} bytes; reading it again from the start"))
            state.offset = 0
        state.size = size
        if size == state.offset:
            return
        try:
            with open(path, "rb") as fh:
                chunk = READ_CHUNK
                while state.offset < size:
                    left = size - state.offset
                    if chunk == READ_CHUNK < left:
                        chunk = _chunk_for(fh, state.offset)
                    fh.seek(state.offset)
                    buf = scratch.read(fh, min(chunk, left))
                    if not buf:
                        break
                    framed = (frame_bulk if self.bulk else frame)(buf, str(path), state.offset)
                    delta.problems.extend(framed.problems)
                    self._process(buf, framed, path, state.offset, delta)
                    state.offset += framed.consumed
                    if framed.consumed == 0:
                        if len(buf) < size - state.offset:
                            chunk *= 2  # one record larger than the chunk: read more at once
                            continue
                        break  # an incomplete record at the end: the writer is mid-flush
        except OSError as err:
            delta.problems.append(Problem(str(path), state.offset, f"cannot read: {err.strerror or err}"))

    def _process(self, buf: memoryview, framed: Framed, path: Path, base: int, delta: RunDelta) -> None:
        starts, lengths = framed.starts, framed.lengths
        if not self.bulk or len(starts) < BULK_MIN_RECORDS:
            self._process_rows(buf, range(len(starts)), starts, lengths, str(path), base, delta)
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
        BulkBatch(self, buf, starts, lengths, str(path), base, delta, scalars, values).apply()

    def _process_rows(self, buf: memoryview, rows: object, starts: np.ndarray, lengths: np.ndarray, path: str,
                      base: int, delta: RunDelta) -> None:
        """The general path: parse each record with protobuf and apply it, in order."""
        for i in rows:  # type: ignore[attr-defined]
            start, length = int(starts[i]), int(lengths[i])
            event = self._parse(buf, start, length, path, base, delta)
            if event is not None:
                self._event(event, buf, start, length, path, base, delta)

    @staticmethod
    def _parse(buf: memoryview, start: int, length: int, path: str, base: int,
               delta: RunDelta) -> event_pb2.Event | None:
        try:
            return event_pb2.Event.FromString(memoryview(buf)[start : start + length])
        except DecodeError:
            delta.problems.append(Problem(path, base + start - 12, "record is not an Event; skipped"))
            return None

    def _event(self, event: event_pb2.Event, buf: memoryview, start: int, length: int, path: str, base: int,
               delta: RunDelta) -> None:
        """Apply one parsed event (its record is ``buf[start:start + length]``, at ``base + start``)."""
        if self.start_time is None and event.wall_time:
            self.start_time = event.wall_time
        what = event.WhichOneof("what")
        if what == "summary":
            for index, value in enumerate(event.summary.value):
                self._value(value, index, event, buf, start, length, path, base, delta)
        elif what == "file_version":
            self.file_version = event.file_version
        elif what == "session_log":
            if event.session_log.status == _START and self.purge:
                self._purge(event.step, delta)
        elif what == "graph_def":
            self.graph_def = event.graph_def
            self._new_tag(GRAPH_TAG, "graphs", delta)
        elif what == "meta_graph_def":
            self.meta_graph_def = event.meta_graph_def
            self._new_tag(GRAPH_TAG, "graphs", delta)
        elif what == "tagged_run_metadata":
            tag = event.tagged_run_metadata.tag
            self.run_metadata[tag] = event.tagged_run_metadata.run_metadata
            self._new_tag(tag, "graph_tagged_run_metadata", delta)

    def _new_tag(self, tag: str, plugin: str, delta: RunDelta) -> None:
        if tag not in self.plugins:
            self.plugins[tag] = plugin
            delta.new_tags.append(tag)

    def _value(self, value: summary_pb2.Summary.Value, index: int, event: event_pb2.Event, buf: memoryview,
               start: int, length: int, path: str, base: int, delta: RunDelta) -> None:
        tag = compat.value_tag(value)
        plugin = self._plugin(tag, value, delta)
        if plugin is None:
            return
        if plugin == "scalars":
            try:
                number = compat.scalar_of(value)
            except ValueError as err:
                delta.problems.append(Problem(path, base + start - 12, f"tag {tag!r}: {err}"))
                return
            pending = self._pending_for(tag)
            pending.values.append(number)
            pending.steps.append(event.step)
            pending.walls.append(event.wall_time)
            return
        if plugin in compat.BLOB_PLUGINS:
            payload: BlobRef | Record = BlobRef(path, base + start, length, index)
        else:
            payload = Record(bytes(buf[start : start + length]), index)
        self._add_item(tag, plugin, Item(event.step, event.wall_time, payload), delta)

    def _plugin(self, tag: str, value: summary_pb2.Summary.Value, delta: RunDelta) -> str | None:
        """The tag's plugin; the first value seen for a tag names it (TensorBoard's rule)."""
        plugin = self.plugins.get(tag)
        if plugin is None:
            md = compat.metadata_of(value)
            if md is None:
                return None
            plugin = md.plugin_data.plugin_name
            self.metadata[tag] = md
            self._new_tag(tag, plugin, delta)
        return plugin

    def _series(self, tag: str, plugin: str) -> Reservoir:
        series = self.tensors.get(tag)
        if series is None:
            series = self.tensors[tag] = Reservoir(self.capacities.get(plugin, self.capacities["*"]))
        return series

    def _add_item(self, tag: str, plugin: str, item: Item, delta: RunDelta) -> None:
        self._series(tag, plugin).add(item, self.purge)
        delta.points[tag] = delta.points.get(tag, 0) + 1

    def _add_items(self, tag: str, plugin: str, steps: np.ndarray, walls: np.ndarray,
                   payloads_of: Callable[[np.ndarray], list[BlobRef | Record]], delta: RunDelta) -> None:
        self._series(tag, plugin).add_many(steps, walls, payloads_of, self.purge)
        delta.points[tag] = delta.points.get(tag, 0) + len(steps)

    def _pending_for(self, tag: str) -> _Pending:
        pending = self._pending.get(tag)
        if pending is None:
            pending = self._pending[tag] = _Pending()
        return pending

    def _flush(self, delta: RunDelta) -> None:
        for tag, pending in self._pending.items():
            cols = self.scalars.get(tag)
            if cols is None:
                cols = self.scalars[tag] = ScalarColumns()
            steps, walls, values = pending.columns()
            cols.extend(steps, walls, values, self.purge)
            delta.points[tag] = delta.points.get(tag, 0) + len(steps)
        self._pending.clear()

    def _purge(self, step: int, delta: RunDelta) -> None:
        """A SessionLog START at ``step``: the run restarted there, so later data is orphaned."""
        self._flush(delta)
        for cols in self.scalars.values():
            delta.purged |= cols.purge(step) > 0
        for series in self.tensors.values():
            delta.purged |= series.purge(step) > 0

    # -- access -------------------------------------------------------------------------------

    def graph(self) -> bytes | None:
        """The run's GraphDef bytes: from a ``graph_def`` event, else from the meta graph."""
        if self.graph_def is not None:
            return self.graph_def
        if self.meta_graph_def is not None:
            from .proto import graph_pb2

            meta = graph_pb2.MetaGraphDef.FromString(self.meta_graph_def)
            if meta.HasField("graph_def"):
                return meta.graph_def.SerializeToString()
        return None

