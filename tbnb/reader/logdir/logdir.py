"""The public reader: a logdir's runs and series, reloaded incrementally."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tbnb.format.proto import summary_pb2

from ..events import data_compat
from ..files.location import open_storage
from ..files.problems import Problem
from ..files.storage import FilePath, StorageError
from ..plugins.embeddings import Embeddings, embeddings
from ..plugins.graph import Graph, GraphError
from ..plugins.graph.sources import (
    GRAPH_PLUGINS,
    PLUGIN_TAGGED_RUN_METADATA,
    graph_of_tag,
    graph_tags,
    run_graph,
)
from ..plugins.hparams_table import hparams_frame
from ..plugins.projector import ProjectorInfo, read_projector
from ..runs.payloads import decode_payload, readable
from ..runs.run import Run
from ..runs.run_data import RunDelta
from ..runs.series import LazyValues, ScalarSeries, TensorSeries
from ..runs.size_guidance import parse_samples_per_plugin
from .analysis import Analysis
from .batch_reload import reload_here
from .forked import reload_forked, spare_processes, worth_forking
from .gc_pause import pause_gc_if
from .group_frame import GroupSpec, groups_frame
from .tasks import reload_in

if TYPE_CHECKING:
    import pandas as pd


class LogdirError(ValueError):
    """A logdir that cannot be read at all (missing, not a directory, a URL whose storage
    cannot be reached or needs a package that is not installed)."""


@dataclass
class ReloadResult:
    """What a reload changed: runs that appeared or vanished, new tags, new points per series."""

    new_runs: list[str] = field(default_factory=list)
    removed_runs: list[str] = field(default_factory=list)
    new_tags: dict[str, list[str]] = field(default_factory=dict)
    points: dict[tuple[str, str], int] = field(default_factory=dict)
    purged_runs: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.new_runs or self.removed_runs or self.new_tags or self.points or self.purged_runs)


class Logdir(Analysis):
    """A TensorBoard logdir read by the kernel: runs, tags, scalars (every point), sampled tensors.

    Thread-safe: a poller may ``reload()`` while another thread reads series.
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 samples_per_plugin: str | Mapping[str, int | str] | None = None,
                 purge_orphaned_data: bool = True, bulk: bool = True, threads: int | None = None,
                 storage_options: Mapping[str, Any] | None = None, executor: Executor | None = None,
                 processes: int | None = None) -> None:
        #: Where changed runs are reloaded: None for this process's threads, or any
        #: ``concurrent.futures.Executor`` (a process pool, a Dask client's ``get_executor()``).
        self.executor = executor
        try:
            self.storage = open_storage(path, storage_options)
        except StorageError as err:
            raise LogdirError(str(err)) from None
        #: The logdir: a Path when local, the URL (without credentials) otherwise.
        self.path: Path | str = self.storage.directory(".")
        #: False forces the sequential, one-protobuf-per-record path (the bulk path's reference).
        self.bulk = bulk
        #: Runs reloaded at once (threads).
        self.threads = threads if threads is not None else min(4, os.cpu_count() or 1)
        #: Forked helpers sharing a reload of many runs (``forked``; None: one per spare core).
        self.processes = processes if processes is not None else spare_processes()
        self.capacities = parse_samples_per_plugin(samples_per_plugin)
        self.purge_orphaned_data = purge_orphaned_data
        self._runs: dict[str, Run] = {}
        self._problems: dict[Problem, None] = {}
        self._lock = threading.RLock()

    # -- loading ------------------------------------------------------------------------------

    def check(self) -> None:
        """Raise LogdirError if the logdir does not exist or is not a directory (for a URL: its
        storage cannot be listed, with a one-line reason)."""
        try:
            self.storage.check()
        except StorageError as err:
            raise LogdirError(str(err)) from None

    def exists(self) -> bool:
        """Whether the logdir is there now (a live board waits for a logdir that is not)."""
        return self.storage.exists()

    def reload(self, first_bytes: int | None = None) -> ReloadResult:
        """Discover runs and read only what is new in every event file; return what changed.

        ``first_bytes``: a preview that names the runs and their first tags at once — at most
        about that many new bytes (whole records) of each run's files, up to the first it leaves
        unfinished (small files of a many-run batch whole); the next reload reads the rest, and
        together they read what one reload reads (``unread_bytes`` says how much is left).
        """
        result = ReloadResult()
        with self._lock, pause_gc_if(first_read=not self._runs):  # (gc_pause says why)
            try:
                found, problems = self.storage.list_runs()
            except OSError as err:  # a listing that failed (remote): keep everything, report it
                result.problems.append(Problem(self.storage.shown, 0, str(err)))
                for problem in result.problems:
                    self._problems[problem] = None
                return result
            result.problems.extend(problems)
            for name in [n for n in self._runs if n not in found]:
                del self._runs[name]
                result.removed_runs.append(name)
                result.problems.append(Problem(str(self.run_directory(name)), 0,
                                               f"run {name!r} removed: its event files are gone, so its data was dropped"))
            jobs: list[tuple[str, Run, list[FilePath]]] = []
            touched = self.storage.touched_runs()  # (None: each run's files are stat-ed)
            for name, files in found.items():
                run = self._runs.get(name)
                if run is None:
                    run = self._runs[name] = Run(name, self.storage.directory(name), self.capacities,
                                                 self.purge_orphaned_data, self.bulk, self.storage)
                    result.new_runs.append(name)
                # (a poll mostly finds one run grown, and makes nothing for the rest)
                if run.changed(files, touched is None or name in touched):
                    jobs.append((name, run, files))
            with pause_gc_if(runs=len(jobs)):
                deltas = self._reload_runs(jobs, first_bytes)
            for (name, _, _), delta in zip(jobs, deltas):
                if delta.new_tags:
                    result.new_tags[name] = delta.new_tags
                for tag, n in delta.points.items():
                    result.points[(name, tag)] = n
                if delta.purged:
                    result.purged_runs.append(name)
                result.problems.extend(delta.problems)
            for problem in result.problems:
                self._problems[problem] = None
        return result

    def unread_bytes(self) -> int:
        """Bytes of the event files (as the last reload saw them) not read yet: 0 once a reload
        has read everything it found."""
        with self._lock:
            return sum(run.unread_bytes() for run in self._runs.values())

    def _reload_runs(self, jobs: list[tuple[str, Run, list[FilePath]]],
                     first_bytes: int | None = None) -> list[RunDelta]:
        """Reload runs, several at once when there are cores to spare (``first_bytes``: see
        ``reload``; tasks of an executor read everything): in an executor's tasks if there is
        one; many runs (or a few big ones) of a local logdir shared with forked copies of this process
        (``forked``); else here (``_reload_here``)."""
        if self.executor is not None and jobs:
            return reload_in(self.executor, [(run, files) for _, run, files in jobs])
        runs = [(run, files) for _, run, files in jobs]
        if (first_bytes is None and self.bulk and self.processes > 0 and not self.storage.remote
                and worth_forking(runs)):
            return reload_forked(runs, self._reload_here, self.processes)
        return self._reload_here(runs, first_bytes)

    def _reload_here(self, jobs: list[tuple[Run, list[FilePath]]], first_bytes: int | None = None) -> list[RunDelta]:
        """Reload runs in this process (``batch_reload.reload_here``)."""
        return reload_here(jobs, self.bulk, self.threads, first_bytes)

    # -- reading ------------------------------------------------------------------------------

    @property
    def problems(self) -> list[Problem]:
        """Every problem seen so far (corrupt records, unreadable files), each once."""
        with self._lock:
            return list(self._problems)

    def runs(self) -> list[str]:
        """Run names, sorted: paths relative to the logdir, ``"."`` for the logdir itself."""
        with self._lock:
            return sorted(self._runs)

    def _run(self, run: str) -> Run:
        try:
            return self._runs[run]
        except KeyError:
            raise KeyError(f"no run {run!r} in {str(self.path)!r}; runs: {sorted(self._runs)}") from None

    def tags(self, run: str) -> dict[str, str]:
        """``{tag: plugin name}`` for one run, tags sorted."""
        with self._lock:
            return self._run(run).data.tags()

    def count(self, run: str, tag: str) -> int:
        """Points held for a series (every scalar point; sampled items otherwise), without copying."""
        with self._lock:
            return self._run(run).data.count(tag)

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None:
        """The first SummaryMetadata seen for a tag (it names the plugin)."""
        with self._lock:
            return self._run(run).data.metadata(tag)

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        """Every point of a scalar series: int64 steps, float64 wall times and values."""
        with self._lock:
            cols = self._run(run).data.scalar_columns(tag)
        if cols is None:
            raise KeyError(f"run {run!r} has no scalar tag {tag!r}")
        return ScalarSeries(*cols)

    def tensors(self, run: str, tag: str, *, as_written: bool = False) -> TensorSeries:
        """The sampled steps of a non-scalar series (blobs read from disk when indexed); an item
        that cannot be decoded is reported in ``problems`` and left out (``payloads.readable``).
        Audio reads as TensorBoard's loader gives it, ``[k]`` clips, unless ``as_written`` (with
        its labels: ``data_compat.audio_clips``)."""
        with self._lock:
            data = self._run(run).data
            items = data.sampled(tag)
            if items is None:
                raise KeyError(f"run {run!r} has no tensor tag {tag!r}")
            plugin = data.plugin(tag)
            assert plugin is not None  # a sampled series has a plugin
        read_range = self.storage.read_range
        decode = partial(decode_payload, read_range=read_range)
        items, bad = readable(items, data.decoded, read_range)
        if bad:
            with self._lock:
                for item, reason in bad:
                    problem = Problem(str(self.run_directory(run)), 0,
                                      f"tag {tag!r} at step {item.step}: {reason}; skipped")
                    self._problems[problem] = None
        return TensorSeries(
            plugin,
            np.array([it.step for it in items], dtype=np.int64),
            np.array([it.wall_time for it in items], dtype=np.float64),
            LazyValues(items, decode if as_written else data_compat.read_as_tensorboard(plugin, decode)),
        )

    def graphs(self, run: str) -> list[str]:
        """Tags of the run's graphs for ``graph(run, tag)``: ``""`` (the op graph) first when the
        run logged one, then Keras models and run-metadata graphs in name order."""
        with self._lock:
            data = self._run(run).data
            return graph_tags(data.tags(), has_run_graph=any(b is not None for b in data.graph_events()))

    def graph(self, run: str, tag: str = "") -> Graph | None:
        """One of the run's graphs (``tag`` from ``graphs(run)``; ``""``: its op graph), or None
        when it has none. A graph that cannot be read is recorded in ``problems`` and reads as
        None; ``Graph.graph_def`` keeps the GraphDef bytes it came from."""
        with self._lock:
            data = self._run(run).data
            graph_def, meta_graph_def = data.graph_events()
            plugin = data.plugin(tag) if tag else None
            if tag and plugin not in GRAPH_PLUGINS:
                raise KeyError(f"run {run!r} has no graph tag {tag!r}; graph tags: {self.graphs(run)}")
            profile = data.run_metadata(tag) if plugin == PLUGIN_TAGGED_RUN_METADATA else None
        try:
            if not tag:
                return run_graph(graph_def, meta_graph_def)
            if profile is not None:
                return graph_of_tag(PLUGIN_TAGGED_RUN_METADATA, profile, base=run_graph(graph_def, meta_graph_def))
            series = self.tensors(run, tag)
            if not len(series.step):
                return None
            return graph_of_tag(plugin, series.values[len(series.step) - 1])
        except GraphError as err:
            with self._lock:
                self._problems[Problem(str(self.run_directory(run)), 0, f"graph {tag!r}: {err}")] = None
            return None

    def hparams(self, join: str | None = None) -> pd.DataFrame:
        """The hparams experiment as a table: one row per trial (session), its hparams as
        columns, each metric's last value, the trial's run, status and start time;
        ``join="parent"`` also joins the scalars of each trial's parent run (torch's
        ``add_hparams`` writes the trial in a sub-run of the run holding the training curves)."""
        return hparams_frame(self, join)

    def run_metadata(self, run: str, tag: str) -> bytes:
        """Serialized RunMetadata logged under ``tag`` (TaggedRunMetadata events)."""
        with self._lock:
            return self._run(run).data.run_metadata(tag)

    def run_start_time(self, run: str) -> float | None:
        """Wall time of the run's first event (for TensorBoard's 'relative' x axis)."""
        with self._lock:
            return self._run(run).data.start_time

    def run_directory(self, run: str) -> Path:
        """Where the run's event files are (for a URL logdir: the run's URL, as a str)."""
        return self.storage.directory(run)  # type: ignore[return-value]

    def embeddings(self, run: str) -> Embeddings:
        """Every embedding of the run's projector config(s), by tensor name (``"."``: the logdir
        itself): ``e.tensor`` (float32 [N, D]), ``e.metadata``, ``e.sprite``; what cannot be read
        is listed in the result's ``problems``."""
        if self.storage.remote:
            found = Embeddings()
            found.problems.append(f"{self.storage.shown}: embeddings are read from local logdirs only")
            return found
        return embeddings(self, run)

    def projector(self, run: str) -> ProjectorInfo | None:
        """The run's projector config and embeddings (the root is run ``"."`` even with no events).

        A malformed config is recorded in ``problems`` and reads as None.
        """
        if self.storage.remote:  # projector configs name local files
            return None
        directory = self.run_directory(run)
        try:
            return read_projector(run, directory)
        except (OSError, ValueError) as err:
            with self._lock:
                self._problems[Problem(str(directory), 0, f"projector config: {err}")] = None
            return None

    def to_pandas(self, kind: str = "scalars", groups: GroupSpec = None) -> pd.DataFrame:
        """Long format: run, tag, step, wall_time, value; ``kind`` names a plugin ("tensors": all).

        For non-scalar kinds, ``value`` holds each step's array (blobs are read). With
        ``groups`` (a regex with a named group ``group``, or hparam names), the run groups'
        scalar statistics instead: group, tag, step, mean, std, min, max, median, n
        (``tbnb.reader.logdir.run_groups`` says how they are computed).
        """
        import pandas as pd

        if groups:
            if kind != "scalars":
                raise ValueError(f"to_pandas(groups=...) aggregates scalars, not {kind!r}")
            return groups_frame(self, groups)

        frames: list[pd.DataFrame] = []
        with self._lock:
            pairs = [(run, tag, plugin) for run in sorted(self._runs)
                     for tag, plugin in self._runs[run].data.tags().items()]
        for run, tag, plugin in pairs:
            if kind == "scalars" and plugin == "scalars":
                s = self.scalars(run, tag)
                frames.append(pd.DataFrame({"run": run, "tag": tag, "step": s.step,
                                            "wall_time": s.wall_time, "value": s.value}))
            elif kind != "scalars" and plugin != "scalars" and (kind in ("tensors", plugin)):
                try:
                    t = self.tensors(run, tag)
                except KeyError:  # a tag of no sampled series (a graph)
                    continue
                frames.append(pd.DataFrame({"run": run, "tag": tag, "step": t.step,
                                            "wall_time": t.wall_time, "value": list(t.values)}))
        if not frames:
            return pd.DataFrame({"run": pd.Series(dtype=str), "tag": pd.Series(dtype=str),
                                 "step": pd.Series(dtype=np.int64), "wall_time": pd.Series(dtype=float),
                                 "value": pd.Series(dtype=float if kind == "scalars" else object)})
        return pd.concat(frames, ignore_index=True)

    def __repr__(self) -> str:
        with self._lock:
            n_tags = sum(len(r.data.tags()) for r in self._runs.values())
            return f"<tbnb.Logdir {str(self.path)!r}: {len(self._runs)} runs, {n_tags} tags>"


def load(logdir: str | os.PathLike[str], *, samples_per_plugin: str | Mapping[str, Any] | None = None,
         purge_orphaned_data: bool = True, storage_options: Mapping[str, Any] | None = None,
         executor: Executor | None = None, processes: int | None = None) -> Logdir:
    """Read a whole logdir now; ``reload()`` the result later to read only what is new.

    ``logdir`` is a local path or any fsspec URL (``s3://bucket/exp``, ``gs://...``,
    ``memory://...``); ``storage_options`` go to its filesystem (endpoint, credentials).
    ``executor`` (any ``concurrent.futures.Executor``, e.g. ``dask.distributed.Client(...)
    .get_executor()``) parses changed runs in its tasks; only new points and sampled items
    come back. The executor's workers need tbnb and, for URLs, their own access to the storage.
    ``processes``: forked helpers that share a reload of many runs or a few big ones (None: one per spare core;
    0: none; ``forked``).
    """
    lg = Logdir(logdir, samples_per_plugin=samples_per_plugin, purge_orphaned_data=purge_orphaned_data,
                storage_options=storage_options, executor=executor, processes=processes)
    lg.check()
    lg.reload()
    return lg
