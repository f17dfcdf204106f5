"""Many equal-length records as rows of bytes: gathered from a buffer, and the least and greatest
value of each byte column.

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
    """The least and the greatest value of each column of ``rows`` ([n, w] uint8, n >= 1).

    Rows that are a slice of columns of a C-contiguous array (a group's records cut from the
    rows the framer gathered with their CRCs) are reduced in that array, the slice's columns
    taken from the result; other rows that are not C-contiguous are copied first."""
    if not rows.flags.c_contiguous:
        whole = _columns_of(rows)
        if whole is None:
            rows = np.ascontiguousarray(rows)
        else:
            base, first = whole
            low, high = byte_extremes(base)
            return low[first : first + rows.shape[1]], high[first : first + rows.shape[1]]
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


def _columns_of(rows: np.ndarray) -> tuple[np.ndarray, int] | None:
    """(the C-contiguous 2-D array whose columns ``rows`` are, the first of them), or None when
    ``rows`` is not such a slice."""
    base = rows.base
    if not isinstance(base, np.ndarray) or base.ndim != 2 or not base.flags.c_contiguous \
            or base.dtype != rows.dtype or base.shape[0] != rows.shape[0] or rows.strides != base.strides:
        return None
    first = rows.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if not 0 <= first <= base.shape[1] - rows.shape[1]:
        return None
    return base, first


def gather_rows(a: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes from each of ``starts`` in ``a`` (1-D, C-contiguous uint8), as the rows
    of a new C-contiguous [len(starts), width] uint8 array.

    Read through a view of ``a`` as overlapping ``width``-byte items, one at each byte: indexing
    it copies item by item, about three times faster than indexing a 2-D sliding window of
    ``a`` (which numpy gathers row by row). Indices as numpy takes them (IndexError past the
    last whole item)."""
    items = np.ndarray((max(0, len(a) - width + 1),), dtype=f"V{width}", buffer=a, strides=(1,))
    return items[starts].view(np.uint8).reshape(len(starts), width)
