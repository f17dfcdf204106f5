"""What a board reads: one logdir, or several merged as TensorBoard's ``--logdir_spec`` does.

``MultiLogdir`` presents the read API the board uses (runs, tags, scalars, tensors, start times,
problems, reload) over several ``tbnb.Logdir`` objects; a named logdir prefixes its runs with
``name/`` (its root run ``.`` becomes ``name``), an unnamed one keeps its run names. A board
always reads through a MultiLogdir, so one logdir is just the one-entry case.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..reader.files.location import is_url
from ..reader.files.problems import Problem
from ..reader.logdir.group_frame import GroupSpec, groups_frame
from ..reader.logdir.logdir import Logdir, ReloadResult
from ..reader.runs.series import ScalarSeries, TensorSeries

if TYPE_CHECKING:
    import pandas as pd

    from tbnb.format.proto import summary_pb2

    from ..reader.plugins.graph import Graph

_URI = re.compile(r"[a-zA-Z][0-9a-zA-Z.]*://.*")


def parse_logdir_spec(spec: str) -> list[tuple[str | None, str]]:
    """``"name1:path1,name2:path2"`` -> ``[(name, path), ...]``, with TensorBoard's rules.

    An entry is ``name:path`` unless it is a URI (``gs://...``), starts with ``/``, or starts
    with a Windows drive; then it is a path with no name. Only the first ``:`` splits, so
    ``name:/a:b`` is name ``name`` and path ``/a:b``. Empty entries are skipped.
    """
    entries: list[tuple[str | None, str]] = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        if (_URI.match(item) is None and ":" in item and not item.startswith("/")
                and not os.path.splitdrive(item)[0]):
            name, _, path = item.partition(":")
        else:
            name, path = None, item
        if not path:
            raise ValueError(f"logdir_spec entry {item!r} has no path")
        entries.append((name or None, path))
    if not entries:
        raise ValueError(f"logdir_spec {spec!r} names no logdir")
    names = [n for n, _ in entries if n is not None]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"logdir_spec names {duplicates} more than once")
    return entries


def _point_count(lg: Logdir, run: str, tag: str) -> int:
    """Points held for one series, without copying its columns (0 if the run went away)."""
    try:
        return lg.count(run, tag)
    except KeyError:
        return 0


class MultiLogdir:
    """Several logdirs read as one; the run names say which logdir a run comes from."""

    def __init__(self, entries: list[tuple[str | None, Logdir]]) -> None:
        if not entries:
            raise ValueError("MultiLogdir needs at least one logdir")
        self.entries = list(entries)
        self._lock = threading.RLock()

    @classmethod
    def open(cls, logdir: str | os.PathLike[str] | None = None, logdir_spec: str | None = None, *,
             samples_per_plugin: str | Mapping[str, Any] | None = None,
             purge_orphaned_data: bool = True, storage_options: Mapping[str, Any] | None = None) -> MultiLogdir:
        """Exactly one of ``logdir`` and ``logdir_spec``; nothing is read yet (call ``reload``).

        A logdir that does not exist yet is accepted: a live board waits for training to start.
        ``storage_options`` go to the filesystem of every URL logdir (``s3://...``).
        """
        if (logdir is None) == (logdir_spec is None):
            raise ValueError("pass exactly one of logdir and logdir_spec")
        pairs = [(None, str(logdir))] if logdir is not None else parse_logdir_spec(str(logdir_spec))
        opts: dict[str, Any] = {"samples_per_plugin": samples_per_plugin,
                                "purge_orphaned_data": purge_orphaned_data}
        return cls([(name, Logdir(path, **opts, storage_options=storage_options if is_url(path) else None))
                     for name, path in pairs])

    # -- naming ------------------------------------------------------------------------------

    @staticmethod
    def _outer(name: str | None, run: str) -> str:
        if name is None:
            return run
        return name if run == "." else f"{name}/{run}"

    def _resolve(self, run: str) -> tuple[Logdir, str]:
        """The logdir and inner run name behind a merged run name; KeyError if none.

        A named logdir is found by prefix. An unnamed one is asked whether it has the run only
        when there are several (the common single logdir costs no run listing per call).
        """
        unnamed = []
        for name, lg in self.entries:
            if name is None:
                unnamed.append(lg)
            elif run == name:
                return lg, "."
            elif run.startswith(name + "/"):
                return lg, run[len(name) + 1:]
        for lg in unnamed:
            if len(unnamed) == 1 or run in lg.runs():
                return lg, run
        raise KeyError(f"no run {run!r} in {self.describe()}")

    # -- the read API ----------------------------------------------------------------------------

    @property
    def single(self) -> Logdir | None:
        """The logdir itself when there is one and it is unnamed."""
        return self.entries[0][1] if len(self.entries) == 1 and self.entries[0][0] is None else None

    def describe(self) -> str:
        """The logdir path, or the spec: for messages and reprs."""
        return ",".join(str(lg.path) if n is None else f"{n}:{lg.path}" for n, lg in self.entries)

    def missing(self) -> list[str]:
        """Logdirs that do not exist (yet)."""
        return [str(lg.path) for _, lg in self.entries if not lg.exists()]

    def runs(self) -> list[str]:
        """Run names, sorted. Named logdirs win over unnamed ones, and the first unnamed logdir
        over later ones, when two give the same name."""
        return sorted({self._outer(name, r) for name, lg in self.entries for r in lg.runs()})

    def tags(self, run: str) -> dict[str, str]:
        """``{tag: plugin}`` of one run."""
        lg, inner = self._resolve(run)
        return lg.tags(inner)

    def scalars(self, run: str, tag: str) -> ScalarSeries:
        """Every point of a scalar series."""
        lg, inner = self._resolve(run)
        return lg.scalars(inner, tag)

    def tensors(self, run: str, tag: str, *, as_written: bool = False) -> TensorSeries:
        """The sampled steps of a tensor series (``Logdir.tensors``: audio as ``[k]`` clips
        unless ``as_written``)."""
        lg, inner = self._resolve(run)
        return lg.tensors(inner, tag, as_written=as_written)

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None:
        """The tag's first SummaryMetadata (the reader's plugin views read it)."""
        lg, inner = self._resolve(run)
        return lg.metadata(inner, tag)

    def graphs(self, run: str) -> list[str]:
        """Tags of the run's graphs (``""``: its op graph), as ``Logdir.graphs``."""
        lg, inner = self._resolve(run)
        return lg.graphs(inner)

    def graph(self, run: str, tag: str = "") -> Graph | None:
        """One of the run's graphs, as ``Logdir.graph``."""
        lg, inner = self._resolve(run)
        return lg.graph(inner, tag)

    def run_start_time(self, run: str) -> float | None:
        """Wall time of the run's first event."""
        lg, inner = self._resolve(run)
        return lg.run_start_time(inner)

    def point_count(self, run: str, tag: str) -> int:
        """Points held for one series (scalars: all; tensors: the sample), without copying."""
        lg, inner = self._resolve(run)
        return _point_count(lg, inner, tag)

    @property
    def problems(self) -> list[Problem]:
        """Every problem seen in any of the logdirs."""
        return [p for _, lg in self.entries for p in lg.problems]

    def reload(self, first_bytes: int | None = None) -> ReloadResult:
        """Reload every logdir (one at a time: each reloads its runs in parallel already);
        ``first_bytes``: a preview, as ``Logdir.reload`` reads it."""
        merged = ReloadResult()
        with self._lock:
            for name, lg in self.entries:
                part = lg.reload(first_bytes)
                merged.new_runs += [self._outer(name, r) for r in part.new_runs]
                merged.removed_runs += [self._outer(name, r) for r in part.removed_runs]
                merged.purged_runs += [self._outer(name, r) for r in part.purged_runs]
                merged.new_tags.update({self._outer(name, r): t for r, t in part.new_tags.items()})
                merged.points.update({(self._outer(name, r), t): n for (r, t), n in part.points.items()})
                merged.problems += part.problems
        return merged

    def unread_bytes(self) -> int:
        """Bytes every logdir's last reload found and left unread (``Logdir.unread_bytes``)."""
        return sum(lg.unread_bytes() for _, lg in self.entries)

    def to_pandas(self, kind: str = "scalars", groups: GroupSpec = None) -> pd.DataFrame:
        """``Logdir.to_pandas`` of every logdir, run names as merged (groups across logdirs)."""
        import pandas as pd

        if groups:
            if kind != "scalars":
                raise ValueError(f"to_pandas(groups=...) aggregates scalars, not {kind!r}")
            return groups_frame(self, groups)

        frames = []
        for name, lg in self.entries:
            frame = lg.to_pandas(kind)
            frame["run"] = [self._outer(name, r) for r in frame["run"]]
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    @property
    def path(self) -> Path | str:
        """The first logdir's path (the one shown when there is a single logdir)."""
        return self.entries[0][1].path

    def __repr__(self) -> str:
        return f"<tbnb MultiLogdir {self.describe()!r}: {len(self.runs())} runs>"
