"""Findings on the weight:update ratio: which parameter tensors (and whether the whole network)
learn too slowly or too fast for their learning rate.

The ratio is ``||W_after - W_before|| / ||W_before||`` per optimizer step, logged as the scalar
tags ``update_ratio/<parameter name>`` and ``update_ratio/all`` (``tbnb.watch``,
``tbnb.keras.Watch``, or any writer using the same tags). CS231n's rule of thumb: it should sit
near 1e-3. Far below, that layer barely learns (its rate is too low for it); far above, the rate is
too high for it and the weights are being thrown around rather than tuned.

A single step's ratio is noisy (a small batch, a momentum burst), so a finding reads the *median*
of the last ``window`` logged points of each series: it describes where training is now, not
where it was, and one spike does not trigger it.

Thresholds (settable): ``low=1e-4`` and ``high=1e-2``, a decade either side of 1e-3 (the band a
ratio plot shades). A median below ``low`` gives ``update_ratio_low``, above ``high``
``update_ratio_high``. ``severity`` is ``"warning"``, or ``"error"`` when the median is a further
``error_factor`` (100) beyond the threshold (below 1e-6 or above 1 by default: that layer is frozen
in practice, or its weights are replaced each step).

Pure: reads only ``runs()``, ``tags()`` and ``scalars()`` of a ``source.LogdirLike``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .source import LogdirLike

#: The tag prefix of update-ratio series, and the tag of the whole network's ratio.
PREFIX = "update_ratio/"
ALL_TAG = "update_ratio/all"

#: Defaults, documented in the module doc.
WINDOW = 20
LOW = 1e-4
HIGH = 1e-2
ERROR_FACTOR = 100.0

#: The keys of every finding, in order.
KEYS = ("run", "metric", "finding", "step", "evidence", "advice", "severity")


def update_ratio_tags(source: LogdirLike, run: str) -> list[str]:
    """The run's scalar ``update_ratio/*`` tags: ``update_ratio/all`` first, then the rest in the
    reader's (sorted) order."""
    tags = [tag for tag, plugin in source.tags(run).items() if tag.startswith(PREFIX) and plugin == "scalars"]
    return sorted(tags, key=lambda tag: tag != ALL_TAG)


def update_ratio_findings(
    source: LogdirLike,
    runs: Iterable[str] | None = None,
    window: int = WINDOW,
    low: float = LOW,
    high: float = HIGH,
    error_factor: float = ERROR_FACTOR,
    min_points: int = 1,
) -> list[dict]:
    """``update_ratio_low`` / ``update_ratio_high`` findings for each ``update_ratio/*`` series of
    ``runs`` (default: every run), from the median of its last ``window`` finite points.

    Each finding is a dict with exactly the keys ``run, metric, finding, step, evidence, advice,
    severity``; ``metric`` is the tag (``update_ratio/all`` for the whole network), ``step`` the
    last step of the window. A series with fewer than ``min_points`` finite points in its window
    gives no finding. Raises ValueError for thresholds that do not make a band (0 < low < high)
    or a window below 1.
    """
    if window < 1 or min_points < 1:
        raise ValueError(f"window and min_points must be at least 1 (got window={window}, min_points={min_points})")
    if not (0 < low < high) or not np.isfinite(high):
        raise ValueError(f"thresholds must satisfy 0 < low < high (got low={low}, high={high})")
    if error_factor < 1:
        raise ValueError(f"error_factor must be at least 1 (got {error_factor})")
    findings: list[dict] = []
    for run in source.runs() if runs is None else runs:
        for tag in update_ratio_tags(source, run):
            finding = _series_finding(source, run, tag, window, low, high, error_factor, min_points)
            if finding is not None:
                findings.append(finding)
    return findings


def _series_finding(source: LogdirLike, run: str, tag: str, window: int, low: float, high: float,
                    error_factor: float, min_points: int) -> dict | None:
    series = source.scalars(run, tag)
    steps = np.asarray(series.step)
    values = np.asarray(series.value, dtype=np.float64)
    finite = np.isfinite(values)  # a writer's inf/NaN is no ratio: left out, not a finding
    steps, values = steps[finite][-window:], values[finite][-window:]
    if len(values) < min_points:
        return None
    median = float(np.median(values))
    if low <= median <= high:
        return None
    is_low = median < low
    whole = tag == ALL_TAG
    subject = "the whole network" if whole else f"parameter {tag[len(PREFIX):]!r}"
    first, last = int(steps[0]), int(steps[-1])
    span = f"step {last}" if first == last else f"steps {first}-{last}"
    evidence = (f"median update ratio {median:.3g} over the last {len(values)} logged point"
                f"{'s' if len(values) != 1 else ''} ({span}); "
                f"{'below' if is_low else 'above'} the threshold {low if is_low else high:g} "
                f"(CS231n: about 1e-3)")
    if is_low:
        advice = (f"Updates of {subject} are tiny next to its weights: it barely learns. "
                  f"Raise its learning rate (CS231n aims for a ratio near 1e-3).")
        severe = median < low / error_factor
    else:
        advice = (f"Updates of {subject} are large next to its weights: the learning rate is too "
                  f"high for it. Lower its learning rate (CS231n aims for a ratio near 1e-3).")
        severe = median > high * error_factor
    return dict(zip(KEYS, (run, tag, "update_ratio_low" if is_low else "update_ratio_high", last,
                           evidence, advice, "error" if severe else "warning")))
