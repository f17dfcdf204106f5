"""How several scalar series of one run are put side by side: the one alignment rule of the
diagnostics, used by derived series, train/validation pairs and the findings alike.

- **One point per step: the last one.** TensorBoard keeps every point a writer logged, so a step
  can hold several (a resumed run that logged the step again, two writers in one run). The reader
  hands them out in step order, stable, so points of one step keep the order they were read in;
  the last of them is the one used (the newest value written for that step, as a restarted run's
  latest write wins).
- **Within one run, at the steps where every series has a point.** No interpolation and no
  carrying a value forward: a derived point exists only where all its inputs were logged (the
  rule MLflow's expressions use). Its wall time is the latest of the inputs' wall times at that
  step: the moment the derived point could first have been computed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..source import LogdirLike


def scalar_tags(source: LogdirLike, run: str) -> list[str]:
    """The run's scalar tags, in the reader's (sorted) order."""
    return [tag for tag, plugin in source.tags(run).items() if plugin == "scalars"]


def last_per_step(step: np.ndarray, *columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """``step`` without repeats (ascending, as the reader gives it) and each column's value at the
    last point of each step."""
    step = np.asarray(step)
    if len(step) < 2:
        return (step, *columns)
    last = np.flatnonzero(np.append(step[1:] != step[:-1], True))
    return (step[last], *(np.asarray(c)[last] for c in columns))


def series(source: LogdirLike, run: str, tag: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One scalar series of one run under the one-point-per-step rule: step, wall_time, value."""
    s = source.scalars(run, tag)
    step, wall, value = last_per_step(np.asarray(s.step, dtype=np.int64),
                                      np.asarray(s.wall_time, dtype=np.float64),
                                      np.asarray(s.value, dtype=np.float64))
    return step, wall, value


def aligned(source: LogdirLike, run: str, tags: Sequence[str]
            ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """The steps where every tag of ``tags`` has a point in ``run``, the latest wall time of the
    inputs at each, and each tag's value there (the module doc gives the rule)."""
    steps: np.ndarray | None = None
    parts = []
    for tag in dict.fromkeys(tags):
        step, wall, value = series(source, run, tag)
        parts.append((tag, step, wall, value))
        steps = step if steps is None else np.intersect1d(steps, step, assume_unique=True)
    if steps is None:
        return np.empty(0, np.int64), np.empty(0), {}
    wall_time = np.full(len(steps), -np.inf)
    values: dict[str, np.ndarray] = {}
    for tag, step, wall, value in parts:
        where = np.searchsorted(step, steps)  # every common step is in ``step``
        values[tag] = value[where]
        wall_time = np.maximum(wall_time, wall[where])
    return steps, wall_time, values


def runs_holding(source: LogdirLike, tags: Iterable[str], runs: Iterable[str] | None = None) -> list[str]:
    """The runs (of ``runs``, default all) that have every one of ``tags`` as a scalar tag."""
    wanted = set(tags)
    chosen = source.runs() if runs is None else list(runs)
    return [run for run in chosen if wanted <= set(scalar_tags(source, run))]


def check_runs(source: LogdirLike, runs: Iterable[str] | None) -> list[str]:
    """``runs`` as a list (default: every run), refusing with ValueError a name the source lacks
    (and naming the closest ones)."""
    known = source.runs()
    if runs is None:
        return known
    if isinstance(runs, str):
        runs = [runs]
    chosen, known_set = list(runs), set(known)
    missing = [run for run in chosen if run not in known_set]
    if missing:
        raise ValueError(f"no run {missing[0]!r}{closest(missing[0], known)}")
    return chosen


def closest(name: str, known: Iterable[str]) -> str:
    """``"; closest: 'a', 'b'"`` for the names of ``known`` nearest ``name`` (difflib), or ""."""
    import difflib

    near = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.5)
    return f"; closest: {', '.join(repr(n) for n in near)}" if near else ""
