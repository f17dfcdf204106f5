"""plotly's binary arrays (``{"dtype", "bdata"[, "shape"]}``) back to numpy, as plotly.js reads them."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

DTYPES = {"f8": "<f8", "f4": "<f4", "i4": "<i4", "u4": "<u4", "i2": "<i2", "u2": "<u2", "i1": "i1", "u1": "u1",
          "u1c": "u1"}


def decode_figure(value: Any) -> Any:
    """Every typed array in a figure's JSON as a numpy array (the rest unchanged)."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=DTYPES[value["dtype"]])
            return arr.reshape(value["shape"]) if "shape" in value else arr
        return {k: decode_figure(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_figure(v) for v in value]
    return value
