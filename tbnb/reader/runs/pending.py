"""Scalar points a run gathers during one reload before they join their columns (``RunData.flush``).

Points come one by one (the general path) or as decoded columns (the bulk path); they are joined
once at the end of the reload, so a column grows once per reload, not once per chunk.
"""

from __future__ import annotations

import numpy as np

from .columns import float32_exact


class Pending:
    """Scalar points gathered during a reload (one by one, or as decoded columns), in order."""

    __slots__ = ("chunks", "steps", "values", "walls")

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.walls: list[float] = []
        self.values: list[float] = []
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def _seal(self) -> None:
        if self.steps:
            self.chunks.append((np.array(self.steps, dtype=np.int64), np.array(self.walls, dtype=np.float64),
                                np.array(self.values, dtype=np.float64)))
            self.steps, self.walls, self.values = [], [], []

    def add_columns(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> None:
        self._seal()
        self.chunks.append((steps, walls, values))

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._seal()
        if len(self.chunks) == 1:
            return self.chunks[0]
        if not self.chunks:
            return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
        # One column at a time, each column's pieces let go as soon as it is joined: a cold
        # load holds a whole run's decoded points here, and joining all three columns before
        # freeing any held them twice at once.
        parts = [list(column) for column in zip(*self.chunks)]
        self.chunks = []
        parts[2] = _narrowest(parts[2])
        joined = []
        for pieces in parts:
            joined.append(np.concatenate(pieces))
            pieces.clear()
        return joined[0], joined[1], joined[2]


def _narrowest(values: list[np.ndarray]) -> list[np.ndarray]:
    """The value pieces as float32 when some are (the bulk decoder's, exact by construction) and
    the others hold float32s exactly: a tag's first point, which carries its metadata, is read by
    protobuf as a Python float, and joining it as float64 made the whole series float64, so that
    its columns were first copied plain (24 bytes a point) and checked again point by point."""
    if len(values) < 2 or not any(v.dtype == np.float32 for v in values):
        return values
    narrow = [v if v.dtype == np.float32 else float32_exact(np.asarray(v, dtype=np.float64)) for v in values]
    return values if any(v is None for v in narrow) else narrow  # type: ignore[return-value]
