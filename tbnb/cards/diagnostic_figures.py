"""The figures of the diagnostics charts as static plotly figures (the page draws the same with
js/src/dashboards/diagnostics/diagnostics_plot.js): from the chart data of
``reader/plugins/diagnostics/charts.py``. Every label from a log is escaped (``escape_plotly``).

- pair: training and validation on one chart, the gap between them shaded (the training curve
  read at the validation steps), the best validation step marked with a dashed line and a dot;
- lr: the loss over steps and the learning rate on a second, logarithmic y axis; the finding's
  step marked;
- lr_find (and any loss against its rate): x = the learning rate on a log axis; the raw loss
  faint, the smoothed loss, the steepest-descent suggestion marked;
- update_ratio: a line per parameter tensor on a log y axis, the band LOW..HIGH shaded and a
  dashed guide at 1e-3, lines whose recent median lies outside the band drawn thick, the others
  thin and faint; with more than MAX_LINES tensors a heatmap of tensors x steps (log10 colour,
  centred on 1e-3), tensors top to bottom in model order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .charts import AXIS, base_layout, compact, escape_plotly, make_figure
from .colors import with_alpha

TRAIN_DASH, VAL_DASH = "solid", "dot"
MARK = "#d32f2f"
GAP_FILL = "rgba(211,47,47,0.16)"
BAND_FILL = "rgba(76,175,80,0.13)"


def _step_mark(step: float, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A dashed vertical line at ``step`` and its label (already escaped)."""
    line = {"type": "line", "xref": "x", "yref": "paper", "x0": step, "x1": step, "y0": 0, "y1": 1,
            "line": {"color": MARK, "width": 1.5, "dash": "dash"}}
    note = {"x": step, "y": 1, "xref": "x", "yref": "paper", "text": text, "showarrow": False,
            "yanchor": "bottom", "font": {"size": 10, "color": MARK}}
    return line, note


def train_at_val(train: dict, val: dict) -> np.ndarray:
    """The training curve read at each validation step (linear between its points; NaN outside)."""
    t_step, t_value = np.asarray(train["step"], np.float64), np.asarray(train["value"], np.float64)
    v_step = np.asarray(val["step"], np.float64)
    keep = np.isfinite(t_value)
    if keep.sum() < 1:
        return np.full(len(v_step), np.nan)
    return np.interp(v_step, t_step[keep], t_value[keep], left=np.nan, right=np.nan)


def pair_figure(chart: dict[str, Any], color: str, title: str, width: int, height: int) -> Any:
    train, val = chart["train"], chart["val"]
    gap_train = train_at_val(train, val)
    traces = [
        {"type": "scatter", "mode": "lines", "x": compact(val["step"]), "y": compact(gap_train), "hoverinfo": "skip",
         "line": {"width": 0}, "showlegend": False, "name": "gap-base"},
        {"type": "scatter", "mode": "lines", "x": compact(val["step"]), "y": compact(val["value"]), "fill": "tonexty",
         "fillcolor": GAP_FILL, "line": {"width": 0}, "hoverinfo": "skip", "name": "gap",
         "showlegend": False},
        {"type": "scatter", "mode": "lines", "name": escape_plotly(chart["train_tag"]), "x": compact(train["step"]),
         "y": compact(train["value"]), "line": {"color": color, "width": 1.6, "dash": TRAIN_DASH}},
        {"type": "scatter", "mode": "lines+markers", "name": escape_plotly(chart["val_tag"]), "x": compact(val["step"]),
         "y": compact(val["value"]), "line": {"color": color, "width": 2, "dash": VAL_DASH}, "marker": {"size": 4}},
    ]
    layout = base_layout(title, width, height)
    layout.update(xaxis={**AXIS, "title": {"text": "step"}}, yaxis={**AXIS, "title": {"text": escape_plotly(chart["metric"])}},
                  showlegend=True)
    if chart.get("best_step") is not None:
        line, note = _step_mark(chart["best_step"], f"best {escape_plotly(chart['val_tag'])}: step {chart['best_step']}")
        layout.update(shapes=[line], annotations=[note])
        traces.append({"type": "scatter", "mode": "markers", "name": "best", "x": [chart["best_step"]],
                       "y": [chart["best_value"]], "marker": {"color": MARK, "size": 9, "symbol": "star"}})
    return make_figure(traces, layout)


def lr_figure(chart: dict[str, Any], color: str, title: str, width: int, height: int,
              step: int | None = None) -> Any:
    loss = chart["loss"]
    traces = [{"type": "scatter", "mode": "lines", "name": escape_plotly(chart["loss_tag"]), "x": compact(loss["step"]),
               "y": compact(loss["value"]), "line": {"color": color, "width": 1.6}}]
    layout = base_layout(title, width, height)
    layout.update(xaxis={**AXIS, "title": {"text": "step"}}, yaxis={**AXIS, "title": {"text": escape_plotly(chart["loss_tag"])}},
                  showlegend=True)
    if chart.get("lr") is not None:
        lr = chart["lr"]
        traces.append({"type": "scatter", "mode": "lines", "name": escape_plotly(chart["lr_tag"]), "yaxis": "y2",
                       "x": compact(lr["step"]), "y": compact(lr["value"]),
                       "line": {"color": "#757575", "width": 1.2, "dash": "dash"}})
        layout["yaxis2"] = {**AXIS, "type": "log", "overlaying": "y", "side": "right", "showgrid": False,
                            "title": {"text": escape_plotly(chart["lr_tag"])}}
        layout["margin"] = {**layout["margin"], "r": 60}
    if step is not None:
        line, note = _step_mark(step, f"step {step}")
        layout.update(shapes=[line], annotations=[note])
    return make_figure(traces, layout)


