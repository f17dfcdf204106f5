"""Many scalar series in a few arrays: how a forked reload sends a chunk's series back.

Pickled one by one, each series costs a few array copies on the way back; packed, the chunk's
step columns, wall times and values are each one array, and taking a series back costs two
slices of them (``ScalarColumns.from_parts`` holds the views).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .columns import ScalarColumns

_COMPACT, _STEPS, _WIDE = 1, 2, 4


@dataclass
class PackedColumns:
    """The held points of many series (``ScalarColumns.parts``), one series after another."""

    n: np.ndarray  # int64, one a series
    start: np.ndarray  # int64
    stride: np.ndarray  # int64 (0: None)
    flags: np.ndarray  # uint8: _COMPACT | _STEPS (an int64 step column) | _WIDE (float64 values)
    steps: np.ndarray  # int64: the step columns of the series that have one
    walls: np.ndarray  # float64
    narrow: np.ndarray  # float32: the values of the series that hold float32
    wide: np.ndarray  # float64: the others'


def pack(series: list[ScalarColumns]) -> PackedColumns:
    """``series``' held points (no spare capacity) in one ``PackedColumns``."""
    parts = [c.parts() for c in series]

    def joined(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.empty(0, dtype=dtype)

    return PackedColumns(
        n=np.array([p[0] for p in parts], dtype=np.int64),
        start=np.array([p[1] for p in parts], dtype=np.int64),
        stride=np.array([p[2] or 0 for p in parts], dtype=np.int64),
        flags=np.array([(_COMPACT if p[3] else 0) | (0 if p[4] is None else _STEPS)
                        | (0 if p[6].dtype == np.float32 else _WIDE) for p in parts], dtype=np.uint8),
        steps=joined([p[4] for p in parts if p[4] is not None], np.int64),
        walls=joined([p[5] for p in parts], np.float64),
        narrow=joined([p[6] for p in parts if p[6].dtype == np.float32], np.float32),
        wide=joined([p[6] for p in parts if p[6].dtype != np.float32], np.float64))


def unpack(packed: PackedColumns) -> list[ScalarColumns]:
    """The series ``pack`` packed, each holding views of the packed arrays."""
    out: list[ScalarColumns] = []
    at_step = at_wall = at_narrow = at_wide = 0
    steps, walls, narrow, wide = packed.steps, packed.walls, packed.narrow, packed.wide
    for n, start, stride, flags in zip(packed.n.tolist(), packed.start.tolist(), packed.stride.tolist(),
                                       packed.flags.tolist()):
        step = None
        if flags & _STEPS:
            step, at_step = steps[at_step : at_step + n], at_step + n
        if flags & _WIDE:
            value, at_wide = wide[at_wide : at_wide + n], at_wide + n
        else:
            value, at_narrow = narrow[at_narrow : at_narrow + n], at_narrow + n
        out.append(ScalarColumns.from_parts(n, start, stride or None, bool(flags & _COMPACT), step,
                                            walls[at_wall : at_wall + n], value))
        at_wall += n
    return out
