"""Scalar logdirs for the diagnostics, written by the real writers: torch's and tensorboardX's
``SummaryWriter`` and tbnb's own ``EventWriter``.

Every writer stores a scalar as float32, so tests compare what the diagnostics compute with the
same computation on the float32-rounded inputs (``as_written``), never on the float64 originals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from ..conftest import HAVE_TBX, HAVE_TORCH, make_writer

#: Every writer kind, as pytest params (torch's is marked and skipped without torch).
ALL_WRITERS = [
    pytest.param("torch", marks=[pytest.mark.torch,
                                 pytest.mark.skipif(not HAVE_TORCH, reason="torch (CPU) is not installed")],
                 id="torch"),
    pytest.param("tbx", marks=[pytest.mark.skipif(not HAVE_TBX, reason="tensorboardX is not installed")],
                 id="tbx"),
    pytest.param("tbnb", id="tbnb"),
]

Curve = Mapping[int, float] | Sequence[float]


def write_run(kind: str, directory: Path, curves: Mapping[str, Curve], wall0: float = 1_700_000_000.0) -> None:
    """Write ``{tag: values}`` (a sequence: steps 0, 1, ...; a mapping: ``{step: value}``) into one
    run with writer ``kind`` ("torch", "tbx" or "tbnb"), points in the order given, wall time
    ``wall0 + step``."""
    directory.mkdir(parents=True, exist_ok=True)
    if kind == "tbnb":
        from tbnb.testing import EventWriter

        writer = EventWriter(directory, start_time=wall0)
    else:
        writer = make_writer(kind, directory)
    try:
        for tag, curve in curves.items():
            points = curve.items() if isinstance(curve, Mapping) else enumerate(curve)
            for step, value in points:
                if kind == "tbnb":
                    writer.add_scalar(tag, float(value), int(step), wall_time=wall0 + step)
                else:
                    writer.add_scalar(tag, float(value), int(step), walltime=wall0 + step)
    finally:
        writer.close()


def as_written(values: Sequence[float]) -> np.ndarray:
    """Values as every writer stores them: rounded to float32, read back as float64."""
    return np.asarray(values, dtype=np.float32).astype(np.float64)
