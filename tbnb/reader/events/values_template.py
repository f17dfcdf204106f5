"""Templates for the value walker: large groups of one-value records of one length read as
columns.

A histogram or tensor tag logged every step gives thousands of records of one length. One record
is walked in Python as a template (with the cursor walk's rules, ``values_bulk``, and its payload
and metadata with ``wire_check``'s), and every record whose structural bytes equal the template's
parses alike: its wall time, step and tag are read at fixed columns. A differential test holds
the two walks to one result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tbnb.format.byte_columns import gather_rows

from ..records.grouping import group_by_length, tag_ids
from .values_fields import LEN, PAYLOAD_FIELDS, Fields, tag_index
from .wire import NoTemplate, Template, column, steps_of, varint
from .wire_check import METADATA, PAYLOAD_KINDS, message_shape

#: Length groups of at least this many records, or this share of the batch, are matched against
#: a template. Each costs a Python walk of one record and some twenty numpy steps over its rows:
#: for small groups (images of many sizes) the cursor walk of all of them at once is cheaper.
MIN_TEMPLATE_ROWS = 256
MIN_TEMPLATE_SHARE = 0.125
#: Templates tried per length group before its remaining records go to the cursor walk.
TEMPLATES_PER_GROUP = 2
#: Records whose tag ends further in than this are left to the cursor walk.
MAX_HEAD = 320
#: The columns of a payload's structure this far in are copied with the head (a histogram's
#: first keys, a tensor's dtype and shape); those further in are read where they are.
INNER_HEAD = 128


@dataclass(frozen=True)
class _Layout(Template):
    """A one-value record's template: also where its payload and metadata are, and their shape."""

    payload: tuple[int, int, int]  # field number, column, length
    metadata: tuple[int, int] | None  # column, length
    #: Inside the payload and the metadata (``wire_check.message_shape``): columns whose bytes
    #: must equal the template's, whose top bit must, and which must be ASCII. Read where they
    #: are, not in the head.
    inner: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]

    @property
    def has_metadata(self) -> bool:
        return self.metadata is not None

    @property
    def head(self) -> int:
        """Bytes from the start that hold the wall time, step and tag, the keys and lengths up
        to the payload's, and the payload's own first ones (``INNER_HEAD``)."""
        inner = [c for part in self.inner for c in part if c < INNER_HEAD]
        return max(sum(self.tag), 1 + max([c for c in self.structural if c < MAX_HEAD] + inner, default=0))


def _layout(data: bytes, start: int, length: int) -> _Layout | None:
    """The cursor walk's rules applied to one record, noting its structural columns; None
    where the cursor walk would not accept the record."""
    end = start + length
    pos = start
    structural: list[int] = []
    continuation: list[int] = []
    wall = step = tag = payload = metadata = None
    try:
        if pos < end and data[pos] == 0x09:
            structural.append(pos)
            wall, pos = pos + 1, pos + 9
            if pos > end:
                return None
        if pos < end and data[pos] == 0x10:
            structural.append(pos)
            _, nxt = varint(data, pos + 1, end)
            continuation.extend(range(pos + 1, nxt))
            step, pos = (pos + 1, nxt - pos - 1), nxt
        for key in (0x2A, 0x0A):  # the summary, the event's last field; its one value
            if pos >= end or data[pos] != key:
                return None
            n, nxt = varint(data, pos + 1, end)
            structural.extend(range(pos, nxt))
            if nxt + n != end:
                return None
            pos = nxt
        for _ in range(3):  # tag, payload and metadata, in any order, each at most once
            if pos >= end:
                break
            key = data[pos]
            if key >= 0x80 or key & 7 != LEN:
                return None
            n, nxt = varint(data, pos + 1, end)
            structural.extend(range(pos, nxt))
            field = key >> 3
            if field == 1 and tag is None:
                tag = (nxt, n)
            elif field in PAYLOAD_FIELDS and payload is None:
                payload = (field, nxt - start, n)
            elif field == 9 and metadata is None:
                metadata = (nxt - start, n)
            else:
                return None
            pos = nxt + n
            if pos > end:
                return None
    except NoTemplate:
        return None
    if pos != end or tag is None or tag[1] == 0 or payload is None:
        return None
    inner = _inner_shape(data, start, payload, metadata)
    if inner is None:
        return None
    return _Layout(None if wall is None else wall - start, None if step is None else (step[0] - start, step[1]),
                   (tag[0] - start, tag[1]), tuple(p - start for p in structural),
                   tuple(p - start for p in continuation), payload, metadata, inner)


