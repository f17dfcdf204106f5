"""Each run's best point ("best, not last") and the run-comparison settings of scalar cards:
``best``, ``focus``, ``partition_x`` and ``restarts`` (``CompareTraits``, on the Board).

The best point is computed in the kernel over every point of the series the reader keeps, on
the raw values: smoothing never applies (a smoothed minimum is not a value the run reached).
NaN values are skipped; +/-inf counts (an infinite loss is the min of "max"). At a tie the
earliest step wins, so the mark does not move when a later point only equals it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import traitlets
from traitlets import Bool, Enum, Unicode

from ...reader.runs.series import ScalarSeries
from ..request import RequestError

#: The values of ``Board.best`` besides None.
BEST_MODES = ("min", "max")
#: ``Board.restarts``: how a run whose steps went back is drawn (see ``CompareTraits``).
RESTART_MODES = ("purge",)


class Best(NamedTuple):
    """A run's best point: its value, step and position in the series."""

    value: float
    step: int
    index: int


def best_point(series: ScalarSeries, mode: str | None) -> Best | None:
    """The series' min (``mode="min"``) or max point; None for no mode or no non-NaN value."""
    if mode is None:
        return None
    if mode not in BEST_MODES:
        raise RequestError(f"'best' must be one of {list(BEST_MODES)} or null, got {mode!r}")
    values = series.value.astype(np.float64)
    finite = ~np.isnan(values)
    if not finite.any():
        return None
    masked = np.where(finite, values, np.inf if mode == "min" else -np.inf)
    i = int(np.argmin(masked) if mode == "min" else np.argmax(masked))  # first occurrence at ties
    return Best(float(values[i]), int(series.step[i]), i)


def parse_best(content: dict[str, Any]) -> str | None:
    """The request's ``best`` field: "min", "max" or None (absent)."""
    mode = content.get("best")
    if mode is not None and mode not in BEST_MODES:
        raise RequestError(f"'best' must be one of {list(BEST_MODES)} or null, got {mode!r}")
    return mode


def best_fields(series: ScalarSeries, mode: str | None, x: np.ndarray,
                drawable: np.ndarray | None) -> dict[str, Any]:
    """The ``best`` entry of a series reply: {"value", "step", "x"}, or None (value "Infinity"
    or "-Infinity" when infinite). ``x`` is each
    point's x on the card's axis, ``drawable`` the indices of the points that have one (None:
    all); x is None when the best point has none."""
    found = best_point(series, mode)
    if found is None:
        return {"best": None}
    placed = drawable is None or bool(np.isin(found.index, drawable))
    bx = float(x[found.index]) if placed and np.isfinite(x[found.index]) else None
    # JSON has no infinity: TensorBoard's JSON downloads' spelling, which JS's Number() reads.
    value: float | str = found.value if np.isfinite(found.value) else ("Infinity" if found.value > 0 else "-Infinity")
    return {"best": {"value": value, "step": found.step, "x": bx}}


class CompareTraits(traitlets.HasTraits):
    """Settings for comparing runs on scalar cards, synced with the page.

    ``best``: "min" | "max" | None. Each card marks every run's best point (its raw min or max
    over every point the reader keeps; smoothing does not apply), hover lists it, ``Board.view``
    has ``best`` and ``best_step`` columns and CSV downloads ``Best`` and ``Best step`` columns.

    ``focus``: a run name or None. Its lines are drawn on top at full strength on every card,
    the others fade. Clicking a line sets it, clicking it again or pressing Escape clears it.

    ``partition_x``: TensorBoard's "Partition non-monotonic X axis" (off by default, as there).
    On, a run whose x goes back (a wall clock set back, an x tag that decreased) is drawn as
    separate segments, never with a line drawn backwards.

    ``restarts``: "purge", the only mode. A run restarted from an earlier step is drawn as the
    reader keeps it: TensorBoard's purge drops the points at or after the step it restarted
    from, so the steps are increasing and nothing remains of the abandoned branch to draw as a
    separate segment. Use ``x_axis = "relative_step"`` to line up runs that started at
    different steps.
    """

    best = Enum(BEST_MODES, default_value=None, allow_none=True).tag(sync=True)
    focus = Unicode(None, allow_none=True).tag(sync=True)
    partition_x = Bool(False).tag(sync=True)
    restarts = Enum(RESTART_MODES, default_value="purge").tag(sync=True)
