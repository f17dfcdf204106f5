"""The least and greatest value of each byte column of many equal-length records.

A group of records written by one loop shares most of its bytes (the tag, the metadata, the high
bytes of wall time and step): a byte column whose least and greatest values agree is the same in
every record, and one whose values all lie on one side of 0x80 has one continuation bit. The
bulk CRC looks such columns up once instead of once a record, and the scalar decoder matches its
template against the rest only.

numpy reduces ``[n, w]`` along its rows at a cost per row when ``w`` is a record's few dozen
bytes; laid ``FOLD`` rows side by side (a free reshape of a C-contiguous array), the reduction
runs over long rows, about as fast as reading the bytes once.
"""

from __future__ import annotations

import numpy as np

#: Rows laid side by side before the reduction.
FOLD = 64


def byte_extremes(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least and the greatest value of each column of ``rows`` ([n, w] uint8, C-contiguous,
    n >= 1)."""
    n, width = rows.shape
    full = n - n % FOLD
    if full:
        folded = rows[:full].reshape(-1, FOLD * width)
        low = np.minimum.reduce(folded, axis=0).reshape(FOLD, width).min(axis=0)
        high = np.maximum.reduce(folded, axis=0).reshape(FOLD, width).max(axis=0)
        if full == n:
            return low, high
        return np.minimum(low, rows[full:].min(axis=0)), np.maximum(high, rows[full:].max(axis=0))
    return rows.min(axis=0), rows.max(axis=0)
