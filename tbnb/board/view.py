"""``Board.view``: the scalar points on screen, by the same rules as TensorBoard's and the
page's (run regexes, runs switched off, the tag filter, each card's zoom).

Pure functions of a source (``MultiLogdir``) and the board's settings. A run may be removed by
the poller meanwhile; such a run is skipped, never an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .dashboards.common import shown_runs, x_values
from .dashboards.scalars import in_range, read
from .protocol import X_AXES
from .sources import MultiLogdir

if TYPE_CHECKING:
    import pandas as pd


def tag_passes(tag: str, tag_filter: str) -> bool:
    """TensorBoard's tag filter: a case-insensitive search; an invalid regex filters nothing."""
    if not tag_filter:
        return True
    try:
        return re.search(tag_filter, tag, re.IGNORECASE) is not None
    except re.error:
        return True


def zoom_of(view_state: Mapping[str, Any], tag: str) -> list[float] | None:
    """The x range the page says the card of ``tag`` is zoomed to, or None (also if malformed)."""
    try:
        bounds = view_state["tags"][tag]["x"]
        lo, hi = (float(b) for b in bounds)
    except (KeyError, TypeError, ValueError):
        return None
    return [lo, hi] if math.isfinite(lo) and math.isfinite(hi) else None


def view_frame(source: MultiLogdir, *, patterns: Sequence[str], hidden: Iterable[str], tag_filter: str,
               view_state: Mapping[str, Any], x_axis: str) -> pd.DataFrame:
    """The scalar points on screen: shown runs, tags passing the filter, zoomed cards' ranges.

    Columns run, tag, step, wall_time, value (``Logdir.to_pandas``'s). A zoom range is on the
    axis the page recorded in ``view_state["x_axis"]``, else on the board's ``x_axis``.
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("Board.view returns a pandas DataFrame: install pandas "
                          "(`pip install pandas` or `pip install tbnb[pandas]`)") from None
    axis = view_state.get("x_axis") if isinstance(view_state, Mapping) else None
    axis = axis if axis in X_AXES else x_axis
    frames = []
    for run in shown_runs(source.runs(), patterns, hidden):
        try:
            tags = [t for t, p in source.tags(run).items() if p == "scalars" and tag_passes(t, tag_filter)]
        except KeyError:
            continue
        for tag in tags:
            found = read(source, run, tag)
            if found is None:
                continue
            s, start = found
            inside = in_range(x_values(s, axis, start), zoom_of(view_state, tag))
            step, wall, value = (s.step, s.wall_time, s.value) if inside is None else (
                s.step[inside], s.wall_time[inside], s.value[inside])
            frames.append(pd.DataFrame({"run": run, "tag": tag, "step": step, "wall_time": wall, "value": value}))
    if not frames:
        return pd.DataFrame({"run": pd.Series(dtype=str), "tag": pd.Series(dtype=str),
                             "step": pd.Series(dtype=np.int64), "wall_time": pd.Series(dtype=float),
                             "value": pd.Series(dtype=float)})
    return pd.concat(frames, ignore_index=True)
