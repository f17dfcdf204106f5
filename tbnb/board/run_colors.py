"""Run colours: the palette given out in sorted run order as runs appear (colours already set
are kept, as TensorBoard keeps a run's colour), and the one form a colour takes (``#rrggbb``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .protocol import PALETTE

_COLOR = re.compile(r"#[0-9a-fA-F]{6}")


def checked_colors(colors: Mapping[str, str]) -> dict[str, str]:
    """``colors`` in lower case; ValueError naming the runs whose colour is not ``#rrggbb``."""
    bad = {run: c for run, c in colors.items() if not (isinstance(c, str) and _COLOR.fullmatch(c))}
    if bad:
        raise ValueError(f"run_colors must be '#rrggbb' strings; got {bad}")
    return {run: c.lower() for run, c in colors.items()}


def with_new_runs(colors: Mapping[str, str], runs: Iterable[str], given: int) -> tuple[dict[str, str] | None, int]:
    """``colors`` plus the next palette colour for each of ``runs`` that has none (sorted order),
    and the count of palette colours given out so far; None when no run was new."""
    fresh = [r for r in sorted(runs) if r not in colors]
    if not fresh:
        return None, given
    out = dict(colors)
    for run in fresh:
        out[run] = PALETTE[given % len(PALETTE)]
        given += 1
    return out, given
