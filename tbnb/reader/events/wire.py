"""Protobuf's wire format as the bulk decoders read it: varints and fixed-width fields, one
record at a time or as numpy columns over many records, and the template of a record layout.

The bulk decoders (``scalars_bulk``, ``values_bulk``) read fields at known byte positions
instead of parsing: a *template* record is walked once, and every record whose structural bytes
equal the template's has its fields at the same columns.

The general path uses it too: ``value_spans`` finds each value of an event of many values in its
record, so that a value keeps its own bytes rather than a copy of the whole event.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Longest varint (a 64-bit value in 7-bit groups).
MAX_VARINT_BYTES = 10


class NoTemplate(Exception):
    """The record is not one the template being built can describe."""


def varint(data: bytes | memoryview, pos: int, end: int) -> tuple[int, int]:
    """(value, next position) of the varint at ``pos``; NoTemplate past ``end`` or 10 bytes."""
    result = shift = 0
    while pos < end and shift < 70:
        b = data[pos]
        result |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return result, pos
        shift += 7
    raise NoTemplate


def varints(a: np.ndarray, windows: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, byte count, whether it ends within 10 bytes) of the varint at each position
    ``at`` of the bytes ``a``; ``windows`` is ``sliding_window_view(a, 10)``.

    Positions are clamped into ``a`` (the caller flags rows that run past it). Byte by byte for
    the first three (a step below 2**21, a length below 2 MiB: nearly every varint of a log),
    each pass only over the rows still going; longer ones from 10-byte windows.
    """
    limit = len(a)
    byte = a[np.clip(at, 0, limit - 1)]
    value = (byte & 0x7F).astype(np.uint64)
    count = np.ones(len(at), dtype=np.int64)
    whole = np.ones(len(at), dtype=bool)
    going = np.flatnonzero(byte >= 0x80)
    for i in range(1, 3):
        if not len(going):
            break
        byte = a[np.clip(at[going] + i, 0, limit - 1)]
        value[going] |= (byte & 0x7F).astype(np.uint64) << np.uint64(7 * i)
        count[going] += 1
        going = going[byte >= 0x80]
    if len(going):
        value[going], count[going], whole[going] = _long_varints(windows, at[going], limit - MAX_VARINT_BYTES)
    return value, count, whole


def _long_varints(windows: np.ndarray, at: np.ndarray,
                  last_window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, byte count, whether it ends within 10 bytes) from 10-byte windows."""
    w = windows[np.clip(at, 0, last_window)]
    more = (w & 0x80) != 0
    count = np.argmin(more, axis=1) + 1
    value = np.zeros(len(at), dtype=np.uint64)
    for i in range(int(count.max()) if len(at) else 0):
        part = (w[:, i] & 0x7F).astype(np.uint64) << np.uint64(7 * i)
        value |= np.where(i < count, part, np.uint64(0))
    return value, count, ~more.all(axis=1) & (at <= last_window)


@dataclass(frozen=True)
class Template:
    """Where a template record keeps the fields every kind of template reads (byte columns
    within the record), and which bytes decide that another record parses alike."""

    wall: int | None
    step: tuple[int, int] | None  # column, varint length
    tag: tuple[int, int]  # column, length
    structural: tuple[int, ...]  # columns whose bytes must equal the template's
    continuation: tuple[int, ...]  # varint columns whose top bit must equal the template's


def column(rows: np.ndarray, col: int, dtype: str) -> np.ndarray:
    """The fixed-width field at column ``col`` of every row ([m, width] uint8, its last axis
    contiguous), as ``dtype``: a strided view of the rows' bytes as ``dtype``, copied (copying
    the [m, size] bytes first cost ~7x as much: numpy copies such an array row by row)."""
    size = np.dtype(dtype).itemsize
    return rows[:, col : col + size].view(dtype)[:, 0].copy()


def steps_of(rows: np.ndarray, step: tuple[int, int] | None,
             extremes: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The step varint (column, byte count: the same in every row) of every row; 0 if absent.
    A byte the same in every row (its ``extremes`` agree: the high bytes of a chunk's steps)
    adds its part once, not row by row."""
    if step is None:
        return np.zeros(len(rows), dtype=np.int64)
    col, k = step
    out = np.zeros(len(rows), dtype=np.uint64)
    common = 0
    for i in range(k):
        if extremes is not None and extremes[0][col + i] == extremes[1][col + i]:
            common |= (int(extremes[0][col + i]) & 0x7F) << (7 * i)
        else:
            out |= (rows[:, col + i] & 0x7F).astype(np.uint64) << np.uint64(7 * i)
    if common:
        out |= np.uint64(common)
    return out.view(np.int64)


#: ``Event.summary`` and ``Summary.value``: the field numbers ``value_spans`` follows.
_EVENT_SUMMARY = 5
_SUMMARY_VALUE = 1


def _fields(data: bytes | memoryview, pos: int, end: int):
    """(field number, start, end) of each length-delimited field in [pos, end); other fields are
    stepped over. NoTemplate for anything protobuf's wire format does not allow, and for groups
    (deprecated wire types 3 and 4, which no summary writer uses)."""
    while pos < end:
        key, pos = varint(data, pos, end)
        field, kind = key >> 3, key & 7
        if kind == 0:
            _, pos = varint(data, pos, end)
        elif kind == 1:
            pos += 8
        elif kind == 5:
            pos += 4
        elif kind == 2:
            size, pos = varint(data, pos, end)
            if pos + size > end:
                raise NoTemplate
            yield field, pos, pos + size
            pos += size
        else:
            raise NoTemplate
        if pos > end or field == 0:
            raise NoTemplate


def value_spans(data: bytes | memoryview, start: int, length: int) -> list[tuple[int, int]] | None:
    """(start, length) in ``data`` of each ``Summary.Value`` of the Event record at
    ``data[start:start + length]``, in the order protobuf parses them (every ``summary`` field of
    the event, merged as protobuf merges a repeated field); None where the walk cannot follow.

    Each span is a whole serialized ``Summary.Value``: a value of an event holding thousands
    (a TF1 merged summary) is kept, and later read, as its own bytes, so that neither costs the
    size of the whole event per value.
    """
    end = start + length
    spans: list[tuple[int, int]] = []
    try:
        for field, a, b in _fields(data, start, end):
            if field == _EVENT_SUMMARY:
                spans.extend((c, d - c) for number, c, d in _fields(data, a, b) if number == _SUMMARY_VALUE)
    except NoTemplate:
        return None
    return spans


class ValueSpans:
    """Where each value of an event of several values is in its record, found on first need
    (``value_spans``): a merged summary of scalars only keeps no bytes and needs none. None
    for every value where the walk cannot follow the record (its values then keep the record)."""

    __slots__ = ("_buf", "_count", "_found", "_length", "_start")

    def __init__(self, buf: memoryview, start: int, length: int, count: int) -> None:
        self._buf, self._start, self._length, self._count = buf, start, length, count
        self._found: list[tuple[int, int]] | None = None

    def of(self, index: int) -> tuple[int, int] | None:
        if self._found is None:
            found = value_spans(self._buf, self._start, self._length)
            self._found = found if found is not None and len(found) == self._count else []
        return self._found[index] if self._found else None
