"""Bulk decoding of scalar events: columns straight from the record bytes, no protobuf objects.

Most records of a training log are one scalar each, ``Event{wall_time, step, summary{value{tag,
simple_value | tensor}}}``, and records of equal length from one writer share one byte layout.
So records are grouped by length; the first record of a group is walked field by field (a
*template*); every record whose structural bytes (field keys, lengths, varint continuation bits,
the tensor's dtype) equal the template's parses exactly as the template does, and its step, wall
time, tag and value are read as numpy columns at the template's positions. Records that match no
template, and anything unusual (several values, other fields, repeated fields, a tag that is
not UTF-8), are left to the general protobuf path, which gives the reference result.

Metadata on a value: writers such as torch's ``new_style`` scalars repeat the same
``SummaryMetadata`` on every record. Only a tag's first value names its plugin and keeps its
metadata; on every later value the general path reads the number and ignores the metadata. So a
template accepts metadata that protobuf parses and that names the scalars plugin, its bytes are
structural (every matching record carries exactly those bytes, so they parse alike), and a
tag's first row in a batch that carries metadata is left to protobuf, which names the tag from
the metadata as it is written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.byte_columns import byte_extremes, gather_rows
from tbnb.format.proto import summary_pb2, types_pb2

from ..records import grouping
from ..records.grouping import group_by_length, tag_ids
from .wire import NoTemplate, Template, column, steps_of, varint

#: Templates tried per group before the remaining records are left to protobuf.
MAX_TEMPLATES = 8
MAX_LENGTH = 512


@dataclass(frozen=True)
class Layout(Template):
    """A one-scalar record's template: also where its value is."""

    value: tuple[int, str]  # column, numpy dtype of the value
    tf2: bool
    metadata: bool  # the value carries (scalars) metadata


@dataclass
class BulkScalars:
    """Scalar records decoded in bulk: ``rows`` index the records given, in ascending order."""

    rows: np.ndarray
    tag: np.ndarray  # per row: index into ``tags``
    tags: list[str]
    step: np.ndarray
    wall: np.ndarray
    #: float32 when every value was a float32 on the wire (TF1 ``simple_value``, TF2 DT_FLOAT):
    #: exact by construction, so the columns keep it in 4 bytes without checking (columns.py).
    value: np.ndarray
    #: Per row: the value is a TF2 tensor (True) or a TF1 ``simple_value``. One tag may have
    #: both forms (a run resumed by another writer), so the tag index does not say it: the
    #: rows of a tag stay one series, in record order.
    tf2: np.ndarray


