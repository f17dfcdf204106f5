"""Scalar cards: per shown run a faint raw line and a smoothed line, as the board draws them.

Every point of a run is read from the kernel's store. Smoothing is TensorBoard's debiased
exponential moving average over every point of the series (not over the points drawn), and the
lines are then thinned with the board's min/max-preserving downsampler to about two points per
pixel of the card's width; the title and ``text/plain`` say "N points (M drawn)". A zoom (the
board's, or ``zoom=``) keeps the points in its x range and sets the axis to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..board.dashboards.common import x_values
from ..board.dashboards.scalars import in_range, read
from ..board.downsample import minmax_downsample
from ..board.smoothing import smooth
from .charts import AXIS, XAxis, base_layout, compact, escape_plotly, make_figure, thousands
from .output import Card
from .view import CardView

#: TensorBoard's opacity of the unsmoothed line (js cards/scalar/scalars_plot.js).
RAW_OPACITY = 0.25
def _lines(view: CardView, tag: str) -> list[dict[str, Any]]:
    """Per shown run holding ``tag`` as scalars: x, raw y, smoothed y in the zoom range, thinned."""
    runs = [r for r, p in view.tag_plugins(tag).items() if p == "scalars"]
    bounds = view.zoom_of(tag)
    lines = []
    for run in runs:
        found = read(view.source, run, tag)
        if found is None:
            continue
        series, start = found
        x = x_values(series, view.x_axis, start)
        y = np.asarray(series.value, dtype=np.float64)
        smoothed = smooth(y, view.smoothing)
        inside = in_range(x, bounds)
        if inside is not None:
            x, y, smoothed = x[inside], y[inside], smoothed[inside]
        keep = minmax_downsample(x, y, view.width)
        lines.append({"run": run, "total": len(x), "x": x[keep], "y": y[keep], "smoothed": smoothed[keep],
                      "last_step": int(series.step[inside][-1] if inside is not None and inside.size else
                                       (series.step[-1] if len(series) else 0))})
    return lines


def scalars_card(view: CardView, tag: str) -> Card:
    """The scalar card of ``tag`` (see the module doc)."""
    lines = _lines(view, tag)
    if not lines:
        raise ValueError(f"no shown run has scalar tag {tag!r}")
    max_x = max((float(np.nanmax(ln["x"])) for ln in lines if ln["x"].size), default=0.0)
    axis = XAxis(view.x_axis, max_x)
    total, drawn = sum(ln["total"] for ln in lines), sum(len(ln["x"]) for ln in lines)
    traces = []
    for ln in lines:
        color, name = view.color(ln["run"]), escape_plotly(ln["run"])
        x = axis.display(ln["x"])
        traces.append({"type": "scatter", "mode": "lines", "name": name, "legendgroup": name, "x": x,
                       "y": compact(ln["y"]), "line": {"color": color, "width": 1}, "opacity": RAW_OPACITY,
                       "hoverinfo": "skip", "showlegend": False})
        traces.append({"type": "scatter", "mode": "lines", "name": name, "legendgroup": name, "x": x,
                       "y": compact(ln["smoothed"]), "line": {"color": color, "width": 1.5},
                       "hovertemplate": f"{name}: <b>%{{y:.4~g}}</b><extra></extra>", "showlegend": True})
    zoom = view.zoom_of(tag)
    axis_note = "" if view.x_axis == "step" else f" · x: {view.x_axis} time"
    zoomed = f" · zoomed to {zoom[0]:g}–{zoom[1]:g}" if zoom else ""
    title = f"{escape_plotly(tag)}  <span style='font-size:11px;color:#616161'>{thousands(total)} points " \
            f"({thousands(drawn)} drawn) · smoothing {view.smoothing:g}{axis_note}{zoomed}</span>"
    layout = base_layout(title, view.width, view.height)
    layout.update(hovermode="x unified", dragmode="zoom",
                  xaxis={**AXIS, **axis.layout(), **({"range": axis.display_range(zoom), "autorange": False}
                                                     if zoom else {"autorange": True})},
                  yaxis={**AXIS, "type": "log" if view.log_y else "linear", "exponentformat": "e", "autorange": True})
    figure = make_figure(traces, layout)
    summary = (f"tbnb scalars card {tag!r}: {len(lines)} run(s), {thousands(total)} points "
               f"({thousands(drawn)} drawn: each pixel column's min and max), smoothing {view.smoothing:g}, "
               f"x axis {view.x_axis}{zoomed}")
    info = {"runs": [ln["run"] for ln in lines], "points": total, "drawn": drawn,
            "last_steps": {ln["run"]: ln["last_step"] for ln in lines}}
    return Card("scalars", tag, tag, summary, figure=figure, info=info)
