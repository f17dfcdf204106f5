"""An example tbnb dashboard: each scalar tag's last, best and mean value per run, with a sparkline.

The kernel side of the dashboard contract (docs/writing-a-dashboard.md): ``TBNB_API``, the
request types it answers (``REQUESTS``), those answered again when their runs get new data
(``PUSHED``) and its page code (``ESM``). It uses only tbnb's public dashboard helpers:
``tbnb.board.request`` (typed fields, the error a request is refused with) and
``tbnb.board.codec`` (numpy arrays as binary buffers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tbnb.board.codec import encode
from tbnb.board.request import Fields, Reply, RequestError

#: The version of tbnb's dashboard contract this dashboard is written for.
TBNB_API = 1
#: The page code: an ES module whose default export takes tbnb's page API.
ESM = Path(__file__).with_name("example.js")
#: Points of a sparkline (a series longer than this is sampled evenly, its last point kept).
SPARK_POINTS = 48
#: A tag whose name says it is an error measure is best at its minimum; any other at its maximum.
LOWER_IS_BETTER = ("loss", "error", "err", "perplexity", "mse", "mae")


def lower_is_better(tag: str) -> bool:
    """Whether ``tag``'s best value is its minimum (a loss or an error)."""
    name = tag.lower()
    return any(word in name for word in LOWER_IS_BETTER)


def sparkline(values: np.ndarray) -> np.ndarray:
    """At most SPARK_POINTS values, evenly spaced over the series, first and last kept."""
    if len(values) <= SPARK_POINTS:
        return values.astype(np.float64)
    index = np.linspace(0, len(values) - 1, SPARK_POINTS).round().astype(np.int64)
    return values[index].astype(np.float64)


def summary_rows(source: Any, runs: list[str]) -> list[dict[str, Any]]:
    """A row per run and scalar tag: last, best, mean (of the finite values) and a sparkline."""
    known = set(source.runs())
    rows = []
    for run in runs:
        if run not in known:
            continue
        try:
            tags = source.tags(run)
        except KeyError:  # removed by the poll thread meanwhile
            continue
        for tag in sorted(t for t, plugin in tags.items() if plugin == "scalars"):
            values = np.asarray(source.scalars(run, tag).value, dtype=np.float64)
            finite = values[np.isfinite(values)]
            if finite.size == 0:
                continue
            low = lower_is_better(tag)
            rows.append({"run": run, "tag": tag, "points": int(values.size), "last": float(values[-1]),
                         "best": float(finite.min() if low else finite.max()), "best_is": "min" if low else "max",
                         "mean": float(finite.mean()), "spark": sparkline(values)})
    return rows


def example_table(source: Any, content: dict[str, Any], settings: Any) -> Reply:
    """``example_table``: the summary rows of the requested runs."""
    req = Fields(content)
    request_id, runs = req.integer("id"), req.strings("runs")
    if not runs:
        raise RequestError("'runs' is empty: select a run")
    return encode({"type": "example_table", "id": request_id, "rows": summary_rows(source, runs)})


REQUESTS = {"example_table": example_table}
#: Answered again after a poll that brought data to one of its runs: the request has no "tag",
#: so any new data of its runs makes it due (tbnb/board/pushed.py).
PUSHED = {"example_table": lambda content: ("example_table",)}
