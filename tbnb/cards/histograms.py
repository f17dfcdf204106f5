"""Histogram and distribution cards: one panel per shown run, as the board's per-run cards.

Histograms are TensorBoard's: each sampled step rebinned to 30 equal bins over the run's range,
drawn as OFFSET ridges (a ridge per step down a time axis, earliest at the top, colours from the
run's colour made brighter to darker) or OVERLAY lines, the ``histogram_mode`` of the board; at
most 100 steps a run, evenly spread (the page's limit). Distributions are TensorBoard's nine
basis points per step as four nested bands and a median line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..board.dashboards.distributions import distribution_entries
from ..board.dashboards.histograms import histogram_entries
from .charts import AXIS, XAxis, base_layout, compact, escape_plotly, make_figure, thousands
from .colors import ramp_color, with_alpha
from .output import Card
from .view import CardView

#: A full ridge's share of a panel's height, and the most steps drawn (js/src/dashboards/histograms/histogram.js).
SLICE_FRACTION = 0.4
MAX_CURVES = 100
#: Column pairs of the distribution bands, outermost first, and their opacity (js dashboards/distributions/distribution.js).
BANDS = ((0, 8), (1, 7), (2, 6), (3, 5))
BAND_OPACITY = 0.22
PANEL_HEIGHT = 240
#: px between panels: the x ticks of one and the run name of the next.
PANEL_GAP = 56


def thin_indices(n: int, most: int) -> list[int]:
    """At most ``most`` of ``n`` indices, evenly spread, the first and last kept."""
    if n <= most:
        return list(range(n))
    if most <= 1:
        return [n - 1]
    out: list[int] = []
    for k in range(most):
        i = round(k * (n - 1) / (most - 1))
        if not out or out[-1] != i:
            out.append(i)
    return out


def draw_order(times: np.ndarray, most: int = MAX_CURVES) -> list[int]:
    """Rows to draw, earliest time first (drawn first: behind), at most ``most``."""
    valid = [i for i in np.argsort(times, kind="stable").tolist() if np.isfinite(times[i])]
    return [valid[k] for k in thin_indices(len(valid), most)]


def _curve(centres: np.ndarray, row: np.ndarray, base: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """One step's outline through its bins' centres, closed down to its baseline at both ends."""
    counts = np.where(np.isfinite(row), row, 0.0)
    x = np.concatenate(([centres[0]], centres, [centres[-1]]))
    y = np.concatenate(([base], base + counts * scale, [base]))
    return x, y


def _panels(view: CardView, tag: str, entries_of: Any) -> tuple[list[dict[str, Any]], XAxis]:
    runs = [r for r, p in view.tag_plugins(tag).items() if p == "histograms"]
    if not runs:
        raise ValueError(f"no shown run has histogram tag {tag!r}")
    entries = entries_of(view.source, tag, runs, view.x_axis)
    max_x = max((float(np.nanmax(e["x"])) for e in entries if len(e["x"])), default=0.0)
    return entries, XAxis(view.x_axis, max_x)


def _histogram_traces(entry: dict[str, Any], color: str, axis: XAxis, mode: str, ref: str) -> tuple[list, dict]:
    """Traces of one run's panel and its y axis attributes."""
    times = axis.display(entry["x"]).astype(np.float64)
    counts, edges = np.asarray(entry["counts"]), np.asarray(entry["edges"])
    order = draw_order(times)
    centres = (edges[:-1] + edges[1:]) / 2
    steps = entry["steps"]
    if not order:
        return [], {}
    t0, t1 = float(times[order].min()), float(times[order].max())
    frac = [(times[r] - t0) / (t1 - t0) if t1 > t0 else 1.0 for r in order]
    name = escape_plotly(entry["run"])
    traces = []
    if mode == "overlay":
        for row, f in zip(order, frac):
            x, y = _curve(centres, counts[row], 0.0, 1.0)
            traces.append({"type": "scatter", "mode": "lines", "name": f"{name} step {int(steps[row])}",
                           "x": compact(x), "y": compact(y), "line": {"color": ramp_color(color, f), "width": 1.2},
                           "showlegend": False, "xaxis": f"x{ref}", "yaxis": f"y{ref}"})
        return traces, {"rangemode": "tozero", "title": {"text": "count"}}
    span = t1 - t0 or 1.0
    height = span * SLICE_FRACTION / (1 - SLICE_FRACTION)
    peak = max(float(np.nanmax(np.where(np.isfinite(counts[order]), counts[order], 0.0))), 0.0) or 1.0
    scale = -height / peak
    for row, f in zip(order, frac):
        x, y = _curve(centres, counts[row], float(times[row]), scale)
        traces.append({"type": "scatter", "mode": "lines", "name": f"{name} step {int(steps[row])}",
                       "x": compact(x), "y": compact(y), "fill": "toself", "fillcolor": ramp_color(color, f),
                       "line": {"color": "#ffffff", "width": 0.6}, "hoveron": "points", "showlegend": False,
                       "xaxis": f"x{ref}", "yaxis": f"y{ref}"})
    pad = 0.02 * (span + height)
    return traces, {"range": [t1 + pad, t0 - height - pad], "autorange": False, "side": "right",
                    "showgrid": False, "title": {"text": ""}, **({"type": "date"} if axis.axis == "wall" else {})}