class _Walker:
    """Walks one record, noting the positions of its fields and which bytes are structural."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.structural: list[int] = []
        self.continuation: list[int] = []

    def key(self, pos: int, end: int) -> tuple[int, int, int]:
        key, nxt = varint(self.data, pos, end)
        self.structural.extend(range(pos, nxt))
        return key >> 3, key & 7, nxt

    def length(self, pos: int, end: int) -> tuple[int, int]:
        n, nxt = varint(self.data, pos, end)
        self.structural.extend(range(pos, nxt))
        if nxt + n > end:
            raise NoTemplate
        return n, nxt

    def fields(self, pos: int, end: int) -> list[tuple[int, int, int]]:
        """(field, wire type, position after key) of each field in [pos, end), no repeats."""
        out: list[tuple[int, int, int]] = []
        seen: set[int] = set()
        while pos < end:
            field, wire, pos = self.key(pos, end)
            if field in seen:
                raise NoTemplate
            seen.add(field)
            out.append((field, wire, pos))
            if wire == 0:
                _, pos = varint(self.data, pos, end)
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            elif wire == 2:
                n, pos = varint(self.data, pos, end)
                pos += n
            else:
                raise NoTemplate
        if pos != end:
            raise NoTemplate
        return out


def _tensor(w: _Walker, pos: int, end: int) -> tuple[int, str]:
    """The value position and dtype of a rank-0 float/double TensorProto with one value."""
    dtype = None
    values: list[tuple[int, str]] = []
    for field, wire, p in w.fields(pos, end):
        if field == 1 and wire == 0:
            code, nxt = varint(w.data, p, end)
            w.structural.extend(range(p, nxt))
            if code not in (types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE):
                raise NoTemplate
            dtype = "<f4" if code == types_pb2.DT_FLOAT else "<f8"
        elif field == 2 and wire == 2:
            n, _ = w.length(p, end)
            if n:
                raise NoTemplate  # a shape with dimensions
        elif field in (4, 5, 6) and wire == 2:  # tensor_content, packed float_val / double_val
            n, q = w.length(p, end)
            if n not in (4, 8) or (field == 5 and n != 4) or (field == 6 and n != 8):
                raise NoTemplate
            values.append((q, "<f4" if n == 4 else "<f8"))
        elif (field, wire) in ((5, 5), (6, 1)):  # unpacked float_val / double_val
            values.append((p, "<f4" if wire == 5 else "<f8"))
        else:
            raise NoTemplate
    if dtype is None or len(values) != 1 or values[0][1] != dtype:
        raise NoTemplate
    return values[0]


def _scalars_metadata(w: _Walker, pos: int, end: int) -> None:
    """Accept a value's metadata only if protobuf parses it and it names the scalars plugin;
    every byte of it becomes structural."""
    try:
        md = summary_pb2.SummaryMetadata.FromString(bytes(w.data[pos:end]))
    except (DecodeError, RuntimeError, ValueError) as err:
        raise NoTemplate from err
    if md.plugin_data.plugin_name != "scalars":
        raise NoTemplate
    w.structural.extend(range(pos, end))


def template(data: bytes | memoryview) -> Layout | None:
    """The layout of a one-scalar event, or None if this record is anything else."""
    w = _Walker(data)
    wall = step = tag = value = None
    tf2 = metadata = False
    try:
        for field, wire, p in w.fields(0, len(data)):
            if field == 1 and wire == 1:
                wall = p
            elif field == 2 and wire == 0:
                _, nxt = varint(data, p, len(data))
                step = (p, nxt - p)
                w.continuation.extend(range(p, nxt))
            elif field == 5 and wire == 2:
                n, q = w.length(p, len(data))
                values = w.fields(q, q + n)
                if len(values) != 1 or values[0][:2] != (1, 2):
                    raise NoTemplate
                vn, vq = w.length(values[0][2], q + n)
                for f2, wire2, p2 in w.fields(vq, vq + vn):
                    if f2 == 1 and wire2 == 2:
                        tn, tq = w.length(p2, vq + vn)
                        tag = (tq, tn)
                    elif f2 == 2 and wire2 == 5:
                        value = (p2, "<f4")
                    elif f2 == 8 and wire2 == 2:
                        sn, sq = w.length(p2, vq + vn)
                        value, tf2 = _tensor(w, sq, sq + sn), True
                    elif f2 == 9 and wire2 == 2:
                        mn, mq = w.length(p2, vq + vn)
                        _scalars_metadata(w, mq, mq + mn)
                        metadata = True
                    else:
                        raise NoTemplate
            else:
                raise NoTemplate
    except (NoTemplate, IndexError):
        return None
    if tag is None or value is None or tag[1] == 0:
        return None
    return Layout(wall, step, tag, tuple(sorted(set(w.structural))), tuple(w.continuation), value, tf2, metadata)


Part = tuple[np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool, bool, bool]


def _decode_group(rows: np.ndarray, buf: bytes | memoryview, starts: np.ndarray, length: int, out: list[Part]) -> None:
    """Decode one group of equal-length records, template by template; append Parts to ``out``.

    ``rows`` holds the records' bytes ([m, length]). A Part is (indices within ``starts``,
    tags, tag index per row, step, wall, value, whether the values are TF2 tensors, whether they
    carry metadata, whether they were float32s).
    """
    remaining: np.ndarray | None = None  # None: every row of the group
    for _ in range(MAX_TEMPLATES):
        count = len(rows) if remaining is None else len(remaining)
        if count < grouping.MIN_DECODE_GROUP:
            return
        head = 0 if remaining is None else int(remaining[0])
        first = int(starts[head])
        layout = template(buf[first : first + length])
        if layout is None:  # not a scalar record: protobuf will take it
            remaining = (np.arange(1, len(rows)) if remaining is None else remaining[1:])
            continue
        sub = rows if remaining is None else rows[remaining]
        extremes = byte_extremes(sub)  # (of these rows; the matching ones lie within them)
        match = _matching(sub, layout, extremes)  # (sub[0] is the template's record)
        taken = np.arange(len(rows)) if remaining is None else remaining
        if not match.all():
            taken, sub = taken[match], sub[match]
            remaining = (np.flatnonzero(~match) if remaining is None else remaining[~match])
        else:
            remaining = np.empty(0, dtype=np.int64)
        out.append(_columns(sub, taken, layout, extremes))


def _matching(sub: np.ndarray, layout: Layout, extremes: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Which rows of ``sub`` fit the template of its first row: the same structural bytes, the
    same continuation bits. Most columns are the same in every row (their ``extremes`` agree):
    only the others are compared row by row, one column at a time (not every structural column
    of every row)."""
    low, high = extremes
    match = np.ones(len(sub), dtype=bool)
    first = sub[0]
    for col in layout.structural:
        if low[col] != high[col]:
            match &= sub[:, col] == first[col]
    for col in layout.continuation:
        if low[col] < 0x80 <= high[col]:  # continuation bits on both sides of 0x80
            match &= (sub[:, col] & 0x80) == (first[col] & 0x80)
    return match


