"""TensorBoard's smoothing in the kernel: the same debiased exponential moving average the page
draws with (js/src/smoothing.js), so that the step table's "smoothed" column is the value the
smoothed line has at that point, computed over the full-resolution series.

The rules, as the page's: the weight is clamped to [0, 1] (non-finite -> 0); points are taken in
index order (x spacing is ignored); non-finite values pass through and do not enter the average;
a series whose values all equal the first is returned unchanged (TensorBoard issue #786).
"""

from __future__ import annotations

import math

import numpy as np


def clamp_weight(weight: float) -> float:
    """The weight TensorBoard uses: non-finite -> 0, then clamped to [0, 1]."""
    w = float(weight) if math.isfinite(weight) else 0.0
    return min(1.0, max(0.0, w))


def smooth(values: np.ndarray, weight: float, upto: int | None = None) -> np.ndarray:
    """Smoothed copy of ``values`` (float64); with ``upto``, only its first ``upto`` points.

    A smoothed point depends on the points before it only, so a caller that needs the value
    at index i asks for ``upto=i + 1`` and skips the rest of a long series.
    """
    ys = np.asarray(values, dtype=np.float64)
    n = len(ys) if upto is None else max(0, min(int(upto), len(ys)))
    if n == 0:
        return np.empty(0, dtype=np.float64)
    # "Constant" looks at the whole series, as the page does, not just the prefix.
    if bool(np.all(ys == ys[0])):
        return ys[:n].copy()
    w = clamp_weight(weight)
    out = ys[:n].copy()
    last = 0.0
    count = 0
    for i, y in enumerate(ys[:n].tolist()):
        if not math.isfinite(y):
            continue
        last = last * w + (1 - w) * y
        count += 1
        out[i] = last if w == 1 else last / (1 - w ** count)
    return out
