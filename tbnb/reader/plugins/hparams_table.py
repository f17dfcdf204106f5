"""The hparams table: one row per session (trial), its hparams and the last value of each metric.

Metrics are joined from scalars, as TensorBoard's hparams plugin does: metric ``(group, tag)`` of
a session is the last value of scalar ``tag`` in run ``<session run>/<group>``. The metrics are
those the experiment defines; when none is defined, every scalar tag of a session's run and of the
runs under it (TensorBoard's rule: a run belongs to the session whose run is its longest prefix).

``join="parent"`` also joins every scalar of the session's parent run. torch's ``add_hparams``
writes each trial into a new timestamped sub-run (``<run>/<time>``) holding only the metric values
passed to it, while the training curves stay in ``<run>``: the parent join puts those curves'
last values in the trial's row (pytorch issue 32651).

Column keys: a metric's key is its tag (``group/tag`` outside the session's own run); a parent
metric's key is its tag. A key already taken (by the fixed columns ``run``, ``status``,
``start_time``, an hparam, or a session metric) gets a prefix: ``hparam:``, ``metric:`` or
``parent:``. The columns say where each value came from, so the table is never ambiguous.
"""

from __future__ import annotations

import math
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .hparams import Experiment, HParamDef, HParamValue, Session, read_hparams
from .source import LogdirLike, PluginProblem

if TYPE_CHECKING:
    import pandas as pd

#: The fixed columns of every row.
FIXED_COLUMNS = ("run", "status", "start_time")
JOINS = (None, "parent")


@dataclass(frozen=True)
class HParamColumn:
    """A table column holding an hparam's values."""

    key: str
    definition: HParamDef


@dataclass(frozen=True)
class MetricColumn:
    """A table column holding a metric's last values: scalar ``tag`` in run ``group`` relative to
    the session's run (``source="session"``), or in the session's parent run (``"parent"``)."""

    key: str
    tag: str
    group: str = ""
    source: str = "session"
    display_name: str = ""


@dataclass(frozen=True)
class Trial:
    """One row: the session, and per metric key its last value and that value's step (NaN and
    None where the metric has no point)."""

    session: Session
    metrics: dict[str, float]
    metric_steps: dict[str, int | None]


@dataclass(frozen=True)
class HParamsTable:
    """The joined table, in a form a dashboard can send without pandas."""

    experiment: Experiment
    hparam_columns: list[HParamColumn]
    metric_columns: list[MetricColumn]
    trials: list[Trial]
    join: str | None = None
    problems: list[PluginProblem] = field(default_factory=list)

    def rows(self) -> list[dict[str, HParamValue | float | int | str | None]]:
        """Every trial as ``{column key: value}`` (fixed columns, hparams, metrics)."""
        out = []
        for t in self.trials:
            row: dict[str, HParamValue | float | int | str | None] = {
                "run": t.session.run, "status": t.session.status, "start_time": t.session.start_time}
            row.update({c.key: t.session.hparams.get(c.definition.name) for c in self.hparam_columns})
            row.update({c.key: t.metrics[c.key] for c in self.metric_columns})
            out.append(row)
        return out


def _unique(key: str, prefix: str, taken: set[str]) -> str:
    candidate, n = key, 1
    while candidate in taken:
        candidate = f"{prefix}{key}" if n == 1 else f"{prefix}{key} ({n})"
        n += 1
    taken.add(candidate)
    return candidate


def parent_run(run: str) -> str:
    """The run directory above ``run`` (``"."`` for a top-level run; ``"."`` has none: "")."""
    if run == ".":
        return ""
    return run.rsplit("/", 1)[0] if "/" in run else "."


def metric_run(session_run: str, group: str) -> str:
    """The run holding metric group ``group`` of a session (TensorBoard joins the paths)."""
    return posixpath.normpath(posixpath.join(session_run, group)) if group else session_run


def _owner(session_runs: list[str], run: str) -> str | None:
    """The session whose run is the longest path prefix of ``run`` (or is ``run``)."""
    best = None
    for s in session_runs:
        if (s == "." or run == s or run.startswith(s + "/")) and (best is None or len(s) > len(best)):
            best = s
    return best


