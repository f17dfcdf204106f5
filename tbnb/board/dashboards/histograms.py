"""The histograms dashboard (and the time series dashboard's histogram cards): each run's
sampled steps rebinned to TensorBoard's equal bins (protocol.md, ``histograms``).

The steps are the reader's reservoir sample (TensorBoard's ``samples_per_plugin``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...reader.plugins.histograms import rebin
from ..codec import encode
from ..protocol import HISTOGRAM_BINS, X_AXES
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import key_by_runs, start_time, tag_runs, tensor_series, x_values

Derive = Callable[[list[np.ndarray]], dict[str, np.ndarray]]
#: A card's series: ``entries(source, tag, runs, x_axis)``.
Entries = Callable[[MultiLogdir, str, Sequence[str], str], list[dict[str, Any]]]


def per_run(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str, derive: Derive) -> list[dict[str, Any]]:
    """Per run holding a histogram tag: its sampled steps, their x, and ``derive`` of its values
    (the distributions dashboard derives its basis points from the same steps)."""
    _, holding = tag_runs(source, tag, runs, ("histograms",))
    entries = []
    for run in holding:
        series = tensor_series(source, run, tag)
        if series is None:
            continue
        try:
            derived = derive(list(series.values))
        except ValueError as err:
            raise RequestError(f"run {run!r}, tag {tag!r}: {err}") from None
        entries.append({"run": run, "steps": series.step.astype(np.int64),
                        "x": x_values(series, axis, start_time(source, run)).astype(np.float64), **derived})
    return entries


def histogram_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str) -> list[dict[str, Any]]:
    """Per run: the sampled steps, their x, and their counts rebinned to HISTOGRAM_BINS equal
    bins over the min/max of that run's non-empty steps (``edges`` [31], ``counts`` [S, 30])."""
    def derive(values: list[np.ndarray]) -> dict[str, np.ndarray]:
        edges, counts = rebin(values, HISTOGRAM_BINS)
        return {"edges": edges, "counts": counts}

    return per_run(source, tag, runs, axis, derive)


def answer(source: MultiLogdir, content: dict[str, Any], settings: Settings,
           entries: Entries = histogram_entries) -> Reply:
    """A per-run card of a histogram tag, ``entries`` making its series (``histograms`` here)."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    axis = req.choice("x_axis", X_AXES, default=settings.x_axis)
    return encode({"type": content["type"], "id": request_id, "tag": tag, "x_axis": axis,
                   "series": entries(source, tag, runs, axis)})


REQUESTS: dict[str, Handler] = {"histograms": answer}
PUSHED: dict[str, PushKey] = {"histograms": key_by_runs}
