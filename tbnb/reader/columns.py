"""Scalar series as columns, with step preemption.

Scalars keep every point in three numpy columns (step int64, wall_time float64, value float64):
24 bytes a point, millions of points in tens of MB, never sampled away.

Preemption (TensorBoard's Rust loader, always on unless purging is turned off): a point at step
``s`` drops the points already held at steps ``>= s``, so restarts and re-written steps look
right with no special cases.
"""

from __future__ import annotations

import numpy as np

_GROWTH = 1.5


class ScalarColumns:
    """One scalar series: step, wall_time and value columns with amortised appends."""

    __slots__ = ("_step", "_wall", "_value", "n")

    def __init__(self) -> None:
        self._step = np.empty(0, dtype=np.int64)
        self._wall = np.empty(0, dtype=np.float64)
        self._value = np.empty(0, dtype=np.float64)
        self.n = 0

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns, spare capacity included."""
        return self._step.nbytes + self._wall.nbytes + self._value.nbytes

    def _reserve(self, extra: int) -> None:
        need = self.n + extra
        cap = len(self._step)
        if need <= cap:
            return
        # Exact on the first fill (a cold load appends a whole file at once: 24 bytes a point),
        # geometric afterwards so that live appends stay amortised.
        new_cap = need if cap == 0 else max(need, int(cap * _GROWTH))
        for name in ("_step", "_wall", "_value"):
            try:  # realloc where it lies (often without a copy); numpy refuses if it is viewed
                getattr(self, name).resize(new_cap)
            except ValueError:
                old = getattr(self, name)
                new = np.empty(new_cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)

    def purge(self, step: int) -> int:
        """Drop the points at steps ``>= step``; return how many were dropped."""
        keep = int(np.count_nonzero(self._step[: self.n] < step))
        if keep == self.n:
            return 0
        if np.all(np.diff(self._step[: self.n]) > 0):  # sorted (the usual case): a cut
            dropped, self.n = self.n - keep, keep
            return dropped
        mask = self._step[: self.n] < step
        for name in ("_step", "_wall", "_value"):
            col = getattr(self, name)
            col[:keep] = col[: self.n][mask]
        dropped, self.n = self.n - keep, keep
        return dropped

    def extend(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray, preempt: bool = True) -> None:
        """Append points in arrival order, applying preemption as if they came one by one.

        Point ``i`` of the batch survives iff every later point of the batch has a greater step;
        held points survive iff their step is below the batch's smallest step.
        """
        m = len(steps)
        if m == 0:
            return
        steps = np.asarray(steps, dtype=np.int64)
        if preempt and (m == 1 or bool((steps[1:] > steps[:-1]).all())) and not (
                self.n and self._step[self.n - 1] >= steps[0]):
            preempt = False  # increasing steps after the held ones (the usual case): nothing to drop
        if self.n == 0 and len(self._step) == 0 and not preempt:
            # The first fill (a cold load appends each series once): the batch's columns,
            # copied so as not to keep the batch's arrays alive, become the series'.
            self._step = np.array(steps, dtype=np.int64)
            self._wall = np.array(walls, dtype=np.float64)
            self._value = np.array(values, dtype=np.float64)
            self.n = m
            return
        if preempt:
            suffix_min = np.minimum.accumulate(steps[::-1])[::-1]
            keep = np.ones(m, dtype=bool)
            keep[:-1] = steps[:-1] < suffix_min[1:]
            # Preempted series hold increasing steps: only a batch reaching back below the last
            # held step purges (a check of one value, not of every held point, on each poll).
            if self.n and self._step[self.n - 1] >= suffix_min[0]:
                self.purge(int(suffix_min[0]))
            if not keep.all():
                steps, walls, values = steps[keep], np.asarray(walls)[keep], np.asarray(values)[keep]
                m = len(steps)
        self._reserve(m)
        end = self.n + m
        self._step[self.n : end] = steps
        self._wall[self.n : end] = walls
        self._value[self.n : end] = values
        self.n = end

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the three columns, in step order (stable, so equal steps keep arrival order)."""
        step, wall, value = self._step[: self.n], self._wall[: self.n], self._value[: self.n]
        if self.n > 1 and not np.all(step[1:] >= step[:-1]):
            order = np.argsort(step, kind="stable")
            return step[order], wall[order], value[order]
        return step.copy(), wall.copy(), value.copy()
