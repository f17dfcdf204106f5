"""The Board's wire protocol: its version and the constants both sides of the comm share.

The contract itself (synced traits, every message each way, pushed replies, each dashboard's
requests and replies) is documented in ``protocol.md`` beside this file; a dashboard that adds
messages adds its section there.
"""

from __future__ import annotations

import json
from pathlib import Path

VERSION = 1

#: The constants both sides of the comm use, in one file: this module reads it and the page's
#: build imports it (js/src/core/constants.js), so the two can never disagree.
_SHARED = json.loads((Path(__file__).with_name("constants.json")).read_text(encoding="utf-8"))

DASHBOARDS: tuple[str, ...] = tuple(_SHARED["dashboards"])
CARD_TYPES: tuple[str, ...] = tuple(_SHARED["card_types"])
#: The card types the time series dashboard shows unless told otherwise: TensorBoard's three
#: (PR cards are there on request, as TensorBoard's time series has none).
DEFAULT_CARD_TYPES: tuple[str, ...] = tuple(_SHARED["default_card_types"])
HISTOGRAM_MODES: tuple[str, ...] = tuple(_SHARED["histogram_modes"])
#: Basis points of TensorBoard's distribution compressor.
BASIS_POINTS: tuple[int, ...] = tuple(_SHARED["basis_points"])
#: TensorBoard's rebinning of histograms for display.
HISTOGRAM_BINS: int = _SHARED["histogram_bins"]
DEFAULT_MAX_BLOB_BYTES = 4 << 20
X_AXES: tuple[str, ...] = tuple(_SHARED["x_axes"])

#: TensorBoard's run colour palette, assigned in order of first appearance.
PALETTE: tuple[str, ...] = tuple(_SHARED["palette"])

#: TensorBoard's defaults.
DEFAULT_SMOOTHING: float = _SHARED["default_smoothing"]
DEFAULT_RELOAD_INTERVAL = 2.0
DEFAULT_CARD_WIDTH: int = _SHARED["default_card_width"]
