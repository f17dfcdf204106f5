"""Run colours for cards: the board's ``run_colors`` first, TensorBoard's palette after, and the
histogram ramp (a run's colour made brighter for the first step, darker for the last).

The ramp is the page's (js/src/core/colors.js: d3's HCL ``brighter``/``darker``, CIE Lab with the D50
white point), ported so that a card's ridges have the colours the board's have.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from ..board.protocol import PALETTE

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}")
_K = 18.0
_XN, _ZN = 0.96422, 0.82521
_T0, _T1 = 4 / 29, 6 / 29
_T2, _T3 = 3 * _T1 * _T1, _T1 ** 3


def normalize_hex(value: object) -> str | None:
    """``#rgb`` or ``#rrggbb`` -> ``#rrggbb`` in lower case; None for anything else."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        return None
    v = value.lower()
    return "#" + "".join(c * 2 for c in v[1:]) if len(v) == 4 else v


def palette_colors(runs: Sequence[str]) -> dict[str, str]:
    """The colours a new Board gives ``runs`` on its first read: the palette in sorted order."""
    return {run: PALETTE[i % len(PALETTE)] for i, run in enumerate(sorted(runs))}


def color_of(run: str, chosen: Mapping[str, str], fallback: Mapping[str, str]) -> str:
    """``chosen[run]`` when it is a hex colour, else ``fallback[run]``, else the first palette colour."""
    return normalize_hex(chosen.get(run)) or fallback.get(run) or PALETTE[0]


def _to_linear(v: float) -> float:
    v /= 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _from_linear(v: float) -> float:
    return 255 * (12.92 * v if v <= 0.0031308 else 1.055 * math.copysign(abs(v) ** (1 / 2.4), v) - 0.055)


def _f(t: float) -> float:
    return math.copysign(abs(t) ** (1 / 3), t) if t > _T3 else t / _T2 + _T0


def _f_inverse(t: float) -> float:
    return t * t * t if t > _T1 else _T2 * (t - _T0)


def _hcl(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    r, g, b = (_to_linear(c) for c in rgb)
    y = _f(0.2225045 * r + 0.7168786 * g + 0.0606169 * b)
    x = z = y
    if not (r == g == b):
        x = _f((0.4360747 * r + 0.3850649 * g + 0.1430804 * b) / _XN)
        z = _f((0.0139322 * r + 0.0971045 * g + 0.7141733 * b) / _ZN)
    a, bb = 500 * (x - y), 200 * (y - z)
    c = math.hypot(a, bb)
    h = math.nan if c < 1e-6 else math.degrees(math.atan2(bb, a)) % 360
    return h, c, 116 * y - 16


def _rgb(h: float, c: float, lum: float) -> tuple[float, float, float]:
    a = 0.0 if math.isnan(h) else math.cos(math.radians(h)) * c
    bb = 0.0 if math.isnan(h) else math.sin(math.radians(h)) * c
    y = (lum + 16) / 116
    x, z = _XN * _f_inverse(y + a / 500), _ZN * _f_inverse(y - bb / 200)
    y = _f_inverse(y)
    return (_from_linear(3.1338561 * x - 1.6168667 * y - 0.4906146 * z),
            _from_linear(-0.9787684 * x + 1.9161415 * y + 0.033454 * z),
            _from_linear(0.0719453 * x - 0.2289914 * y + 1.4052427 * z))


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    """``#rrggbb`` -> (r, g, b); an invalid colour is taken as the palette's first."""
    hex_ = normalize_hex(color) or PALETTE[0]
    return int(hex_[1:3], 16), int(hex_[3:5], 16), int(hex_[5:7], 16)


def ramp_color(color: str, t: float) -> str:
    """The colour of a step at ``t`` in [0, 1] of a run's span (0: brighter, 1: darker)."""
    h, c, lum = _hcl(hex_to_rgb(color))
    u = min(1.0, max(0.0, t)) if math.isfinite(t) else 1.0
    rgb = _rgb(h, c, lum + _K * (1 - 2 * u))
    return "#" + "".join(f"{round(min(255.0, max(0.0, v))):02x}" for v in rgb)


def with_alpha(color: str, alpha: float) -> str:
    """``#rrggbb`` and an opacity -> ``rgba(r,g,b,a)``."""
    r, g, b = hex_to_rgb(color)
    return f"rgba({r},{g},{b},{alpha})"
