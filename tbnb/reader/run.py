"""One run: all of its event files, each read from its own byte offset, into columnar series.

Every event file of the run is read on every reload, in name order (TensorBoard's Rust loader;
its Python loader tails only the newest file and so loses a second writer's data). A reload
reads only the bytes added since the last one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from google.protobuf.message import DecodeError

from . import compat
from .proto import event_pb2, summary_pb2
from .frame_bulk import frame_bulk
from .records import Problem, frame
from .scalars_bulk import BulkScalars, decode_scalars
from .store import BlobRef, Item, Reservoir, ScalarColumns

#: Bytes read from a file at a time; a larger record grows the read until it fits.
READ_CHUNK = 64 << 20
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

    def reload(self, paths: list[Path]) -> RunDelta:
        """Read what is new in every event file of the run (``paths`` in name order)."""
        delta = RunDelta()
        for gone in [p for p in self.files if p not in paths]:
            del self.files[gone]
        for path in paths:
            self._read_file(path, self.files.setdefault(path, FileState()), delta)
        self._flush(delta)
        delta.problems.sort(key=lambda p: (p.path, p.offset))
        return delta

    def _read_file(self, path: Path, state: FileState, delta: RunDelta) -> None:
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
                    fh.seek(state.offset)
                    buf = fh.read(min(chunk, size - state.offset))
                    if not buf:
                        break
                    framed = (frame_bulk if self.bulk else frame)(buf, str(path), state.offset)
                    delta.problems.extend(framed.problems)
                    self._process(buf, framed.starts, framed.lengths, path, state.offset, delta)
                    state.offset += framed.consumed
                    if framed.consumed == 0:
                        if len(buf) < size - state.offset:
                            chunk *= 2  # one record larger than the chunk: read more at once
                            continue
                        break  # an incomplete record at the end: the writer is mid-flush
        except OSError as err:
            delta.problems.append(Problem(str(path), state.offset, f"cannot read: {err.strerror or err}"))

    def _process(self, buf: bytes, starts: np.ndarray, lengths: np.ndarray, path: Path, base: int,
                 delta: RunDelta) -> None:
        bulk = decode_scalars(buf, starts, lengths) if self.bulk and len(starts) >= BULK_MIN_RECORDS else None
        if bulk is None or not len(bulk.rows):
            self._process_rows(buf, range(len(starts)), starts, lengths, str(path), base, delta)
            return
        _BulkBatch(self, buf, starts, lengths, str(path), base, bulk, delta).run()

    def _process_rows(self, buf: bytes, rows: object, starts: np.ndarray, lengths: np.ndarray, path: str,
                      base: int, delta: RunDelta) -> None:
        """The general path: parse each record with protobuf and apply it, in order."""
        for i in rows:  # type: ignore[attr-defined]
            event = self._parse(buf, int(starts[i]), int(lengths[i]), path, base, delta)
            if event is not None:
                self._event(event, path, base + int(starts[i]), int(lengths[i]), delta)

    @staticmethod
    def _parse(buf: bytes, start: int, length: int, path: str, base: int,
               delta: RunDelta) -> event_pb2.Event | None:
        try:
            return event_pb2.Event.FromString(memoryview(buf)[start : start + length])
        except DecodeError:
            delta.problems.append(Problem(path, base + start - 12, "record is not an Event; skipped"))
            return None

    def _event(self, event: event_pb2.Event, path: str, offset: int, length: int, delta: RunDelta) -> None:
        if self.start_time is None and event.wall_time:
            self.start_time = event.wall_time
        what = event.WhichOneof("what")
        if what == "summary":
            for index, value in enumerate(event.summary.value):
                self._value(value, event, BlobRef(path, offset, length, index), delta)
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

    def _value(self, value: summary_pb2.Summary.Value, event: event_pb2.Event, ref: BlobRef,
               delta: RunDelta) -> None:
        tag = compat.value_tag(value)
        plugin = self.plugins.get(tag)
        if plugin is None:
            md = compat.metadata_of(value)
            if md is None:
                return
            plugin = md.plugin_data.plugin_name
            self.metadata[tag] = md
            self._new_tag(tag, plugin, delta)
        try:
            if plugin == "scalars":
                number = compat.scalar_of(value)
                pending = self._pending.get(tag)
                if pending is None:
                    pending = self._pending[tag] = _Pending()
                pending.values.append(number)
                pending.steps.append(event.step)
                pending.walls.append(event.wall_time)
                return
            payload: object = ref if plugin in compat.BLOB_PLUGINS else compat.tensor_of(value)
        except ValueError as err:
            delta.problems.append(Problem(ref.path, ref.offset - 12, f"tag {tag!r}: {err}"))
            return
        series = self.tensors.get(tag)
        if series is None:
            series = self.tensors[tag] = Reservoir(self.capacities.get(plugin, self.capacities["*"]))
        series.add(Item(event.step, event.wall_time, payload), self.purge)
        delta.points[tag] = delta.points.get(tag, 0) + 1

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


class _BulkBatch:
    """Applies a batch whose scalar records were decoded in bulk, with the general path's result.

    Order matters only within a series and around a SessionLog START, so protobuf-parsed
    records that touch neither the bulk-decoded tags nor purging are applied as they come, and
    bulk rows are applied in segments cut only where a record does touch them.
    """

    def __init__(self, run: Run, buf: bytes, starts: np.ndarray, lengths: np.ndarray, path: str, base: int,
                 bulk: BulkScalars, delta: RunDelta) -> None:
        self.run_, self.buf, self.starts, self.lengths = run, buf, starts, lengths
        self.path, self.base, self.bulk, self.delta = path, base, bulk, delta

    def run(self) -> None:
        run, bulk = self.run_, self.bulk
        fast = np.zeros(len(self.starts), dtype=bool)
        fast[bulk.rows] = True
        slow = np.flatnonzero(~fast).tolist()
        events = [(i, run._parse(self.buf, int(self.starts[i]), int(self.lengths[i]), self.path, self.base,
                                 self.delta)) for i in slow]
        if run.start_time is None:
            self._start_time(events)
        bulk_tags = {name for name, _ in bulk.tags}
        segment_start = 0
        for i, event in events:
            if event is None:
                continue
            if self._touches(event, bulk_tags):
                self._segment(segment_start, i)
                segment_start = i + 1
            run._event(event, self.path, self.base + int(self.starts[i]), int(self.lengths[i]), self.delta)
        self._segment(segment_start, len(self.starts))

    def _start_time(self, events: list[tuple[int, event_pb2.Event | None]]) -> None:
        candidates = [(i, e.wall_time) for i, e in events if e is not None and e.wall_time][:1]
        nonzero = np.flatnonzero(self.bulk.wall != 0)
        if nonzero.size:
            candidates.append((int(self.bulk.rows[nonzero[0]]), float(self.bulk.wall[nonzero[0]])))
        if candidates:
            self.run_.start_time = min(candidates)[1]

    def _touches(self, event: event_pb2.Event, bulk_tags: set[str]) -> bool:
        what = event.WhichOneof("what")
        if what == "session_log":
            return self.run_.purge and event.session_log.status == _START
        if what == "summary":
            return any(compat.value_tag(v) in bulk_tags for v in event.summary.value)
        return False

    def _segment(self, lo: int, hi: int) -> None:
        """Apply the bulk rows with record index in [lo, hi)."""
        bulk, run = self.bulk, self.run_
        a, b = np.searchsorted(bulk.rows, [lo, hi])
        if a == b:
            return
        tag_ids = bulk.tag[a:b]
        order = np.argsort(tag_ids, kind="stable") + a
        cuts = np.flatnonzero(np.diff(bulk.tag[order])) + 1
        for sel in np.split(order, cuts):
            name, tf2 = bulk.tags[int(bulk.tag[sel[0]])]
            plugin = run.plugins.get(name)
            if plugin is None and not tf2:  # a TF1 simple_value names its tag's plugin
                md = compat.metadata_of(summary_pb2.Summary.Value(tag=name, simple_value=0.0))
                assert md is not None
                run.metadata[name] = md
                run._new_tag(name, "scalars", self.delta)
                plugin = "scalars"
            if plugin == "scalars":
                pending = run._pending.get(name)
                if pending is None:
                    pending = run._pending[name] = _Pending()
                pending.add_columns(bulk.step[sel], bulk.wall[sel], bulk.value[sel])
            else:  # first seen as a tensor of no plugin, or another plugin's tag: the general path
                run._process_rows(self.buf, bulk.rows[sel].tolist(), self.starts, self.lengths, self.path,
                                  self.base, self.delta)