def _columns(sub: np.ndarray, taken: np.ndarray, layout: Layout,
             extremes: tuple[np.ndarray, np.ndarray] | None = None) -> Part:
    reps, tag_index = tag_ids(sub, layout.tag, extremes)
    tags: list[str] = []
    keep: np.ndarray | None = None
    col, n = layout.tag
    for i, r in enumerate(reps.tolist()):
        try:
            tags.append(bytes(sub[r, col : col + n]).decode("utf-8"))
        except UnicodeDecodeError:
            tags.append("")
            bad = tag_index == i  # protobuf rejects these records and reports them
            keep = ~bad if keep is None else keep & ~bad
    vcol, vtype = layout.value
    value = column(sub, vcol, vtype).astype(np.float64)
    wall = column(sub, layout.wall, "<f8") if layout.wall is not None else np.zeros(len(sub))
    step = steps_of(sub, layout.step, extremes)
    f32 = vtype == "<f4"
    if keep is not None:
        return (taken[keep], tags, tag_index[keep], step[keep], wall[keep], value[keep], layout.tf2,
                layout.metadata, f32)
    return taken, tags, tag_index, step, wall, value, layout.tf2, layout.metadata, f32


def decode_scalars(buf: bytes | memoryview, starts: np.ndarray, lengths: np.ndarray,
                   gathered: dict[int, tuple[np.ndarray, np.ndarray]] | None = None,
                   segments: np.ndarray | None = None) -> BulkScalars:
    """Decode the one-scalar records among ``starts``/``lengths`` (positions of record data).

    ``gathered`` is the bulk framer's rows by length (``Framed.rows``), used where it covers a
    whole length group. ``segments`` (ascending record indices, the first 0) cuts the records
    into batches applied separately (the files of many runs decoded at once): a tag's first row
    carrying metadata is left to protobuf in each of them.
    """
    a = np.frombuffer(buf, dtype=np.uint8)
    n = len(starts)
    index: dict[str, int] = {}
    # Scatter every decoded row into per-record columns: record order without a sort.
    tag_of = np.full(n, -1, dtype=np.int64)
    step = np.zeros(n, dtype=np.int64)
    wall = np.zeros(n, dtype=np.float64)
    value = np.zeros(n, dtype=np.float64)
    tf2 = np.zeros(n, dtype=bool)
    metadata = np.zeros(n, dtype=bool)
    all_f32 = True
    for length, group in group_by_length(lengths, MAX_LENGTH + 1):
        if len(group) < grouping.MIN_DECODE_GROUP:
            continue
        parts: list[Part] = []
        known = (gathered or {}).get(length)
        if known is not None and len(known[0]) == len(group):
            if not np.array_equal(starts[group], known[0]):  # (the same records, as a rule)
                group = np.searchsorted(starts, known[0])  # starts are ascending
            rows = known[1]  # (columns of the framer's gathered rows: read in place)
        else:
            rows = gather_rows(a, starts[group], length)
        _decode_group(rows, buf, starts[group], length, parts)
        for taken, local_tags, local_index, s, w, v, is_tf2, has_md, f32 in parts:
            all_f32 &= f32
            remap = np.array([index.setdefault(t, len(index)) for t in local_tags], dtype=np.int64)
            rows = group[taken]
            tag_of[rows] = remap[local_index]
            step[rows], wall[rows], value[rows], tf2[rows], metadata[rows] = s, w, v, is_tf2, has_md
    rows = np.flatnonzero(tag_of >= 0)
    if metadata.any():  # a tag's first row names it with its own metadata: protobuf's to apply
        keys = tag_of[rows]
        if segments is not None:
            keys = (np.searchsorted(segments, rows, side="right") - 1) * len(index) + keys
        _, first = np.unique(keys, return_index=True)
        tag_of[rows[first[metadata[rows[first]]]]] = -1
        rows = np.flatnonzero(tag_of >= 0)
    tags = sorted(index, key=index.__getitem__)
    if len(rows) == n:  # every record decoded (most batches past a file's first): no gather
        values = value.astype(np.float32) if all_f32 else value  # (exact: each was a float32)
        return BulkScalars(rows, tag_of, tags, step, wall, values, tf2)
    values = value[rows].astype(np.float32) if all_f32 else value[rows]
    return BulkScalars(rows, tag_of[rows], tags, step[rows], wall[rows], values, tf2[rows])
