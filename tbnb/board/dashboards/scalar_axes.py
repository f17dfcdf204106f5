"""The x axes of scalar cards beyond TensorBoard's three: log step, relative step, and any other
scalar tag (Aim's "align by metric": each point drawn at the value another tag had at its step).

The fixed axes are constants.json's ``x_axes`` (``step``, ``relative``, ``wall``, ``log_step``,
``relative_step``); any other name is a scalar tag. Every x is computed in the kernel from the
full series, so that overviews and zoom replies are exact for every run.

- ``log_step``: x is the step, drawn on a log axis. A log axis cannot place a step <= 0, so
  those points are left out of the drawing (``dropped`` counts them); downloads, ``Board.view``
  and the best point still include them. Downsampling buckets are even on the log scale.
- ``relative_step``: x is the step minus the series' first step, so runs that started (or
  restarted from a checkpoint) at different steps line up at 0.
- a tag, e.g. ``epoch``: x of a point at step s is the x tag's value at the greatest step <= s
  in the same run (the value in force when the point was written; at equal steps the x tag's
  last point). Points before the x tag's first step, or where it is NaN, are left out; a run
  without the x tag has no x at all and is listed as ``absent`` in the reply.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from traitlets import TraitError, TraitType

from ...reader.runs.series import ScalarSeries
from ..protocol import X_AXES
from ..request import RequestError
from ..sources import MultiLogdir
from .common import x_values

#: Axes whose x is the step itself (the page shows them with step ticks).
STEP_AXES = ("step", "log_step")


def is_tag_axis(axis: str) -> bool:
    """Whether ``axis`` names a scalar tag rather than one of the fixed axes."""
    return axis not in X_AXES


def parse_axis(content: dict[str, Any], default: str) -> str:
    """The request's ``x_axis``: a fixed axis or a tag name; RequestError for anything else."""
    axis = content.get("x_axis", default)
    if not isinstance(axis, str) or not axis:
        raise RequestError(f"'x_axis' must be one of {list(X_AXES)} or a scalar tag, got {axis!r}")
    return axis


def check_tag_axis(source: MultiLogdir, axis: str) -> None:
    """RequestError unless ``axis`` is a fixed axis or a scalar tag of at least one run."""
    if not is_tag_axis(axis):
        return
    for run in source.runs():
        try:
            if source.tags(run).get(axis) == "scalars":
                return
        except KeyError:
            continue
    raise RequestError(f"'x_axis' must be one of {list(X_AXES)} or a scalar tag of the logdir; "
                       f"no run has a scalar tag {axis!r}")


def x_at_steps(x_tag: ScalarSeries, steps: np.ndarray) -> np.ndarray:
    """The x tag's value at the greatest of its steps <= each of ``steps`` (NaN before its first).

    ``x_tag`` is in step order (the reader keeps it so); at a repeated step its last point wins.
    """
    pos = np.searchsorted(x_tag.step, steps, side="right") - 1
    out = np.full(len(steps), np.nan)
    have = pos >= 0
    out[have] = x_tag.value[pos[have]].astype(np.float64)
    return out


def series_x(source: MultiLogdir, run: str, series: ScalarSeries, axis: str,
             start: float | None) -> tuple[np.ndarray, np.ndarray | None] | None:
    """x of each point of ``series`` on ``axis`` and the points that can be drawn there.

    Returns (x, keep): keep is None when every point can be drawn, else the indices of those
    that can (the others have no x on this axis). None when the run has no x at all (a tag
    axis the run lacks).
    """
    if axis == "log_step":
        x = series.step.astype(np.float64)
        keep = np.flatnonzero(x > 0)
        return x, None if len(keep) == len(x) else keep
    if axis == "relative_step":
        x = series.step.astype(np.float64)
        return (x - x[0] if len(x) else x), None
    if not is_tag_axis(axis):
        return x_values(series, axis, start), None
    try:
        if source.tags(run).get(axis) != "scalars":
            return None
        x_tag = source.scalars(run, axis)
    except KeyError:
        return None
    x = x_at_steps(x_tag, series.step)
    keep = np.flatnonzero(~np.isnan(x))
    return x, None if len(keep) == len(x) else keep


def bucket_x(x: np.ndarray, axis: str) -> np.ndarray:
    """The x the downsampler buckets by: even pixel columns on the axis as drawn."""
    return np.log10(x) if axis == "log_step" else x


class XAxis(TraitType[str, str]):
    """``Board.x_axis``: one of the fixed axes (constants.json ``x_axes``) or a scalar tag's name.

    A tag is not checked against the logdir here (it may appear later); a card asking for an
    x tag that no run has shows the error.
    """

    default_value = "step"
    info_text = f"one of {list(X_AXES)} or the name of a scalar tag"

    def validate(self, obj: Any, value: Any) -> str:
        if isinstance(value, str) and value:
            return value
        raise TraitError(f"x_axis must be {self.info_text}, got {value!r}")
