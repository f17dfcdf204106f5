"""``Board.view``: the scalar points on screen, by the same rules as TensorBoard's and the
page's (run regexes, runs switched off, the tag filter, each card's zoom).

Pure functions of a source (``MultiLogdir``) and the board's settings. A run may be removed by
the poller meanwhile; such a run is skipped, never an error.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..reader.user_regex import PatternError, compile_regex
from .dashboards.common import shown_runs
from .dashboards.scalar_axes import series_x
from .dashboards.scalar_best import best_point
from .dashboards.scalars import in_range, read
from .sources import MultiLogdir

if TYPE_CHECKING:
    import pandas as pd


def tag_passes(tag: str, tag_filter: str) -> bool:
    """TensorBoard's tag filter: a case-insensitive search (RE2, linear time:
    reader/user_regex.py); a regex RE2 refuses filters nothing, as an invalid one does."""
    if not tag_filter:
        return True
    try:
        return compile_regex(tag_filter, ignore_case=True).search(tag) is not None
    except PatternError:
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
               view_state: Mapping[str, Any], x_axis: str, best: str | None = None,
               hidden_patterns: Iterable[str] = ()) -> pd.DataFrame:
    """The scalar points on screen: shown runs, tags passing the filter, zoomed cards' ranges.

    Columns run, tag, step, wall_time, value (``Logdir.to_pandas``'s); with ``best`` ("min" or
    "max") also best and best_step, the run's best point of the tag over all its points (the
    same on each of its rows; scalar_best.py). A zoom range is on the axis the page recorded in
    ``view_state["x_axis"]``, else on the board's ``x_axis``. Points the axis cannot place
    (a step <= 0 on ``log_step``, a step before an x tag's first) are not on screen, nor is a
    run without the x tag.
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("Board.view returns a pandas DataFrame: install pandas "
                          "(`pip install pandas` or `pip install tbnb[pandas]`)") from None
    axis = view_state.get("x_axis") if isinstance(view_state, Mapping) else None
    axis = axis if isinstance(axis, str) and axis else x_axis
    frames = []
    for run in shown_runs(source.runs(), patterns, hidden, hidden_patterns):
        try:
            tags = [t for t, p in source.tags(run).items() if p == "scalars" and tag_passes(t, tag_filter)]
        except KeyError:
            continue
        for tag in tags:
            found = read(source, run, tag)
            if found is None:
                continue
            s, start = found
            placed = series_x(source, run, s, axis, start)
            if placed is None:
                continue
            x, drawable = placed
            on_screen = np.arange(len(s)) if drawable is None else drawable
            inside = in_range(x[on_screen], zoom_of(view_state, tag))
            if inside is not None:
                on_screen = on_screen[inside]
            frame = pd.DataFrame({"run": run, "tag": tag, "step": s.step[on_screen],
                                  "wall_time": s.wall_time[on_screen], "value": s.value[on_screen]})
            if best:
                point = best_point(s, best)
                frame["best"] = point.value if point else np.nan
                frame["best_step"] = point.step if point else pd.NA
            frames.append(frame)
    if not frames:
        empty = {"run": pd.Series(dtype=str), "tag": pd.Series(dtype=str), "step": pd.Series(dtype=np.int64),
                 "wall_time": pd.Series(dtype=float), "value": pd.Series(dtype=float)}
        if best:
            empty.update(best=pd.Series(dtype=float), best_step=pd.Series(dtype="Int64"))
        return pd.DataFrame(empty)
    out = pd.concat(frames, ignore_index=True)
    if best:
        out["best_step"] = out["best_step"].astype("Int64")
    return out