def _distribution_traces(entry: dict[str, Any], color: str, axis: XAxis, ref: str) -> list[dict[str, Any]]:
    x = np.asarray(entry["x"], dtype=np.float64)
    rows = [i for i in np.argsort(x, kind="stable").tolist() if np.isfinite(x[i])]
    xs = axis.display(x[rows])
    values = np.asarray(entry["values"])[rows]
    name = escape_plotly(entry["run"])
    traces = []
    for lo, hi in BANDS:
        for col, fill in ((lo, "none"), (hi, "tonexty")):
            traces.append({"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": compact(values[:, col]),
                           "line": {"color": with_alpha(color, 0), "width": 0}, "fill": fill,
                           "fillcolor": with_alpha(color, BAND_OPACITY), "hoverinfo": "skip", "showlegend": False,
                           "xaxis": f"x{ref}", "yaxis": f"y{ref}"})
    traces.append({"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": compact(values[:, 4]),
                   "line": {"color": color, "width": 1.5}, "showlegend": False,
                   "hovertemplate": f"{name} median: %{{y:.4~g}}<extra></extra>",
                   "xaxis": f"x{ref}", "yaxis": f"y{ref}"})
    return traces


def _grid_layout(title: str, view: CardView, n: int, names: Sequence[str]) -> dict[str, Any]:
    """A column of ``n`` panels, each titled with its run."""
    height = max(view.height, 60 + PANEL_HEIGHT * n)
    layout = base_layout(title, view.width, height)
    layout.update(showlegend=False, hovermode="closest")
    plot_height = height - 56 - 40  # the margins below
    gap = min(0.3, PANEL_GAP / plot_height) if n > 1 else 0.0
    size = (1 - gap * (n - 1)) / n
    annotations = []
    for i, name in enumerate(names):
        ref = "" if i == 0 else str(i + 1)
        top = 1 - i * (size + gap)
        layout[f"yaxis{ref}"] = {"domain": [top - size, top], "anchor": f"x{ref}"}
        layout[f"xaxis{ref}"] = {"anchor": f"y{ref}"}
        annotations.append({"text": f"<b>{name}</b>", "xref": "paper", "yref": "paper", "x": 0, "y": top,
                            "xanchor": "left", "yanchor": "bottom", "showarrow": False, "font": {"size": 11}})
    layout["annotations"] = annotations
    layout["margin"] = {"l": 56, "r": 56, "t": 56, "b": 40, "pad": 2}
    return layout


def histogram_card(view: CardView, tag: str, kind: str = "histograms", mode: str | None = None) -> Card:
    """The histogram (or, with ``kind="distributions"``, distribution) card of ``tag``."""
    mode = mode or view.histogram_mode
    entries, axis = _panels(view, tag, distribution_entries if kind == "distributions" else histogram_entries)
    names = [escape_plotly(e["run"]) for e in entries]
    steps = sum(len(e["steps"]) for e in entries)
    how = f"{mode} " if kind == "histograms" else ""
    axis_note = "" if view.x_axis == "step" else f" · time: {view.x_axis}"
    title = f"{escape_plotly(tag)}  <span style='font-size:11px;color:#616161'>{how}{kind} · {thousands(steps)} sampled steps{axis_note}</span>"
    layout = _grid_layout(title, view, len(entries), names)
    traces: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        ref = "" if i == 0 else str(i + 1)
        color = view.color(entry["run"])
        value_axis = {**AXIS, "exponentformat": "e"}
        if kind == "distributions":
            traces += _distribution_traces(entry, color, axis, ref)
            layout[f"xaxis{ref}"].update({**AXIS, **axis.layout()})
            layout[f"yaxis{ref}"].update(value_axis)
        else:
            more, yaxis = _histogram_traces(entry, color, axis, mode, ref)
            traces += more
            layout[f"xaxis{ref}"].update({**value_axis, "showgrid": mode == "overlay"})
            layout[f"yaxis{ref}"].update({**AXIS, **yaxis})
    figure = make_figure(traces, layout)
    summary = (f"tbnb {kind} card {tag!r}: {len(entries)} run(s), {thousands(steps)} sampled steps "
               f"(at most {MAX_CURVES} drawn a run){', ' + mode if kind == 'histograms' else ''}, x axis {view.x_axis}")
    info = {"runs": [e["run"] for e in entries], "steps": {e["run"]: [int(s) for s in e["steps"]] for e in entries}}
    return Card(kind, tag, tag, summary, figure=figure, info=info)


def distribution_card(view: CardView, tag: str) -> Card:
    """The distribution card of a histogram tag."""
    return histogram_card(view, tag, kind="distributions")
