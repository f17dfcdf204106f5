"""The scalars dashboard (and the time series dashboard's scalar cards): a card's points,
min/max-downsampled to its width, and the CSV/JSON downloads (protocol.py, ``series``,
``csv``, ``json``).

Scalars are never sampled in the kernel: every point is held and the page gets about one point
per pixel, asking again for the exact points when it zooms.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...reader.series import ScalarSeries
from ..codec import encode
from ..downsample import minmax_downsample
from ..protocol import X_AXES
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import x_values

#: Widest card the kernel downsamples for; a larger ``width`` is clamped (bounds reply size).
MAX_WIDTH = 10_000


def scalar_runs(source: MultiLogdir, tag: str, runs: Sequence[str]) -> list[str]:
    """The requested runs that hold ``tag`` as a scalar series; RequestError if none could.

    A tag unknown to the whole logdir, or never a scalar, is an error (the page asked for
    something that does not exist); a tag missing from some requested runs is normal.
    """
    plugins: dict[str, str] = {}
    for run in source.runs():
        try:
            plugins[run] = source.tags(run).get(tag, "")
        except KeyError:
            continue
    found = {p for p in plugins.values() if p}
    if not found:
        raise RequestError(f"unknown tag {tag!r}")
    if "scalars" not in found:
        raise RequestError(f"tag {tag!r} is a {'/'.join(sorted(found))} tag; series and downloads serve scalars")
    return [r for r in runs if plugins.get(r) == "scalars"]


def read(source: MultiLogdir, run: str, tag: str) -> tuple[ScalarSeries, float | None] | None:
    """A run's scalar series of ``tag`` and the run's start time; None if the run went away."""
    try:
        return source.scalars(run, tag), source.run_start_time(run)
    except KeyError:
        return None


def in_range(x: np.ndarray, bounds: Sequence[float] | None) -> np.ndarray | None:
    """Indices of x within the closed range (either order), or None for no range."""
    if bounds is None:
        return None
    lo, hi = sorted(bounds)
    return np.flatnonzero((x >= lo) & (x <= hi))


def series_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str,
                   bounds: Sequence[float] | None, width: int) -> list[dict[str, Any]]:
    """One card's data: per run, the points of ``tag`` in range, min/max-downsampled to width.

    The range is closed (x0 <= x <= x1, either order). ``total`` counts the points in range;
    ``exact`` is True when all of them are sent (``total <= width``, or a little over). Each entry also carries
    the points' ``wall_time`` (for tooltips whatever the x axis).
    """
    width = min(int(width), MAX_WIDTH)
    entries = []
    for run in scalar_runs(source, tag, runs):
        found = read(source, run, tag)
        if found is None:
            continue
        series, start = found
        x = x_values(series, axis, start)
        y, step, wall = series.value, series.step, series.wall_time
        inside = in_range(x, bounds)
        if inside is not None:
            x, y, step, wall = x[inside], y[inside], step[inside], wall[inside]
        # A bucket of two pixel columns keeps its min and max: about one point per pixel.
        keep = minmax_downsample(x, y, max(1, width // 2))
        exact = len(keep) == len(x)
        if not exact:
            x, y, step, wall = x[keep], y[keep], step[keep], wall[keep]
        entries.append({"run": run, "total": int(len(inside) if inside is not None else len(series)),
                        "sent": len(x), "exact": exact, "x": x.astype(np.float64),
                        "y": y.astype(np.float64), "step": step.astype(np.int64),
                        "wall_time": wall.astype(np.float64)})
    return entries


def _json_number(v: float) -> float | str:
    """TensorBoard's JSON downloads write non-finite values as "NaN", "Infinity", "-Infinity"."""
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


#: First characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(text: str) -> str:
    """A text cell of a CSV download (a run name) that a spreadsheet shows as text: a leading
    apostrophe where it would start a formula. Only text cells: numbers, negative ones
    included, are written as numbers."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def download_text(source: MultiLogdir, tag: str, runs: Sequence[str], fmt: str) -> str:
    """Every point of ``tag`` for ``runs``, as TensorBoard's downloads plus a run column/key.

    CSV: ``Run,Wall time,Step,Value`` rows (TensorBoard's columns with the run first). JSON:
    ``{run: [[wall_time, step, value], ...]}`` (TensorBoard's per-run arrays, keyed by run).
    """
    data = {}
    for run in scalar_runs(source, tag, runs):
        found = read(source, run, tag)
        if found is not None:
            data[run] = found[0]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["Run", "Wall time", "Step", "Value"])
        for run, s in data.items():
            writer.writerows(zip([text_cell(run)] * len(s), map(repr, s.wall_time.tolist()), s.step.tolist(),
                                 map(repr, s.value.tolist())))
        return out.getvalue()
    if fmt == "json":
        return json.dumps({run: [[w, st, _json_number(v)] for w, st, v in
                                 zip(s.wall_time.tolist(), s.step.tolist(), s.value.tolist())]
                           for run, s in data.items()}, allow_nan=False)
    raise RequestError(f"unknown download format {fmt!r}")


# -- requests ----------------------------------------------------------------------------------------

def answer_series(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``series``: one card's points (protocol.py)."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    axis = req.choice("x_axis", X_AXES, default=settings.x_axis)
    bounds, width = req.bounds("range"), req.width("width")
    entries = series_entries(source, tag, runs, axis, bounds, width)
    return encode({"type": "series", "id": request_id, "tag": tag, "x_axis": axis,
                   "range": content.get("range"), "series": entries})


def answer_download(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``csv`` / ``json``: a card's every point as download text."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    fmt = content["type"]
    text = download_text(source, tag, runs, fmt)
    return {"type": "download", "id": request_id, "tag": tag, "format": fmt, "text": text}, []


def push_key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    """A series request replaces the one of the same tag and kind (whole range, or zoomed): runs
    and x axis are settings every card shares, and the width changes with every resize."""
    return (content["type"], content["tag"], content.get("range") is not None)


REQUESTS: dict[str, Handler] = {"series": answer_series, "csv": answer_download, "json": answer_download}
PUSHED: dict[str, PushKey] = {"series": push_key}
