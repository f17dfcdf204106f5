"""Bulk walking of one-value events of any length: tag, step and wall time as columns.

Histograms, images, text and the like are kept as sampled records, decoded only when shown, so
loading them needs just each record's step, wall time and tag. Their records differ in length,
but their outer structure is the same: ``Event{wall_time, step, summary{value{tag, <payload>,
metadata?}}}``. This walks every record at once with numpy "cursors": each step reads a key or
a varint length at each row's position and advances it. Rows that do not follow the structure
(other fields, more values, keys or tags that cannot be read this way) are flagged, and the
caller parses them with protobuf, which stays the reference.

A large group of records of one length (a histogram tag logged every step) is cheaper still: one
record is walked in Python as a template (with the cursor walk's rules), every record whose
structural bytes equal the template's parses alike, and its columns are read at fixed offsets,
as ``scalars_bulk`` does for scalars. A differential test holds the two walks to one result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..records.grouping import group_by_length, tag_ids
from .wire import MAX_VARINT_BYTES, NoTemplate, Template, column, steps_of, varint, varints

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


@dataclass
class _Fields:
    """What the walk found for each record: whether it is a one-value event, where its tag is
    (and the tag's index once named), its step and wall time, and whether its value carries
    metadata."""

    ok: np.ndarray
    tag_start: np.ndarray
    tag_len: np.ndarray
    tag: np.ndarray  # index into the tag names; -1 until named, or where not UTF-8
    step: np.ndarray
    wall: np.ndarray
    has_metadata: np.ndarray

    @classmethod
    def empty(cls, m: int) -> _Fields:
        return cls(np.zeros(m, dtype=bool), np.full(m, -1, dtype=np.int64), np.zeros(m, dtype=np.int64),
                   np.full(m, -1, dtype=np.int64), np.zeros(m, dtype=np.int64), np.zeros(m), np.zeros(m, dtype=bool))

    def put(self, at: np.ndarray, other: _Fields) -> None:
        for name in ("ok", "tag_start", "tag_len", "tag", "step", "wall", "has_metadata"):
            getattr(self, name)[at] = getattr(other, name)


def walk_values(buf: bytes, starts: np.ndarray, lengths: np.ndarray, templates: bool = True) -> BulkValues:
    """Walk the records ``buf[starts[i]:starts[i]+lengths[i]]``; keep the one-value events.

    Large groups of records of one length are matched against a template first
    (``_by_template``); the rest, or all with ``templates=False``, are walked with the cursors.
    Both give the same result.
    """
    a = np.frombuffer(buf, dtype=np.uint8)
    m = len(starts)
    names: dict[str, int] = {}
    found = _Fields.empty(m)
    rest = _by_template(buf, a, starts, lengths, found, names) if templates else np.arange(m)
    if len(rest):
        walked = _walk(a, starts[rest], lengths[rest])
        named = np.flatnonzero(walked.ok)
        walked.tag[named] = _tag_names(a, walked.tag_start[named], walked.tag_len[named], names)
        found.put(rest, walked)
    rows = np.flatnonzero(found.ok & (found.tag >= 0))
    tags = sorted(names, key=names.__getitem__)
    return BulkValues(rows, found.tag[rows], tags, found.step[rows], found.wall[rows], found.has_metadata[rows])


def _walk(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> _Fields:
    """The cursor walk: every record at once, one numpy step per field."""
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
    return _Fields(c.ok, tag_start, tag_len, np.full(m, -1, dtype=np.int64), step, wall, has_metadata)


# -- templates --------------------------------------------------------------------------------

#: Length groups of at least this many records, or this share of the batch, are matched against
#: a template. Each costs a Python walk of one record and some twenty numpy steps over its rows:
#: for small groups (images of many sizes) the cursor walk of all of them at once is cheaper.
MIN_TEMPLATE_ROWS = 256
MIN_TEMPLATE_SHARE = 0.125
#: Templates tried per length group before its remaining records go to the cursor walk.
TEMPLATES_PER_GROUP = 2
#: Records whose tag ends further in than this are left to the cursor walk.
MAX_HEAD = 320


@dataclass(frozen=True)
class _Layout(Template):
    """A one-value record's template: also whether its value carries metadata."""

    has_metadata: bool

    @property
    def head(self) -> int:
        """Bytes from the start that hold the wall time, step and tag, and the keys and lengths
        up to the payload's."""
        return max(sum(self.tag), 1 + max((c for c in self.structural if c < MAX_HEAD), default=0))


def _layout(data: bytes, start: int, length: int) -> _Layout | None:
    """The cursor walk's rules applied to one record, noting its structural columns; None
    where the cursor walk would not accept the record."""
    end = start + length
    pos = start
    structural: list[int] = []
    continuation: list[int] = []
    wall = step = tag = None
    payload = has_metadata = False
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
            if key >= 0x80 or key & 7 != _LEN:
                return None
            n, nxt = varint(data, pos + 1, end)
            structural.extend(range(pos, nxt))
            field = key >> 3
            if field == 1 and tag is None:
                tag = (nxt, n)
            elif field in PAYLOAD_FIELDS and not payload:
                payload = True
            elif field == 9 and not has_metadata:
                has_metadata = True
            else:
                return None
            pos = nxt + n
            if pos > end:
                return None
    except NoTemplate:
        return None
    if pos != end or tag is None or tag[1] == 0 or not payload:
        return None
    return _Layout(None if wall is None else wall - start, None if step is None else (step[0] - start, step[1]),
                   (tag[0] - start, tag[1]), tuple(p - start for p in structural),
                   tuple(p - start for p in continuation), has_metadata)


def _by_template(buf: bytes, a: np.ndarray, starts: np.ndarray, lengths: np.ndarray, found: _Fields,
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
            head = sliding_window_view(a, layout.head)[s]
            match = _matches(a, s, head, layout)
            if match.all():
                _read_columns(head, layout, found, group, names)
                done[group] = True
                break
            taken = group[match]
            _read_columns(head[match], layout, found, taken, names)
            done[taken] = True
            group = group[~match]
    return np.flatnonzero(~done)


def _matches(a: np.ndarray, s: np.ndarray, head: np.ndarray, layout: _Layout) -> np.ndarray:
    """Which records (data at ``s``, first bytes ``head``) have the layout's structure."""
    width = head.shape[1]
    near = [c for c in layout.structural if c < width]
    far = np.asarray([c for c in layout.structural if c >= width], dtype=np.int64)
    match = (head[:, near] == head[0, near]).all(axis=1)
    if len(far):
        match &= (a[s[:, None] + far] == a[s[0] + far]).all(axis=1)
    if layout.continuation:
        cols = list(layout.continuation)  # in the head: the step comes before the summary
        match &= ((head[:, cols] ^ head[0, cols]) & 0x80 == 0).all(axis=1)
    return match


def _read_columns(rows: np.ndarray, layout: _Layout, found: _Fields, taken: np.ndarray,
                  names: dict[str, int]) -> None:
    """Wall time, step and tag of matched records, from their first bytes ``rows``."""
    found.ok[taken] = True
    found.has_metadata[taken] = layout.has_metadata
    if layout.wall is not None:
        found.wall[taken] = column(rows, layout.wall, "<f8")
    if layout.step is not None:
        found.step[taken] = steps_of(rows, layout.step)
    col, n = layout.tag
    reps, inverse = tag_ids(rows, layout.tag)
    local = np.array([_name(bytes(rows[r, col : col + n]), names) for r in reps.tolist()], dtype=np.int64)
    found.tag[taken] = local[inverse]


def _tag_names(a: np.ndarray, start: np.ndarray, length: np.ndarray, names: dict[str, int]) -> np.ndarray:
    """Each row's tag index in ``names`` (new tags added); -1 where the tag is not UTF-8
    (protobuf's case) or 256 bytes or longer (left to protobuf)."""
    index = np.full(len(start), -1, dtype=np.int64)
    for n, group in group_by_length(length, 256):
        block = sliding_window_view(a, n)[start[group]]
        reps, inverse = tag_ids(block, (0, n))
        index[group] = np.array([_name(bytes(block[r]), names) for r in reps.tolist()], dtype=np.int64)[inverse]
    return index


def _name(raw: bytes, names: dict[str, int]) -> int:
    """The index of a tag in ``names`` (added if new); -1 if it is not UTF-8 (protobuf's case)."""
    try:
        return names.setdefault(raw.decode("utf-8"), len(names))
    except UnicodeDecodeError:
        return -1
