"""The custom scalars dashboard: the ``custom_scalars__config__`` layouts of every run, merged as
TensorBoard merges them, with each chart resolved to the scalar tags each selected run shows
(protocol.md, ``custom_scalars``).

Only the layout travels here; a chart's points are asked with the scalars dashboard's
``series`` request, one per tag, so that charts are downsampled, zoomed and smoothed exactly as
scalar cards are. An invalid regex is an error of its chart alone (the reader's
``compile_regexes``); titles, regexes and tags are plain strings for the page to show as text.
"""

from __future__ import annotations

from typing import Any

from ...reader.plugins import custom_scalars as plugin
from ..request import Fields, Handler, PushKey, Reply, Settings
from ..sources import MultiLogdir
from .common import check_runs

def chart_entry(resolved: plugin.ResolvedChart) -> dict[str, Any]:
    """One chart: what the layout says and what it shows per run."""
    chart = resolved.chart
    return {
        "title": chart.title,
        "kind": chart.kind,
        "regexes": list(chart.tags),
        "margin": [{"value": s.value, "lower": s.lower, "upper": s.upper} for s in chart.series],
        "tags": {run: list(tags) for run, tags in resolved.tags.items()},
        "series": {run: [list(s) for s in found] for run, found in resolved.series.items()},
        "errors": list(resolved.errors),
    }


def layout_reply(source: MultiLogdir, runs: list[str]) -> dict[str, Any]:
    """The merged layout resolved for ``runs`` (runs that went away meanwhile are skipped)."""
    view = source
    present = set(source.runs())
    layout = plugin.read_layout(view)
    categories = plugin.resolve(view, [r for r in runs if r in present], layout)
    return {
        "categories": [{"title": cat.title, "closed": cat.closed, "charts": [chart_entry(c) for c in charts]}
                       for cat, charts in categories],
        "layout_runs": list(layout.runs),
        "problems": [str(p) for p in layout.problems],
    }


def answer(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``custom_scalars``: the layout for the selected runs (protocol.md)."""
    req = Fields(content)
    request_id, runs = req.integer("id"), req.strings("runs")
    check_runs(source, runs)
    return {"type": "custom_scalars", "id": request_id, **layout_reply(source, runs)}, []


REQUESTS: dict[str, Handler] = {"custom_scalars": answer}
#: Not pushed: a new layout is a ``changed`` of CONFIG_TAG, which makes the page ask again.
PUSHED: dict[str, PushKey] = {}
