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
from .records import Problem, frame
from .store import BlobRef, Item, Reservoir, ScalarColumns

#: Bytes read from a file at a time; a larger record grows the read until it fits.
READ_CHUNK = 64 << 20
_START = event_pb2.SessionLog.START
GRAPH_TAG = "__run_graph__"


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
    """Scalar points gathered during a reload, appended to the columns in bulk."""

    __slots__ = ("steps", "walls", "values")

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.walls: list[float] = []
        self.values: list[float] = []


class Run:
    """The data of one run directory."""

    def __init__(self, name: str, directory: Path, capacities: dict[str, int | None],
                 purge_orphaned_data: bool = True) -> None:
        self.name = name
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
                    framed = frame(buf, str(path), state.offset)
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
        view = memoryview(buf)
        parse = event_pb2.Event.FromString
        spath = str(path)
        for start, length in zip(starts.tolist(), lengths.tolist()):
            try:
                event = parse(view[start : start + length])
            except DecodeError:
                delta.problems.append(Problem(spath, base + start - 12, "record is not an Event; skipped"))
                continue
            self._event(event, spath, base + start, length, delta)

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
                pending = self._pending.get(tag)
                if pending is None:
                    pending = self._pending[tag] = _Pending()
                pending.values.append(compat.scalar_of(value))
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
            cols.extend(np.array(pending.steps, dtype=np.int64), np.array(pending.walls, dtype=np.float64),
                        np.array(pending.values, dtype=np.float64), self.purge)
            delta.points[tag] = delta.points.get(tag, 0) + len(pending.steps)
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
