"""The data of one run: its series, its tags' plugins and metadata, its graph, and the rules
that apply an event to them.

TensorBoard's Rust server splits a run in two, and so does tbnb: the run's *loader*
(``run.py``: files, byte offsets, reads) and the run's *data* (this module). Records reach the
data two ways: parsed one by one and applied here (``apply_records``: the general path, the
reference), or decoded in bulk by ``bulk_apply``, which uses the same public methods, so that
each rule lives here once: the first value of a tag names its plugin (``name_tag``), the run
starts at its first wall time (``see_wall_time``), a SessionLog START purges (``purges_at``).

Scalar points gathered during a reload wait in ``Pending`` and join their columns in one
append at ``flush``: a column grows once per reload, not once per point.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from tbnb.format.proto import event_pb2, summary_pb2

from ..events import data_compat
from ..events.events import parse_events
from ..events.wire import ValueSpans
from ..files.problems import Problem
from ..records.records import HEADER_SIZE
from .columns import ScalarColumns
from .items import WHOLE_VALUE, BlobRef, Item, Record
from .pending import Pending
from .reservoir import Reservoir

_START = event_pb2.SessionLog.START
#: The tag under which a run's graph is listed (plugin ``graphs``).
GRAPH_TAG = "__run_graph__"
#: What ``data_compat.metadata_of`` makes of a TF1 ``simple_value`` but its display name.
_SIMPLE_VALUE_METADATA = data_compat.metadata_of(summary_pb2.Summary.Value(simple_value=0.0))
_SIMPLE_VALUE_PLUGIN = _SIMPLE_VALUE_METADATA.plugin_data.plugin_name
#: Stands for a simple_value tag's metadata until ``metadata`` is asked for it: a sweep's
#: thousands of scalar series would otherwise each hold a protobuf message made at load, which
#: is rarely read. A string, so that it stays itself through pickling (a run read by an
#: executor's worker comes back pickled); no metadata is kept as a string otherwise.
_SIMPLE_VALUE = "simple_value"


@dataclass
class RunDelta:
    """What one reload of a run changed."""

    new_tags: list[str] = field(default_factory=list)
    points: dict[str, int] = field(default_factory=dict)
    purged: bool = False
    problems: list[Problem] = field(default_factory=list)


class RunData:
    """The series and facts of one run, and the rules that apply its events to them.

    Not thread-safe by itself: one reload at a time writes it, and ``Logdir`` holds its lock
    while reading.
    """

    def __init__(self, capacities: dict[str, int | None], purge_orphaned_data: bool = True) -> None:
        #: Items kept per non-scalar series, by plugin (``"*"``: any other plugin).
        self.capacities = capacities
        #: Whether a restart (a SessionLog START, a step going back) drops the later data.
        self.purge_orphaned_data = purge_orphaned_data
        #: ``file_version`` of the last event that had one.
        self.file_version: str | None = None
        #: Wall time of the run's first event that has one (TensorBoard's "relative" origin).
        self.start_time: float | None = None
        self._scalars: dict[str, ScalarColumns] = {}
        self._tensors: dict[str, Reservoir] = {}
        self._metadata: dict[str, summary_pb2.SummaryMetadata | str] = {}  # (str: _SIMPLE_VALUE)
        self._plugins: dict[str, str] = {}
        self._graph_def: bytes | None = None
        self._meta_graph_def: bytes | None = None
        self._run_metadata: dict[str, bytes] = {}
        self._pending: dict[str, Pending] = {}
        #: Sampled payloads found to decode (``payloads.readable``: each is checked once).
        self.decoded: set[BlobRef | Record] = set()
        #: Steps of the restarts seen, kept only in a copy made ``for_task``.
        self.purged_at: list[int] | None = None

    # -- the rules ----------------------------------------------------------------------------

    def plugin(self, tag: str) -> str | None:
        """The plugin a tag's first value named; None for a tag not seen yet."""
        return self._plugins.get(tag)

    def name_tag(self, tag: str, value: summary_pb2.Summary.Value, delta: RunDelta) -> str | None:
        """The tag's plugin; the first value seen for a tag names it, with its metadata
        (TensorBoard's rule). None for a new tag whose value names none (nothing to keep)."""
        plugin = self._plugins.get(tag)
        if plugin is None:
            md = data_compat.metadata_of(value)
            if md is None:
                return None
            plugin = md.plugin_data.plugin_name
            self._metadata[tag] = md
            self.new_tag(tag, plugin, delta)
        return plugin

    def name_simple_value_tag(self, tag: str, delta: RunDelta) -> str | None:
        """``name_tag`` for a TF1 ``simple_value`` of ``tag`` (the bulk decoder's, which has no
        Value to show): the metadata synthesised for one, from one made once."""
        plugin = self._plugins.get(tag)
        if plugin is None:
            self._metadata[tag] = _SIMPLE_VALUE  # made when asked for (metadata)
            plugin = _SIMPLE_VALUE_PLUGIN
            self.new_tag(tag, plugin, delta)
        return plugin

    def is_fresh(self) -> bool:
        """Whether nothing has been applied yet (a run's first read)."""
        return (self.start_time is None and self.file_version is None and not self._plugins and not self._scalars
                and not self._tensors and not self._pending and self._graph_def is None
                and self._meta_graph_def is None and not self._run_metadata)

    def adopt_simple_values(self, tag: str, cols: ScalarColumns, points: int, delta: RunDelta) -> None:
        """A TF1 ``simple_value`` tag seen for the first time, with the columns of all its points
        of this reload (the many-run reload builds them for all its series at once): what
        ``name_simple_value_tag``, ``add_scalars`` and ``flush`` make of them."""
        self.name_simple_value_tag(tag, delta)
        self._scalars[tag] = cols
        delta.points[tag] = delta.points.get(tag, 0) + points

    def new_tag(self, tag: str, plugin: str, delta: RunDelta) -> None:
        """List a tag under ``plugin`` unless it is listed already."""
        if tag not in self._plugins:
            self._plugins[tag] = plugin
            delta.new_tags.append(tag)

    def see_wall_time(self, wall: float) -> None:
        """The run starts at the wall time of its first event that has one (zero is none)."""
        if self.start_time is None and wall:
            self.start_time = wall

    def see_wall_times(self, sources: Iterable[tuple[np.ndarray, np.ndarray]]) -> None:
        """``see_wall_time`` for a batch applied out of record order: each source gives its
        records' indices in the batch (ascending) and their wall times; the earliest record of
        all that has a wall time counts."""
        if self.start_time is not None:
            return
        first: list[tuple[int, float]] = []
        for rows, walls in sources:
            nonzero = np.flatnonzero(walls != 0)
            if nonzero.size:
                first.append((int(rows[nonzero[0]]), float(walls[nonzero[0]])))
        if first:
            self.see_wall_time(min(first)[1])

    def purges_at(self, event: event_pb2.Event) -> bool:
        """Whether applying ``event`` purges the series: a SessionLog START, with purging on."""
        return (self.purge_orphaned_data and event.WhichOneof("what") == "session_log"
                and event.session_log.status == _START)

    # -- applying -----------------------------------------------------------------------------

    def apply_records(self, buf: memoryview, rows: Iterable[int], starts: np.ndarray, lengths: np.ndarray,
                      path: str, base: int, delta: RunDelta) -> None:
        """The general path: parse each record ``rows`` names with protobuf and apply it, in order."""
        for start, length, event in parse_events(buf, rows, starts, lengths, path, base, delta.problems):
            self.apply_event(event, buf, start, length, path, base, delta)

    def apply_event(self, event: event_pb2.Event, buf: memoryview, start: int, length: int, path: str,
                    base: int, delta: RunDelta) -> None:
        """Apply one parsed event (its record is ``buf[start:start + length]``, at ``base + start``)."""
        self.see_wall_time(event.wall_time)
        what = event.WhichOneof("what")
        if what == "summary":
            values = event.summary.value
            spans = ValueSpans(buf, start, length, len(values)) if len(values) > 1 else None
            for index, value in enumerate(values):
                self._value(value, index, spans, event, buf, start, length, path, base, delta)
        elif what == "file_version":
            self.file_version = event.file_version
        elif what == "session_log":
            if self.purges_at(event):
                self._purge(event.step, delta)
        elif what == "graph_def":
            self._graph_def = event.graph_def
            self.new_tag(GRAPH_TAG, "graphs", delta)
        elif what == "meta_graph_def":
            self._meta_graph_def = event.meta_graph_def
            self.new_tag(GRAPH_TAG, "graphs", delta)
        elif what == "tagged_run_metadata":
            tag = event.tagged_run_metadata.tag
            self._run_metadata[tag] = event.tagged_run_metadata.run_metadata
            self.new_tag(tag, "graph_tagged_run_metadata", delta)

    def _value(self, value: summary_pb2.Summary.Value, index: int, spans: ValueSpans | None,
               event: event_pb2.Event, buf: memoryview, start: int, length: int, path: str, base: int,
               delta: RunDelta) -> None:
        """Apply the ``index``-th value of ``event``; ``spans``: where each value's own bytes are in
        ``buf`` (an event of several values), so that a sampled value keeps those, never the
        whole event."""
        tag = data_compat.value_tag(value)
        plugin = self.name_tag(tag, value, delta)
        if plugin is None:
            return
        if plugin == "scalars":
            try:
                number = data_compat.scalar_of(value)
            except ValueError as err:
                delta.problems.append(Problem(path, base + start - HEADER_SIZE, f"tag {tag!r}: {err}"))
                return
            pending = self._pending_for(tag)
            pending.values.append(number)
            pending.steps.append(event.step)
            pending.walls.append(event.wall_time)
            return
        span = spans.of(index) if spans is not None else None
        if span is not None:
            start, length = span
            index = WHOLE_VALUE
        if plugin in data_compat.BLOB_PLUGINS:
            payload: BlobRef | Record = BlobRef(path, base + start, length, index)
        else:
            payload = Record(bytes(buf[start : start + length]), index)
        self._series(tag, plugin).add(Item(event.step, event.wall_time, payload), self.purge_orphaned_data)
        delta.points[tag] = delta.points.get(tag, 0) + 1

    def add_scalars(self, tag: str, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> None:
        """Points of a scalar tag decoded as columns, after those gathered before them."""
        self._pending_for(tag).add_columns(steps, walls, values)

    def add_items(self, tag: str, plugin: str, steps: np.ndarray, walls: np.ndarray,
                  payloads_of: Callable[[np.ndarray], list[BlobRef | Record]], delta: RunDelta) -> None:
        """Offer many items of a sampled tag in order (``Reservoir.add_many``)."""
        self._series(tag, plugin).add_many(steps, walls, payloads_of, self.purge_orphaned_data)
        delta.points[tag] = delta.points.get(tag, 0) + len(steps)

    def flush(self, delta: RunDelta) -> None:
        """Append the scalar points gathered so far to their columns (at the end of a reload)."""
        for tag, pending in self._pending.items():
            cols = self._scalars.get(tag)
            if cols is None:
                cols = self._scalars[tag] = ScalarColumns()
            steps, walls, values = pending.columns()
            cols.extend(steps, walls, values, self.purge_orphaned_data)
            delta.points[tag] = delta.points.get(tag, 0) + len(steps)
        self._pending.clear()

    def _series(self, tag: str, plugin: str) -> Reservoir:
        series = self._tensors.get(tag)
        if series is None:
            series = self._tensors[tag] = Reservoir(self.capacities.get(plugin, self.capacities["*"]))
        return series

    def _pending_for(self, tag: str) -> Pending:
        pending = self._pending.get(tag)
        if pending is None:
            pending = self._pending[tag] = Pending()
        return pending

    def _purge(self, step: int, delta: RunDelta) -> None:
        """A SessionLog START at ``step``: the run restarted there, so later data is orphaned."""
        if self.purged_at is not None:
            self.purged_at.append(step)
        self.flush(delta)
        for cols in self._scalars.values():
            delta.purged |= cols.purge(step) > 0
        for series in self._tensors.values():
            delta.purged |= series.purge(step) > 0

    # -- reading in another process (``tasks``) ------------------------------------------------

    def take_scalars(self) -> dict[str, ScalarColumns]:
        """Remove and return the scalar series (a forked reload sends them back packed, the
        rest of the run pickled; ``put_scalars`` sets them again)."""
        scalars, self._scalars = self._scalars, {}
        return scalars

    def put_scalars(self, scalars: dict[str, ScalarColumns]) -> None:
        self._scalars = scalars

    def for_task(self) -> RunData:
        """A copy for a task that reads the run's next bytes elsewhere (an executor's worker):
        every rule's state and the sampled series, which are bounded, but none of the scalar
        points, which are most of a run: the task's new points come back alone."""
        task = copy.copy(self)
        task._scalars = {tag: ScalarColumns() for tag in self._scalars}
        task._tensors = copy.deepcopy(self._tensors)
        task._metadata, task._plugins = dict(self._metadata), dict(self._plugins)
        task._run_metadata, task._pending = dict(self._run_metadata), {}
        task.decoded, task.purged_at = set(), []
        return task

    def absorb(self, done: RunData, delta: RunDelta) -> None:
        """Take what a task read (``done``, made by ``for_task``): its restarts cut this run's
        points as they would have here, then its points join their columns; every other fact
        and the sampled series are the task's."""
        for step in done.purged_at or ():
            for cols in self._scalars.values():
                delta.purged |= cols.purge(step) > 0
        for tag, cols in done._scalars.items():
            mine = self._scalars.get(tag)
            if mine is None:
                mine = self._scalars[tag] = ScalarColumns()
            mine.extend(*cols.columns(), self.purge_orphaned_data)
        self.file_version, self.start_time = done.file_version, done.start_time
        self._tensors, self._metadata, self._plugins = done._tensors, done._metadata, done._plugins
        self._graph_def, self._meta_graph_def = done._graph_def, done._meta_graph_def
        self._run_metadata = done._run_metadata

    # -- reading ------------------------------------------------------------------------------

    def tags(self) -> dict[str, str]:
        """``{tag: plugin name}``, tags sorted."""
        return dict(sorted(self._plugins.items()))

    def metadata(self, tag: str) -> summary_pb2.SummaryMetadata | None:
        """The first SummaryMetadata seen for a tag (it names the plugin)."""
        md = self._metadata.get(tag)
        if isinstance(md, str):  # _SIMPLE_VALUE
            md = summary_pb2.SummaryMetadata()
            md.CopyFrom(_SIMPLE_VALUE_METADATA)
            md.display_name = tag
            self._metadata[tag] = md
        return md  # type: ignore[return-value]

    def count(self, tag: str) -> int:
        """Points held for a series (every scalar point; sampled items otherwise), without copying."""
        cols = self._scalars.get(tag)
        if cols is not None:
            return cols.n
        series = self._tensors.get(tag)
        return len(series.items) if series is not None else 0

    def scalar_footprint(self) -> tuple[int, int]:
        """(points, bytes) held by all scalar columns, spare capacity included."""
        return (sum(cols.n for cols in self._scalars.values()),
                sum(cols.nbytes for cols in self._scalars.values()))

    def scalar_columns(self, tag: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Copies of a scalar series' step, wall time and value columns in step order; None if
        the tag is not a scalar tag.

        A scalar tag whose every value was rejected (each reported as a problem) has empty
        columns: its first value named it, so it is listed, as TensorBoard lists a tag from the
        first metadata it sees whatever its values hold, and ``tags()`` and this agree.
        """
        cols = self._scalars.get(tag)
        if cols is None:
            if self._plugins.get(tag) != "scalars":
                return None
            return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
        return cols.columns()

    def sampled(self, tag: str) -> list[Item] | None:
        """A sampled series' items in step order (a new list; arrival order differs only with
        purge_orphaned_data=False); None if the tag has no sampled series."""
        series = self._tensors.get(tag)
        return None if series is None else sorted(series.items, key=lambda it: it.step)

    def graph_events(self) -> tuple[bytes | None, bytes | None]:
        """The run's latest ``graph_def`` and ``meta_graph_def`` bytes, as logged (either may be
        None); decoding them, and so any damage, is the graph reader's (plugins/graph)."""
        return self._graph_def, self._meta_graph_def

    def run_metadata(self, tag: str) -> bytes:
        """Serialized RunMetadata logged under ``tag``; KeyError if there is none."""
        return self._run_metadata[tag]