def lr_find_figure(chart: dict[str, Any], color: str, title: str, width: int, height: int) -> Any:
    lr_name = escape_plotly(chart["lr_tag"])
    traces = [
        {"type": "scatter", "mode": "lines", "name": escape_plotly(chart["loss_tag"]), "x": compact(chart["all_lr"]),
         "y": compact(chart["all_loss"]), "line": {"color": with_alpha(color, 0.3), "width": 1}},
        {"type": "scatter", "mode": "lines", "name": "smoothed", "x": compact(chart["lr"]),
         "y": compact(chart["smoothed"]), "line": {"color": color, "width": 2}},
    ]
    layout = base_layout(title, width, height)
    layout.update(xaxis={**AXIS, "type": "log", "title": {"text": lr_name}},
                  yaxis={**AXIS, "title": {"text": escape_plotly(chart["loss_tag"])}}, showlegend=True)
    finite = np.asarray(chart["all_loss"], np.float64)
    finite = finite[np.isfinite(finite)]
    if len(chart["smoothed"]) and finite.size:  # the exploding tail would flatten the curve
        lo = float(np.min(finite))
        hi = float(np.max(chart["smoothed"][np.isfinite(chart["smoothed"])], initial=lo))
        pad = 0.1 * (hi - lo or 1.0)
        layout["yaxis"]["range"] = [lo - pad, hi + pad]
    if chart.get("suggestion") is not None:
        s = float(chart["suggestion"])
        line = {"type": "line", "xref": "x", "yref": "paper", "x0": s, "x1": s, "y0": 0,
                "y1": 1, "line": {"color": MARK, "width": 1.5, "dash": "dash"}}
        note = {"x": s, "y": 1, "xref": "x", "yref": "paper", "showarrow": False, "yanchor": "bottom",
                "text": f"suggested {lr_name} = {s:.3g}", "font": {"size": 10, "color": MARK}}
        layout.update(shapes=[line], annotations=[note])
        k = int(np.argmin(np.abs(np.asarray(chart["lr"]) - s)))
        traces.append({"type": "scatter", "mode": "markers", "name": "suggestion", "x": [s],
                       "y": [float(chart["smoothed"][k])], "marker": {"color": MARK, "size": 10, "symbol": "star"}})
    return make_figure(traces, layout)


def ratio_figure(chart: dict[str, Any], title: str, width: int, height: int, palette: list[str]) -> Any:
    low, high = chart["band"]
    guide = chart["guide"]
    layout = base_layout(title, width, height)
    if chart.get("heatmap") is not None:
        hm = chart["heatmap"]
        names = [escape_plotly(t[len("update_ratio/"):]) for t in hm["tags"]]
        traces = [{"type": "heatmap", "x": compact(hm["x"]), "y": names, "z": np.asarray(hm["z"], np.float64),
                   "zmin": math.log10(guide) - 2, "zmax": math.log10(guide) + 2, "colorscale": "RdBu",
                   "reversescale": True, "colorbar": {"title": {"text": "log10 ratio"}, "thickness": 10},
                   "hovertemplate": "%{y}<br>step %{x}<br>log10 ratio %{z:.2f}<extra></extra>"}]
        layout.update(xaxis={**AXIS, "title": {"text": "step"}},
                      yaxis={**AXIS, "autorange": "reversed", "tickfont": {"size": 8}})
        layout["height"] = max(height, 12 * len(names) + 80)
        return make_figure(traces, layout)
    traces = []
    for i, line in enumerate(chart["lines"]):
        loud = bool(line["outside"])
        name = escape_plotly(line["tag"][len("update_ratio/"):])
        value = np.asarray(line["value"], np.float64)
        traces.append({"type": "scatter", "mode": "lines", "name": name, "x": compact(line["step"]),
                       "y": np.where(value > 0, value, np.nan),
                       "line": {"color": palette[i % len(palette)], "width": 2.6 if loud else 1.1},
                       "opacity": 1.0 if loud else 0.45})
    band = {"type": "rect", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": low,
            "y1": high, "fillcolor": BAND_FILL, "line": {"width": 0}, "layer": "below"}
    guide_line = {"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": guide,
                  "y1": guide, "line": {"color": "#2e7d32", "width": 1.2, "dash": "dash"}}
    layout.update(xaxis={**AXIS, "title": {"text": "step"}},
                  yaxis={**AXIS, "type": "log", "title": {"text": "update / weight"}, "exponentformat": "power"},
                  shapes=[band, guide_line], showlegend=True)
    return make_figure(traces, layout)
