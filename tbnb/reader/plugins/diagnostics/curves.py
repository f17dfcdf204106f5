"""Summaries of a curve that the rules read: robust to a minibatch's noise, linear in its length.

A loss logged every step is noisy; the rules never compare single points where a level is meant.
``chunk_medians`` cuts a curve into (at most) ``bins`` chunks of equal point count and takes each
chunk's median: the curve's level at ``bins`` places, with a spike or two ignored. ``train_at``
reads a training curve at a validation curve's steps: validation is usually logged once an epoch
and training every step, so the training value at a validation step is the median of the training
points since the previous validation step (the epoch's training level), or the last training point
before it when there is none in between.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Chunks:
    """A curve's chunk medians; ``first``/``last`` are each chunk's first and last index into the
    curve, ``fraction`` where each chunk ends as a fraction of the curve's points."""

    median: np.ndarray
    first: np.ndarray
    last: np.ndarray

    def at(self, fraction: float) -> float:
        """The median of the chunk holding the point ``fraction`` of the way through the curve."""
        n = int(self.last[-1]) + 1
        index = min(n - 1, max(0, round(fraction * (n - 1))))
        return float(self.median[int(np.searchsorted(self.last, index))])


def chunk_medians(value: np.ndarray, bins: int) -> Chunks:
    """``value`` (finite, non-empty) as at most ``bins`` chunks of equal point count (the first
    chunks one longer when it does not divide), each chunk's median."""
    n = len(value)
    k = max(1, min(bins, n))
    bounds = np.linspace(0, n, k + 1).astype(np.int64)
    first, last = bounds[:-1], bounds[1:] - 1
    median = np.array([np.median(value[a:b + 1]) for a, b in zip(first, last)])
    return Chunks(median, first, last)


def train_at(val_step: np.ndarray, train_step: np.ndarray, train_value: np.ndarray) -> np.ndarray:
    """The training level at each validation step (module doc); NaN before the first training
    point."""
    out = np.full(len(val_step), np.nan)
    ends = np.searchsorted(train_step, val_step, side="right")  # train points with step <= val step
    starts = np.append(0, ends[:-1])
    for i, (a, b) in enumerate(zip(starts, ends)):
        if b > a:
            out[i] = np.median(train_value[a:b])
        elif b > 0:
            out[i] = train_value[b - 1]
    return out


def value_at(step: np.ndarray, value: np.ndarray, at: int) -> float | None:
    """The value of the last point at or before step ``at`` (the first point if all are after);
    None for an empty series."""
    if not len(step):
        return None
    i = int(np.searchsorted(step, at, side="right")) - 1
    return float(value[max(i, 0)])


def fmt(x: float) -> str:
    """A number for a sentence: four significant digits."""
    return f"{x:.4g}"
