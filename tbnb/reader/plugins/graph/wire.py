"""Serialized NodeDefs scanned column-wise: every node's fields found at once, with numpy.

Building one protobuf message per node and reading its fields one by one costs several Python
operations per node and per input, which dominates reading a graph of 100,000 nodes. Here the
GraphDef is split into its nodes' bytes (``GraphDefNodes``), and the fields of all nodes are
found together: each pass reads the next field header of every node still being scanned, so the
number of passes is the largest field count of a node, not the number of nodes (the few nodes
with very many inputs are finished one by one). Only names, ops, devices, inputs and the raw
``_output_shapes`` value are taken; a node's attributes are decoded when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import GraphError

NAME, OP, INPUT, DEVICE, ATTR = 1, 2, 3, 4, 5
_LENGTH_DELIMITED, _VARINT, _FIXED64, _FIXED32 = 2, 0, 1, 5
_WIDTH = {_FIXED64: 8, _FIXED32: 4}
#: Below this many unfinished nodes, the scan goes on node by node.
_VECTOR_MIN = 16
_SHAPES_KEY = b"\x0a\x0e_output_shapes\x12"


@dataclass
class Fields:
    """Length-delimited fields of a set of nodes: node number, field number, byte range."""

    node: np.ndarray
    field: np.ndarray
    start: np.ndarray
    stop: np.ndarray


def _varint(a: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Decode one varint at each position: (values, positions after them).

    The first byte is read for every position at once; only the varints longer than one byte
    (few: field tags and most lengths fit in one) go on to the next bytes."""
    if len(pos) and (pos.max() >= len(a) or pos.min() < 0):
        raise GraphError("a node's bytes end inside a varint")
    b = a[pos]
    value = (b & 0x7F).astype(np.uint64)
    cur = pos + 1
    active = np.flatnonzero(b >= 0x80)
    for k in range(1, 10):
        if not len(active):
            return value, cur
        if (cur[active] >= len(a)).any():
            raise GraphError("a node's bytes end inside a varint")
        b = a[cur[active]].astype(np.uint64)
        value[active] |= (b & np.uint64(0x7F)) << np.uint64(7 * k)
        cur[active] += 1
        active = active[b >= 0x80]
    if len(active):
        raise GraphError("a varint longer than ten bytes")
    return value, cur


def _scalar_varint(a: memoryview, p: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if p >= end or shift > 63:
            raise GraphError("a node's bytes end inside a varint")
        b = a[p]
        p += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, p


def _scan_one(a: memoryview, node: int, p: int, end: int, out: list[tuple[int, int, int, int]]) -> None:
    """One node's fields, one by one (from a memoryview: its items are plain ints, read far faster
    than a numpy array's); one-byte tags and lengths, the common case, are read inline."""
    while p < end:
        tag = a[p]
        if tag < 0x80:
            p += 1
        else:
            tag, p = _scalar_varint(a, p, end)
        wire = tag & 7
        if wire == _LENGTH_DELIMITED:
            if p >= end:
                raise GraphError("a node's bytes end inside a varint")
            length = a[p]
            if length < 0x80:
                p += 1
            else:
                length, p = _scalar_varint(a, p, end)
            if p + length > end:
                raise GraphError("a field runs past the end of its node")
            out.append((node, tag >> 3, p, p + length))
            p += length
        elif wire == _VARINT:
            p = _scalar_varint(a, p, end)[1]
        elif wire in _WIDTH:
            p += _WIDTH[wire]
        else:
            raise GraphError(f"unsupported wire type {wire} in a node")
    if p != end:
        raise GraphError("a field runs past the end of its node")


def scan(a: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> Fields:
    """Every length-delimited field of the nodes occupying ``a[starts[i]:stops[i]]``."""
    pos, end = starts.astype(np.int64), stops.astype(np.int64)
    node = np.flatnonzero(end > pos)  # an empty node (a NodeDef with no field set) has nothing to read
    pos, end = pos[node], end[node]
    parts: list[tuple[np.ndarray, ...]] = []
    while len(node) >= _VECTOR_MIN:
        tag, pos = _varint(a, pos)
        field, wire = (tag >> np.uint64(3)).astype(np.int64), (tag & np.uint64(7)).astype(np.int64)
        stop = pos.copy()
        delimited = wire == _LENGTH_DELIMITED
        if delimited.any():
            length, after = _varint(a, pos[delimited])
            pos[delimited] = after
            stop[delimited] = after + length.astype(np.int64)
        plain = wire == _VARINT
        if plain.any():
            stop[plain] = _varint(a, pos[plain])[1]
        for w, width in _WIDTH.items():
            stop[wire == w] += width
        if (~(delimited | plain | (wire == _FIXED64) | (wire == _FIXED32))).any():
            raise GraphError("unsupported wire type in a node")
        if (stop > end).any():
            raise GraphError("a field runs past the end of its node")
        parts.append((node[delimited], field[delimited], pos[delimited], stop[delimited]))
        more = stop < end
        node, pos, end = node[more], stop[more], end[more]
    rest: list[tuple[int, int, int, int]] = []
    view = memoryview(a)
    for k in range(len(node)):
        _scan_one(view, int(node[k]), int(pos[k]), int(end[k]), rest)
    if rest:
        r = np.array(rest, dtype=np.int64)
        parts.append((r[:, 0], r[:, 1], r[:, 2], r[:, 3]))
    if not parts:
        empty = np.zeros(0, np.int64)
        return Fields(empty, empty, empty, empty)
    cols = [np.concatenate([p[k] for p in parts]) for k in range(4)]
    order = np.lexsort((cols[2], cols[0]))  # by node, then by position: fields in written order
    return Fields(*(c[order] for c in cols))


def last_of(fields: Fields, number: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Byte range of field ``number`` per node (the last one written wins; empty if absent)."""
    sel = fields.field == number
    start = np.zeros(n, dtype=np.int64)
    stop = np.zeros(n, dtype=np.int64)
    start[fields.node[sel]] = fields.start[sel]
    stop[fields.node[sel]] = fields.stop[sel]
    return start, stop


def shapes_ranges(a: np.ndarray, fields: Fields, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Byte range of each node's ``_output_shapes`` AttrValue (empty where it has none)."""
    sel = np.flatnonzero(fields.field == ATTR)
    start, stop = fields.start[sel], fields.stop[sel]
    key = np.frombuffer(_SHAPES_KEY, dtype=np.uint8)
    fits = stop - start > len(key)
    sel, start, stop = sel[fits], start[fits], stop[fits]
    if len(sel):
        match = (a[start[:, None] + np.arange(len(key))] == key).all(axis=1)
        sel, start, stop = sel[match], start[match], stop[match]
    length, value = _varint(a, start + len(key))
    out_start = np.zeros(n, dtype=np.int64)
    out_stop = np.zeros(n, dtype=np.int64)
    out_start[fields.node[sel]] = value
    out_stop[fields.node[sel]] = np.minimum(value + length.astype(np.int64), stop)
    return out_start, out_stop