def _inferred_metrics(scalars: dict[str, list[str]], sessions: list[Session]) -> list[tuple[str, str]]:
    """``(group, tag)`` of every scalar in a session's run or below it, sorted."""
    session_runs = [s.run for s in sessions]
    names: set[tuple[str, str]] = set()
    for run, tags in scalars.items():
        owner = _owner(session_runs, run)
        if owner is None:
            continue
        group = "" if run == owner else (run if owner == "." else run[len(owner) + 1:])
        names.update((group, tag) for tag in tags)
    return sorted(names)


def _last(source: LogdirLike, run: str, tag: str, scalars: dict[str, set[str]]) -> tuple[float, int | None]:
    if tag not in scalars.get(run, ()):
        return math.nan, None
    series = source.scalars(run, tag)
    if not len(series.value):
        return math.nan, None
    return float(series.value[-1]), int(series.step[-1])


def hparams_table(source: LogdirLike, join: str | None = None) -> HParamsTable:
    """Sessions joined with their metrics' last values (see the module doc); ``join`` is None or
    ``"parent"``."""
    if join not in JOINS:
        raise ValueError(f"join must be one of {JOINS}, got {join!r}")
    data = read_hparams(source)
    scalars = {run: [t for t, p in source.tags(run).items() if p == "scalars"] for run in source.runs()}
    scalar_sets = {run: set(tags) for run, tags in scalars.items()}
    taken = set(FIXED_COLUMNS)
    hcols = [HParamColumn(_unique(d.name, "hparam:", taken), d) for d in data.experiment.hparams]
    if data.experiment.metrics:
        names = [(m.group, m.tag, m.display_name) for m in data.experiment.metrics]
    else:
        names = [(g, t, "") for g, t in _inferred_metrics(scalars, data.sessions)]
    mcols = [MetricColumn(_unique(f"{g}/{t}" if g else t, "metric:", taken), t, g, "session", d)
             for g, t, d in names]
    if join == "parent":
        parents = {parent_run(s.run) for s in data.sessions} & set(scalars)
        tags = sorted({t for p in parents for t in scalars[p]})
        mcols += [MetricColumn(_unique(t, "parent:", taken), t, "", "parent") for t in tags]
    trials = []
    for s in data.sessions:
        values: dict[str, float] = {}
        steps: dict[str, int | None] = {}
        for c in mcols:
            run = parent_run(s.run) if c.source == "parent" else metric_run(s.run, c.group)
            values[c.key], steps[c.key] = _last(source, run, c.tag, scalar_sets)
        trials.append(Trial(s, values, steps))
    return HParamsTable(data.experiment, hcols, mcols, trials, join, data.problems)


def hparams_frame(source: LogdirLike, join: str | None = None) -> pd.DataFrame:
    """The hparams table as a DataFrame: columns ``run``, the hparams, the metrics, ``status``,
    ``start_time`` (seconds since the epoch); one row per session, in run order.

    ``frame.attrs`` holds ``hparams`` and ``metrics`` (the column keys of each kind) and
    ``problems`` (text of every hparams summary that could not be read).
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("hparams_frame needs pandas: pip install 'tbnb[pandas]'") from None
    table = hparams_table(source, join)
    hkeys = [c.key for c in table.hparam_columns]
    mkeys = [c.key for c in table.metric_columns]
    columns = ["run", *hkeys, *mkeys, "status", "start_time"]
    rows = table.rows()
    hset, mset = set(hkeys), set(mkeys)  # membership per column: sets, for thousands of hparams
    frame = pd.DataFrame({key: pd.Series([r[key] for r in rows], dtype=_dtype(key, hset, mset, rows))
                          for key in columns}, columns=columns)
    frame.attrs.update(hparams=hkeys, metrics=mkeys, problems=[str(p) for p in table.problems])
    return frame


def _dtype(key: str, hkeys: set[str], mkeys: set[str], rows: list[dict]) -> str | None:
    """float64 for metrics and start times; hparams keep pandas' inference but an all-empty
    column is object (so that a bool/str hparam never turns into NaN floats)."""
    if key in mkeys or key == "start_time":
        return "float64"
    if key in hkeys and all(r[key] is None for r in rows):
        return "object"
    return None
