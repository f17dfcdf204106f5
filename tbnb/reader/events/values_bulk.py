"""Bulk walking of one-value events of any length: tag, step and wall time as columns.

Histograms, images, text and the like are kept as sampled records, decoded only when shown, so
loading them needs just each record's step, wall time and tag. Their records differ in length,
but their outer structure is the same: ``Event{wall_time, step, summary{value{tag, <payload>,
metadata?}}}``. This walks every record at once with numpy "cursors": each step reads a key or
a varint length at each row's position and advances it. Rows that do not follow the structure
(other fields, more values, keys or tags that cannot be read this way) are flagged, and the
caller parses them with protobuf, which stays the reference.

A large group of records of one length (a histogram tag logged every step) is cheaper still:
``values_template``. Either way a record is kept only if its payload and metadata are ones
protobuf certainly parses (``wire_check``); the others go to protobuf, as the general path reads
them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tbnb.format.byte_columns import gather_rows

from ..records.grouping import group_by_length, tag_ids
from .values_fields import LEN, PAYLOAD_FIELDS, Fields, tag_index
from .values_template import by_template
from .wire import MAX_VARINT_BYTES, varints

__all__ = ["PAYLOAD_FIELDS", "BulkValues", "walk_values"]


@dataclass
class BulkValues:
    """One-value records walked in bulk: ``rows`` index the records given, ascending."""

    rows: np.ndarray
    tag: np.ndarray  # per row: index into ``tags``
    tags: list[str]
    step: np.ndarray
    wall: np.ndarray
    has_metadata: np.ndarray

    @classmethod
    def empty(cls) -> BulkValues:
        none = np.empty(0, dtype=np.int64)
        return cls(none, none, [], none, np.empty(0), np.empty(0, dtype=bool))


class _Cursor:
    """Positions of many records at once, with a flag for rows that left the known structure."""

    def __init__(self, a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        # No padded copy of the buffer (megabytes per batch): a varint window that would run
        # past the buffer's end is read from its last 10 bytes and the row is flagged instead.
        self.a = a
        self.limit = len(a)
        self.pos = starts.astype(np.int64)
        self.end = (starts + lengths).astype(np.int64)
        self.ok = np.ones(len(starts), dtype=bool)
        self.windows = sliding_window_view(a, MAX_VARINT_BYTES)

    def move(self, where: np.ndarray, to: np.ndarray) -> None:
        """Move the rows in ``where`` to ``to`` (clamped into the buffer; overruns are not ok)."""
        to = np.where(where, to, self.pos)
        self.ok &= (to >= 0) & (to <= self.end)
        self.pos = np.clip(to, 0, self.limit)

    def byte(self, at: np.ndarray) -> np.ndarray:
        return self.a[np.clip(at, 0, self.limit - 1)]

    def varint(self, at: np.ndarray, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(value, byte count) of the varint at ``at``; rows in ``where`` must hold a whole one,
        inside the buffer."""
        value, count, whole = varints(self.a, self.windows, at)
        self.ok &= ~where | (whole & (at + count <= self.limit))
        return value, count

    def field(self, key: int, where: np.ndarray) -> np.ndarray:
        """Step rows in ``where`` over a one-byte ``key`` and its varint length; return the length."""
        self.ok &= ~where | (self.byte(self.pos) == key)
        n, k = self.varint(self.pos + 1, where)
        length = n.astype(np.int64)
        self.ok &= ~where | (length >= 0)
        self.move(where, self.pos + 1 + k)
        return length


def walk_values(buf: bytes, starts: np.ndarray, lengths: np.ndarray, templates: bool = True) -> BulkValues:
    """Walk the records ``buf[starts[i]:starts[i]+lengths[i]]``; keep the one-value events.

    Large groups of records of one length are matched against a template first
    (``_by_template``); the rest, or all with ``templates=False``, are walked with the cursors.
    Both give the same result.
    """
    a = np.frombuffer(buf, dtype=np.uint8)
    m = len(starts)
    names: dict[str, int] = {}
    found = Fields.empty(m)
    rest = by_template(buf, a, starts, lengths, found, names) if templates else np.arange(m)
    if len(rest):
        walked = _walk(a, starts[rest], lengths[rest])
        named = np.flatnonzero(walked.ok)
        walked.tag[named] = _tag_names(a, walked.tag_start[named], walked.tag_len[named], names)
        found.put(rest, walked)
    rows = np.flatnonzero(found.ok & (found.tag >= 0))
    walked = np.flatnonzero(~found.checked[rows])
    if len(walked):
        keep = np.ones(len(rows), dtype=bool)
        keep[walked] = found.well_formed(a, rows[walked])
        rows = rows[keep]
    tags = sorted(names, key=names.__getitem__)
    return BulkValues(rows, found.tag[rows], tags, found.step[rows], found.wall[rows], found.has_metadata[rows])


