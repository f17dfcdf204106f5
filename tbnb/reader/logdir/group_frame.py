"""Run groups read from a logdir: which runs form a group (by regex or by hparams), and the
groups' statistics as a DataFrame (``Logdir.to_pandas(groups=...)``).

The statistics and the rules (common step grid, non-finite values, bands) are in
``run_groups``; this module only reads the series and the hparams they need.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plugins.hparams import read_hparams
from ..plugins.source import LogdirLike
from .run_groups import aggregate, group_runs, hparam_groups

if TYPE_CHECKING:
    import pandas as pd

#: A grouping: a regex with a named group ``group``, or hparam names (None / "" / []: none).
GroupSpec = str | Sequence[str] | None

#: The columns of ``to_pandas(groups=...)``.
FRAME_COLUMNS = ("group", "tag", "step", "mean", "std", "min", "max", "median", "n")


def run_hparams(source: LogdirLike, runs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each run's hparam values: its own session's, else the session of the nearest parent
    directory (a trial's metrics are often written to runs below its session run)."""
    sessions = {s.run: s.hparams for s in read_hparams(source).sessions}
    out: dict[str, dict[str, Any]] = {}
    for run in runs:
        parts = run.split("/")
        for cut in range(len(parts), 0, -1):
            owner = "/".join(parts[:cut])
            if owner in sessions:
                out[run] = sessions[owner]
                break
        else:
            if "." in sessions:
                out[run] = sessions["."]
    return out


def resolve(source: LogdirLike, runs: Iterable[str], spec: GroupSpec) -> tuple[dict[str, list[str]], list[str]]:
    """``({group: members}, [runs alone])`` for a regex or a list of hparam names."""
    runs = list(runs)
    if spec is None or isinstance(spec, str):
        return group_runs(runs, spec)
    names = list(spec)
    if not names:
        return {}, runs
    return hparam_groups(runs, run_hparams(source, runs), names)


def groups_frame(source: LogdirLike, spec: GroupSpec) -> pd.DataFrame:
    """Long format, one row per group, scalar tag and grid step: ``FRAME_COLUMNS``.

    A run alone is a group of one (named after the run). ValueError for a bad regex.
    """
    import pandas as pd

    groups, alone = resolve(source, sorted(source.runs()), spec)
    for run in alone:
        groups[run] = [run]
    columns: dict[str, list[np.ndarray]] = {k: [] for k in FRAME_COLUMNS}
    for name, members in groups.items():
        tags = sorted({t for run in members for t, plugin in source.tags(run).items() if plugin == "scalars"})
        for tag in tags:
            found = []
            for run in members:
                if source.tags(run).get(tag) == "scalars":
                    s = source.scalars(run, tag)
                    found.append((s.step, s.value))
            stats, _ = aggregate(found)
            size = stats.step.size
            if not size:
                continue
            columns["group"].append(np.full(size, name, dtype=object))
            columns["tag"].append(np.full(size, tag, dtype=object))
            for key in FRAME_COLUMNS[2:]:
                columns[key].append(getattr(stats, key))
    dtypes = {"group": object, "tag": object, "step": np.int64, "n": np.int64}
    return pd.DataFrame({k: (np.concatenate(v) if v else np.empty(0, dtype=dtypes.get(k, np.float64)))
                         for k, v in columns.items()})
