"""What a custom card's function returned, made ready for the wire (protocol.md, "Custom cards").

A plotly figure travels as plotly JSON whose arrays are numpy arrays, so that the Board's codec
(codec.py) sends them as binary buffers: plotly's own JSON would write 100,000 points as base64
text in the message. A pandas DataFrame becomes a table of text cells (at most ``MAX_ROWS``).
The run colours are applied here for exports (``board.card``) and by the page for the Board.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Most rows of a DataFrame sent or exported (the rest are counted, not sent).
MAX_ROWS = 1_000
#: A list of plain numbers at least this long is sent as a float64 buffer.
MIN_ARRAY = 8
#: plotly's typed-array dtypes (``{"dtype", "bdata"}``) -> numpy.
_PLOTLY_DTYPES = {"f8": "<f8", "f4": "<f4", "i1": "i1", "u1": "u1", "i2": "<i2", "u2": "<u2",
                  "i4": "<i4", "u4": "<u4", "i8": "<i8", "u8": "<u8"}


def _typed(node: Mapping[str, Any]) -> np.ndarray | None:
    """plotly's base64 typed array as a numpy array (float32 kept, any other number float64)."""
    dtype = _PLOTLY_DTYPES.get(str(node.get("dtype")))
    if dtype is None or not isinstance(node.get("bdata"), str):
        return None
    arr = np.frombuffer(base64.b64decode(node["bdata"]), dtype=dtype)
    shape = node.get("shape")
    if isinstance(shape, str):
        arr = arr.reshape([int(d) for d in shape.split(",")])
    return arr if arr.dtype == np.float32 else arr.astype(np.float64)


def _numbers(values: list[Any]) -> np.ndarray | None:
    """A long list of plain numbers (None as NaN: a gap either way) as float64, else None."""
    if len(values) < MIN_ARRAY:
        return None
    for v in values:
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            return None
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


def _arrays(node: Any) -> Any:
    """plotly JSON with every typed array and long number list as a numpy array."""
    if isinstance(node, dict):
        if "bdata" in node and "dtype" in node:
            arr = _typed(node)
            if arr is not None:
                return arr
        return {k: _arrays(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        arr = _numbers(list(node))
        return arr if arr is not None else [_arrays(v) for v in node]
    return node


def figure_wire(figure: Any) -> dict[str, Any]:
    """``{"data", "layout"}`` of a plotly figure, arrays as numpy; the layout's template dropped
    so that the card follows the Board's theme (its fonts and background) as the other cards do."""
    spec = figure.to_plotly_json()
    layout = dict(spec.get("layout") or {})
    layout.pop("template", None)
    return {"data": _arrays(list(spec.get("data") or [])), "layout": _arrays(layout)}


def _cell(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value)


def table_wire(frame: Any) -> dict[str, Any]:
    """A DataFrame as ``{"columns", "rows", "total"}`` of text cells (its index too when it is
    not the default 0..n-1), at most MAX_ROWS rows."""
    import pandas as pd

    if not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None:
        frame = frame.reset_index()
    head = frame.head(MAX_ROWS)
    rows = [[_cell(v) for v in row] for row in head.itertuples(index=False, name=None)]
    return {"columns": [str(c) for c in frame.columns], "rows": rows, "total": len(frame)}


def is_frame(value: Any) -> bool:
    """Whether ``value`` is a pandas DataFrame (without importing pandas when nobody has)."""
    import sys

    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, pd.DataFrame)


def is_figure(value: Any) -> bool:
    """Whether ``value`` is a plotly figure (``go.Figure`` or a FigureWidget)."""
    from plotly.basedatatypes import BaseFigure

    return isinstance(value, BaseFigure)


def with_run_colors(data: list[dict[str, Any]], colors: Mapping[str, str]) -> list[dict[str, Any]]:
    """The traces, each one named after a run given that run's colour (line and marker) unless
    it set a colour of its own; the twin of the page's ``runColored`` (js/src/cards/custom_card.js)."""
    out = []
    for trace in data:
        color = colors.get(trace.get("name")) if isinstance(trace.get("name"), str) else None
        marker, line = trace.get("marker") or {}, trace.get("line") or {}
        if color and not (isinstance(marker, dict) and marker.get("color")) \
                and not (isinstance(line, dict) and line.get("color")):
            trace = {**trace, "marker": {**marker, "color": color}, "line": {**line, "color": color}}
        out.append(trace)
    return out
