"""Bulk walking of one-value events of any length: tag, step and wall time as columns.

Histograms, images, text and the like are kept as sampled records, decoded only when shown, so
loading them needs just each record's step, wall time and tag. Their records differ in length,
but their outer structure is the same: ``Event{wall_time, step, summary{value{tag, <payload>,
metadata?}}}``. This walks every record at once with numpy "cursors": each step reads a key or
a varint length at each row's position and advances it. Rows that do not follow the structure
(other fields, more values, keys or tags that cannot be read this way) are flagged, and the
caller parses them with protobuf, which stays the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .frame_bulk import group_by_length
from .scalars_bulk import tag_ids

#: Summary.Value payload fields this walker knows (``simple_value`` is the scalar decoder's).
PAYLOAD_FIELDS = {4: "image", 5: "histo", 6: "audio", 8: "tensor"}
_LEN = 2  # wire type of length-delimited fields


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
        self.windows = sliding_window_view(a, 10)
        self.last_window = len(a) - 10

    def move(self, where: np.ndarray, to: np.ndarray) -> None:
        """Move the rows in ``where`` to ``to`` (clamped into the buffer; overruns are not ok)."""
        to = np.where(where, to, self.pos)
        self.ok &= (to >= 0) & (to <= self.end)
        self.pos = np.clip(to, 0, self.limit)

    def byte(self, at: np.ndarray) -> np.ndarray:
        return self.a[np.clip(at, 0, self.limit - 1)]

    def varint(self, at: np.ndarray, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(value, byte count) of the varint at ``at``; rows in ``where`` must hold a whole one.

        Byte by byte for the first three (a step below 2**21, a length below 2 MiB: nearly
        every varint of a log), each pass only over the rows still going; longer ones from
        10-byte windows.
        """
        byte = self.byte(at)
        value = (byte & 0x7F).astype(np.uint64)
        count = np.ones(len(at), dtype=np.int64)
        going = np.flatnonzero(byte >= 0x80)
        for i in range(1, 3):
            if not len(going):
                break
            byte = self.byte(at[going] + i)
            value[going] |= (byte & 0x7F).astype(np.uint64) << np.uint64(7 * i)
            count[going] += 1
            going = going[byte >= 0x80]
        if len(going):
            value[going], count[going], whole = self._long_varint(at[going])
            self.ok[going] &= ~where[going] | whole
        self.ok &= ~where | (at + count <= self.limit)  # every byte inside the buffer
        return value, count

    def _long_varint(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(value, byte count, whether it ends within 10 bytes) from 10-byte windows."""
        w = self.windows[np.clip(at, 0, self.last_window)]
        more = (w & 0x80) != 0
        count = np.argmin(more, axis=1) + 1
        value = np.zeros(len(at), dtype=np.uint64)
        for i in range(int(count.max()) if len(at) else 0):
            part = (w[:, i] & 0x7F).astype(np.uint64) << np.uint64(7 * i)
            value |= np.where(i < count, part, np.uint64(0))
        return value, count, ~more.all(axis=1) & (at <= self.last_window)

    def field(self, key: int, where: np.ndarray) -> np.ndarray:
        """Step rows in ``where`` over a one-byte ``key`` and its varint length; return the length."""
        self.ok &= ~where | (self.byte(self.pos) == key)
        n, k = self.varint(self.pos + 1, where)
        length = n.astype(np.int64)
        self.ok &= ~where | (length >= 0)
        self.move(where, self.pos + 1 + k)
        return length


def walk_values(buf: bytes, starts: np.ndarray, lengths: np.ndarray) -> BulkValues:
    """Walk the records ``buf[starts[i]:starts[i]+lengths[i]]``; keep the one-value events."""
    a = np.frombuffer(buf, dtype=np.uint8)
    c = _Cursor(a, starts, lengths)
    m = len(starts)
    everyone = np.ones(m, dtype=bool)
    has_wall = c.byte(c.pos) == 0x09
    wall = np.zeros(m)
    if has_wall.any():
        idx = np.flatnonzero(has_wall)
        wall[idx] = sliding_window_view(c.a, 8)[np.clip(c.pos[idx] + 1, 0, len(c.a) - 8)].view("<f8").reshape(-1)
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
    for _ in range(3):  # tag, payload and metadata, in any order, each at most once
        live = c.ok & (c.pos < c.end)
        if not live.any():
            break
        key = c.byte(c.pos)
        field = (key >> 3).astype(np.int64)
        c.ok &= ~live | (((key & 7) == _LEN) & (key < 0x80))
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
        has_metadata |= is_metadata
        c.move(live, body + n)
    c.ok &= (c.pos == c.end) & (tag_start >= 0) & (tag_len > 0) & (payload > 0)
    rows = np.flatnonzero(c.ok)
    tags, tag_index = _tag_names(c.a, tag_start[rows], tag_len[rows])
    good = tag_index >= 0
    rows, tag_index = rows[good], tag_index[good]
    return BulkValues(rows, tag_index, tags, step[rows], wall[rows], has_metadata[rows])


def _tag_names(a: np.ndarray, start: np.ndarray, length: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Distinct tags and each row's tag index (-1 where the tag is not UTF-8: protobuf's case)."""
    names: dict[str, int] = {}
    index = np.full(len(start), -1, dtype=np.int64)
    for n, group in group_by_length(length, 256):
        block = sliding_window_view(a, n)[start[group]]
        reps, inverse = tag_ids(block, (0, n))
        local = np.array([_name(bytes(block[r]), names) for r in reps.tolist()], dtype=np.int64)
        index[group] = local[inverse]
    return sorted(names, key=names.__getitem__), index


def _name(raw: bytes, names: dict[str, int]) -> int:
    """The index of a tag in ``names`` (added if new); -1 if it is not UTF-8 (protobuf's case)."""
    try:
        return names.setdefault(raw.decode("utf-8"), len(names))
    except UnicodeDecodeError:
        return -1