def _walk(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> Fields:
    """The cursor walk: every record at once, one numpy step per field."""
    c = _Cursor(a, starts, lengths)
    m = len(starts)
    everyone = np.ones(m, dtype=bool)
    has_wall = c.byte(c.pos) == 0x09
    wall = np.zeros(m)
    if has_wall.any():
        idx = np.flatnonzero(has_wall)
        wall[idx] = gather_rows(c.a, np.clip(c.pos[idx] + 1, 0, len(c.a) - 8), 8).view("<f8").reshape(-1)
    c.move(has_wall, c.pos + 9)
    has_step = c.ok & (c.byte(c.pos) == 0x10)
    step_value, step_len = c.varint(c.pos + 1, has_step)
    step = np.where(has_step, step_value, np.uint64(0)).view(np.int64)
    c.move(has_step, c.pos + 1 + step_len)
    summary_len = c.field(0x2A, everyone)
    c.ok &= c.pos + summary_len == c.end  # the summary is the event's last field
    value_len = c.field(0x0A, everyone)
    c.ok &= c.pos + value_len == c.end  # and holds one value
    tag_start = np.full(m, -1, dtype=np.int64)
    tag_len = np.zeros(m, dtype=np.int64)
    payload = np.zeros(m, dtype=np.int64)
    has_metadata = np.zeros(m, dtype=bool)
    payload_start, payload_len = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    metadata_start, metadata_len = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    for _ in range(3):  # tag, payload and metadata, in any order, each at most once
        live = c.ok & (c.pos < c.end)
        if not live.any():
            break
        key = c.byte(c.pos)
        field = (key >> 3).astype(np.int64)
        c.ok &= ~live | (((key & 7) == LEN) & (key < 0x80))
        live &= c.ok
        n, k = c.varint(c.pos + 1, live)
        n = n.astype(np.int64)
        body = c.pos + 1 + k
        is_tag = live & (field == 1)
        is_payload = live & np.isin(field, list(PAYLOAD_FIELDS))
        is_metadata = live & (field == 9)
        c.ok &= ~(is_tag & (tag_start >= 0)) & ~(is_payload & (payload > 0)) & ~(is_metadata & has_metadata)
        c.ok &= ~live | is_tag | is_payload | is_metadata
        tag_start = np.where(is_tag, body, tag_start)
        tag_len = np.where(is_tag, n, tag_len)
        payload = np.where(is_payload, field, payload)
        payload_start = np.where(is_payload, body, payload_start)
        payload_len = np.where(is_payload, n, payload_len)
        has_metadata |= is_metadata
        metadata_start = np.where(is_metadata, body, metadata_start)
        metadata_len = np.where(is_metadata, n, metadata_len)
        c.move(live, body + n)
    c.ok &= (c.pos == c.end) & (tag_start >= 0) & (tag_len > 0) & (payload > 0)
    return Fields(c.ok, tag_start, tag_len, np.full(m, -1, dtype=np.int64), step, wall, has_metadata,
                   np.zeros(m, dtype=bool), payload, payload_start, payload_len, metadata_start, metadata_len)


def _tag_names(a: np.ndarray, start: np.ndarray, length: np.ndarray, names: dict[str, int]) -> np.ndarray:
    """Each row's tag index in ``names`` (new tags added); -1 where the tag is not UTF-8
    (protobuf's case) or 256 bytes or longer (left to protobuf)."""
    index = np.full(len(start), -1, dtype=np.int64)
    for n, group in group_by_length(length, 256):
        block = gather_rows(a, start[group], n)
        reps, inverse = tag_ids(block, (0, n))
        index[group] = np.array([tag_index(bytes(block[r]), names) for r in reps.tolist()], dtype=np.int64)[inverse]
    return index


