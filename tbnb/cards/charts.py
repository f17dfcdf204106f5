"""What every chart card shares: x values as the page draws them, compact binary arrays, escaped
labels and the layout (the board's look, without plotly's 6 KB default template).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The page's units for relative time (js/src/xaxis.js): the first whose limit holds the largest x.
UNITS = (("s", 1.0, 180.0), ("min", 60.0, 3 * 3600.0), ("h", 3600.0, 72 * 3600.0), ("d", 86400.0, float("inf")))
GRID = "rgba(128,128,128,0.18)"
LINE = "rgba(128,128,128,0.45)"
AXIS = {"gridcolor": GRID, "linecolor": LINE, "showline": True, "zeroline": False, "ticks": "", "automargin": True}
_INT32 = np.iinfo(np.int32)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def escape_plotly(text: str) -> str:
    """Text from a log as a plotly label: plotly reads ``<b>``, ``<br>``, ``&...;`` and ``%{...}``
    in labels, so ``&``, ``<``, ``>`` and ``%`` are written as entities (js format.escapePlotly)."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("%", "&#37;"))


def relative_unit(max_seconds: float) -> tuple[str, float]:
    """(name, seconds) of the unit relative times are shown in, as on the page."""
    m = abs(max_seconds) if np.isfinite(max_seconds) else 0.0
    return next((name, secs) for name, secs, up_to in UNITS if m <= up_to)


def local_shift_ms(epoch_seconds: float) -> float:
    """Milliseconds to add so that plotly's UTC date axis reads the kernel's local time (the page
    does the same with the browser's time zone)."""
    return float(time.localtime(epoch_seconds).tm_gmtoff) * 1000.0


class XAxis:
    """Protocol x values (step, seconds since the run's start, epoch seconds) -> plotly's."""

    def __init__(self, axis: str, max_x: float) -> None:
        self.axis = axis
        self.unit = relative_unit(max_x) if axis == "relative" else None

    def display(self, x: np.ndarray) -> np.ndarray:
        """x as drawn: steps as int32 when they fit, relative time in its unit (float32), wall
        time as local epoch milliseconds (float64: float32 would round to minutes)."""
        x = np.asarray(x, dtype=np.float64)
        if self.axis == "step":
            whole = x.size == 0 or (np.all(np.isfinite(x)) and x.min() >= _INT32.min and x.max() <= _INT32.max)
            return x.astype(np.int32) if whole else x
        if self.axis == "relative":
            return compact(x / self.unit[1])
        shift = local_shift_ms(float(x[0])) if x.size else 0.0
        return x * 1000.0 + shift

    def display_range(self, bounds: Sequence[float]) -> list[float]:
        """A zoom range in plotly's units (wall: ISO-like date text is not needed; ms work)."""
        return [float(v) for v in self.display(np.asarray(bounds, dtype=np.float64)).astype(np.float64)]

    def layout(self) -> dict[str, Any]:
        """The x axis's plotly attributes (the page's xAxisLayout)."""
        if self.axis == "wall":
            return {"type": "date", "hoverformat": "%Y-%m-%d %H:%M:%S"}
        if self.axis == "relative":
            name = self.unit[0] if self.unit else "s"
            return {"type": "linear", "ticksuffix": f" {name}", "hoverformat": ".4~f", "exponentformat": "none"}
        return {"type": "linear", "hoverformat": ",d", "exponentformat": "SI"}


def compact(values: np.ndarray) -> np.ndarray:
    """Values to draw as float32 (7 significant digits, far below a pixel), unless a finite
    value is beyond float32's range; then float64."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    if finite.size and float(np.abs(finite).max()) > _FLOAT32_MAX:
        return values
    return values.astype(np.float32)


def base_layout(title: str, width: int, height: int) -> dict[str, Any]:
    """The board's chart look at a fixed size, with a title (already escaped) and a legend below."""
    return {
        "title": {"text": title, "font": {"size": 13}, "x": 0, "xanchor": "left"},
        "width": width, "height": height,
        "margin": {"l": 56, "r": 16, "t": 40, "b": 28, "pad": 2},
        "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff",
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 11,
                 "color": "#212121"},
        "hoverlabel": {"namelength": -1},
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.12, "x": 0, "font": {"size": 10}},
    }


def thousands(n: int) -> str:
    """12345 -> "12,345"."""
    return f"{int(n):,}"


def make_figure(traces: list[dict[str, Any]], layout: dict[str, Any]) -> Any:
    """A plotly Figure without a template: plotly's default one adds ~6.5 KB per card, and the
    layout above already gives the board's look."""
    import plotly.graph_objects as go

    figure = go.Figure({"data": traces, "layout": layout}, skip_invalid=False)
    figure.layout.template = None
    return figure