def _inner_shape(data: bytes, start: int, payload: tuple[int, int, int], metadata: tuple[int, int] | None
                 ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    """The payload's and the metadata's shapes (``wire_check.message_shape``), as columns of
    the record at ``start``; None where ``wire_check`` would not accept them."""
    field, col, n = payload
    parts = [(col, n, PAYLOAD_KINDS[field])] + ([(metadata[0], metadata[1], METADATA)] if metadata else [])
    columns: tuple[list[int], list[int], list[int]] = ([], [], [])
    for at, length, kind in parts:
        shape = message_shape(data, start + at, start + at + length, kind)
        if shape is None:
            return None
        for out, found in zip(columns, shape):
            out.extend(p - start for p in found)
    structural, continuation, ascii_at = columns
    return tuple(structural), tuple(continuation), tuple(ascii_at)


def by_template(buf: bytes, a: np.ndarray, starts: np.ndarray, lengths: np.ndarray, found: Fields,
                 names: dict[str, int]) -> np.ndarray:
    """Fill ``found`` for the records of large length groups that match their group's template
    (tags named in ``names``); return the indices of the others, for the cursor walk.

    Two records of one length whose structural bytes (keys, length varints) and step varint
    continuation bits are equal parse alike, so one Python walk of the first serves them all,
    and their wall time, step and tag are read as columns. Each record's bytes up to the tag's
    end are copied into one block first, so that the column reads find them together
    (structural bytes further on, such as a metadata key after a large payload, are read where
    they are).
    """
    least = max(MIN_TEMPLATE_ROWS, int(MIN_TEMPLATE_SHARE * len(starts)))
    done = np.zeros(len(starts), dtype=bool)
    for length, group in group_by_length(lengths, min_count=least):
        for _ in range(TEMPLATES_PER_GROUP):
            if len(group) < least:
                break
            layout = _layout(buf, int(starts[group[0]]), length)
            if layout is None or layout.head > MAX_HEAD:
                group = group[1:]
                continue
            s = starts[group]
            head = gather_rows(a, s, layout.head)
            match = _matches(a, s, head, layout)
            if match.all():
                _read_columns(head, s, layout, found, group, names)
                done[group] = True
                break
            taken = group[match]
            _read_columns(head[match], s[match], layout, found, taken, names)
            done[taken] = True
            group = group[~match]
    return np.flatnonzero(~done)


def _matches(a: np.ndarray, s: np.ndarray, head: np.ndarray, layout: _Layout) -> np.ndarray:
    """Which records (data at ``s``, first bytes ``head``) have the layout's structure: its
    structural bytes, the top bits of its varints' bytes, ASCII where its strings are."""
    width = head.shape[1]
    structural, continuation, ascii_at = layout.inner
    match = np.ones(len(s), dtype=bool)
    for cols, test in ((layout.structural + structural, _equal), (layout.continuation + continuation, _same_top_bit),
                       (ascii_at, _ascii)):
        near = [c for c in cols if c < width]
        far = np.asarray([c for c in cols if c >= width], dtype=np.int64)
        if near:
            match &= test(head[:, near], head[0, near])
        if len(far):
            match &= test(a[s[:, None] + far], a[s[0] + far])
    return match


def _equal(rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    return (rows == first).all(axis=1)


def _same_top_bit(rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    return ((rows ^ first) & 0x80 == 0).all(axis=1)


def _ascii(rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    return (rows < 0x80).all(axis=1)


def _read_columns(rows: np.ndarray, starts: np.ndarray, layout: _Layout, found: Fields, taken: np.ndarray,
                  names: dict[str, int]) -> None:
    """Wall time, step and tag of matched records (data at ``starts``), from their first bytes
    ``rows``; where their payload and metadata are."""
    found.ok[taken] = True
    found.checked[taken] = True  # (the template's shape covers the payload and metadata)
    found.has_metadata[taken] = layout.has_metadata
    field, col, n = layout.payload
    found.payload[taken], found.payload_start[taken], found.payload_len[taken] = field, starts + col, n
    if layout.metadata is not None:
        found.metadata_start[taken], found.metadata_len[taken] = starts + layout.metadata[0], layout.metadata[1]
    if layout.wall is not None:
        found.wall[taken] = column(rows, layout.wall, "<f8")
    if layout.step is not None:
        found.step[taken] = steps_of(rows, layout.step)
    col, n = layout.tag
    reps, inverse = tag_ids(rows, layout.tag)
    local = np.array([tag_index(bytes(rows[r, col : col + n]), names) for r in reps.tolist()], dtype=np.int64)
    found.tag[taken] = local[inverse]
