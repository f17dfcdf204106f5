"""Whether many serialized payload messages are ones protobuf certainly parses, all at once.

The value walker (``values_bulk``) reads a record's tag, step and wall time and keeps the
payload (an image, a histogram, a tensor...) and the metadata as bytes, to be decoded when
shown. Protobuf, which the general path parses every record with, parses them whole when it
reads the record, and refuses the whole record when a payload's wire format is broken (a
length running past its message, a field number 0, a group never closed): the general path then
reports the record and skips it. A walker that kept such a record would answer differently
(a point more, or worse, a purge that the record's step sets off).

``messages_ok`` walks the fields of every message of every row in lockstep, nested messages
included, and accepts only the encodings writers produce: a known field with its own wire type
and a valid body (packed fixed-width arrays of whole elements, ASCII strings, nested messages
that pass in turn), an unknown field of wire type 0, 1, 2 or 5 that ends inside its message.
Anything else (a known field under another wire type, a group, a packed varint array, a
string with non-ASCII bytes, a 10-byte varint, more than ``MAX_FIELDS`` fields) is not judged
here: the row is handed to protobuf, which gives the general path's answer by construction. So
a row is rejected here for being unusual, never accepted for being broken.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .wire import MAX_VARINT_BYTES, NoTemplate, varint, varints

# What a field of a known message may be (its rule): the one wire type a writer uses for it, and
# the check its body needs.
VARINT, FIXED64, FIXED32, BYTES, STRING, PACKED64, PACKED32 = range(7)
UNKNOWN = 7  # a field number the message does not declare
#: Rules of message fields (``MESSAGE + k``): a nested message of kind k.
MESSAGE = 8

# Message kinds, and their fields as summary.proto and tensor.proto declare them. A tensor's
# packed varint arrays (int_val, int64_val, bool_val, half_val, uint32_val, uint64_val) are
# listed as VARINT, their unpacked form: packed, they are handed over, as are its resource
# handles and variants (-1).
IMAGE, HISTOGRAM, AUDIO, TENSOR, SHAPE, DIM, METADATA, PLUGIN_DATA = range(8)
_FIELDS: dict[int, dict[int, int]] = {
    IMAGE: {1: VARINT, 2: VARINT, 3: VARINT, 4: BYTES},
    HISTOGRAM: {1: FIXED64, 2: FIXED64, 3: FIXED64, 4: FIXED64, 5: FIXED64, 6: PACKED64, 7: PACKED64},
    AUDIO: {1: FIXED32, 2: VARINT, 3: VARINT, 4: BYTES, 5: STRING},
    TENSOR: {1: VARINT, 2: MESSAGE + SHAPE, 3: VARINT, 4: BYTES, 5: PACKED32, 6: PACKED64, 7: VARINT,
             8: BYTES, 9: PACKED32, 10: VARINT, 11: VARINT, 12: PACKED64, 13: VARINT, 16: VARINT, 17: VARINT,
             18: BYTES, 14: -1, 15: -1},  # (resource handles, variants: never judged here)
    SHAPE: {2: MESSAGE + DIM, 3: VARINT},
    DIM: {1: VARINT, 2: STRING},
    METADATA: {1: MESSAGE + PLUGIN_DATA, 2: STRING, 3: STRING, 4: VARINT},
    PLUGIN_DATA: {1: STRING, 2: BYTES},
}
#: The payload kinds by their ``Summary.Value`` field number (``values_fields.PAYLOAD_FIELDS``).
PAYLOAD_KINDS = {4: IMAGE, 5: HISTOGRAM, 6: AUDIO, 8: TENSOR}
#: Fields a message may hold before its row is handed over (a tensor of unpacked values).
MAX_FIELDS = 64
#: Nesting a row may reach before it is handed over (a tensor's shape's dims are 3 deep).
MAX_DEPTH = 4
#: Longest string checked for ASCII here; a longer one is handed over.
MAX_STRING = 1024
_MAX_FIELD_NUMBER = 1 << 29  # protobuf's field numbers are below this
_FIELD_LIMIT = 32  # rule table columns: field numbers above are UNKNOWN (none of ours is)
#: For each rule: the wire type it accepts (-1: none, the row is handed over).
_WIRE_OF_RULE = {VARINT: 0, FIXED64: 1, FIXED32: 5, BYTES: 2, STRING: 2, PACKED64: 2, PACKED32: 2}


def _rule_table() -> np.ndarray:
    """[kind, field number] -> rule (UNKNOWN where undeclared; -1 where never judged here)."""
    table = np.full((len(_FIELDS), _FIELD_LIMIT), UNKNOWN, dtype=np.int64)
    for kind, fields in _FIELDS.items():
        for number, rule in fields.items():
            table[kind, number] = rule
    return table


_RULES = _rule_table()


def messages_ok(a: np.ndarray, starts: np.ndarray, ends: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """For each row, whether the message ``a[starts[i]:ends[i]]`` of kind ``kinds[i]`` is one
    protobuf parses, as the module doc says (False: hand the row to protobuf)."""
    m = len(starts)
    ok = np.ones(m, dtype=bool)
    if not m:
        return ok
    windows = sliding_window_view(a, MAX_VARINT_BYTES) if len(a) >= MAX_VARINT_BYTES else None
    # the messages still to walk: their row, position, end and kind
    row = np.arange(m, dtype=np.int64)
    pos, end, kind = starts.astype(np.int64), ends.astype(np.int64), kinds.astype(np.int64)
    for _ in range(MAX_DEPTH):
        nested: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for _ in range(MAX_FIELDS):
            live = ok[row] & (pos < end)
            if not live.any():
                break
            row, pos, end, kind = row[live], pos[live], end[live], kind[live]
            good, pos, sub = _field(a, windows, pos, end, kind)
            ok[row[~good]] = False
            if sub is not None:
                at, body, length, sub_kind = sub
                nested.append((row[at], body, body + length, sub_kind))
        else:
            ok[row[ok[row] & (pos < end)]] = False  # more fields than MAX_FIELDS
        ok[row[pos > end]] = False
        if not nested:
            return ok
        row = np.concatenate([n[0] for n in nested])
        pos, end, kind = (np.concatenate([n[i] for n in nested]) for i in (1, 2, 3))
    ok[row[ok[row]]] = False  # nested deeper than MAX_DEPTH
    return ok


def _field(a: np.ndarray, windows: np.ndarray | None, pos: np.ndarray, end: np.ndarray, kind: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None]:
    """One field of each message: whether it is judged good, the position after it, and the
    nested messages it opens (indices into the rows given, their bodies, lengths and kinds)."""
    if windows is None:  # (a buffer shorter than one varint window: nothing to judge in bulk)
        return np.zeros(len(pos), dtype=bool), end, None
    key, key_len, key_whole = varints(a, windows, pos)
    number = (key >> np.uint64(3)).astype(np.int64)
    wire = (key & np.uint64(7)).astype(np.int64)
    rule = _RULES[kind, np.minimum(number, _FIELD_LIMIT - 1)]
    rule[number >= _FIELD_LIMIT] = UNKNOWN
    body = pos + key_len
    good = (key_whole & (key_len < MAX_VARINT_BYTES) & (body <= end) & (number > 0) & (number < _MAX_FIELD_NUMBER)
            & _WIRE_OK[rule + 1, wire])
    after = body + _FIXED_SIZE[wire]
    lengths = np.zeros(len(pos), dtype=np.int64)
    idx = np.flatnonzero(good & _HAS_VARINT[wire])
    if len(idx):
        value, count, whole = varints(a, windows, body[idx])
        good[idx] &= whole & (count < MAX_VARINT_BYTES)
        n = np.where(wire[idx] == 2, np.minimum(value, np.uint64(1 << 62)).astype(np.int64), 0)
        lengths[idx] = n
        body[idx] += count
        after[idx] = body[idx] + n
    good &= after <= end
    good &= lengths % _MULTIPLE[rule + 1] == 0
    strings = np.flatnonzero(good & (rule == STRING))
    if len(strings):
        good[strings] &= _ascii(a, body[strings], lengths[strings])
    nests = np.flatnonzero(good & (rule >= MESSAGE))
    sub = (nests, body[nests], lengths[nests], rule[nests] - MESSAGE) if len(nests) else None
    return good, np.where(good, after, end + 1), sub


def _wire_ok() -> np.ndarray:
    """[rule + 1, wire type] -> whether a field of that rule may come in that wire type: its
    own, for a declared field; 0, 1, 2 or 5 for an undeclared one; none for rule -1."""
    table = np.zeros((MESSAGE + len(_FIELDS) + 1, 8), dtype=bool)
    for rule, wire in _WIRE_OF_RULE.items():
        table[rule + 1, wire] = True
    table[UNKNOWN + 1, [0, 1, 2, 5]] = True
    table[MESSAGE + 1 :, 2] = True
    return table


_WIRE_OK = _wire_ok()
_FIXED_SIZE = np.array([0, 8, 0, 0, 0, 4, 0, 0], dtype=np.int64)  # bytes after the key, by wire type
_HAS_VARINT = np.array([True, False, True, False, False, False, False, False])  # a value or a length
_MULTIPLE = np.ones(MESSAGE + len(_FIELDS) + 1, dtype=np.int64)  # by rule + 1: a packed array's element
_MULTIPLE[PACKED64 + 1], _MULTIPLE[PACKED32 + 1] = 8, 4


def _ascii(a: np.ndarray, body: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Whether each string ``a[body:body+length]`` is short and all ASCII (so valid UTF-8)."""
    short = lengths <= MAX_STRING
    out = short.copy()
    idx = np.flatnonzero(short & (lengths > 0))
    if len(idx):
        n = lengths[idx]
        offsets = np.repeat(body[idx] - np.concatenate([[0], np.cumsum(n)[:-1]]), n) + np.arange(int(n.sum()))
        high = (a[offsets] >= 0x80).astype(np.int64)
        out[idx] = np.add.reduceat(high, np.concatenate([[0], np.cumsum(n)[:-1]])) == 0
    return out


def message_shape(data: bytes | memoryview, start: int, end: int, kind: int
                  ) -> tuple[list[int], list[int], list[int]] | None:
    """``messages_ok``'s rules applied to one message ``data[start:end]`` of ``kind``, for a
    template: None where it would not accept the message; else the positions of its structural
    bytes (keys, lengths), of its varints' bytes (whose continuation bits fix their lengths) and
    of its strings' bytes (which must be ASCII). Another message with the same structural bytes
    at the same positions, varints of the same lengths and ASCII strings there is accepted too,
    as the bulk walk would accept it: acceptance depends on nothing else."""
    structural: list[int] = []
    continuation: list[int] = []
    ascii_at: list[int] = []
    if not _shape(data, start, end, kind, 0, structural, continuation, ascii_at):
        return None
    return structural, continuation, ascii_at


def _varint_at(data: bytes | memoryview, pos: int, end: int) -> tuple[int, int] | None:
    """``wire.varint`` (value, next position), None where it runs past ``end`` or takes 10
    bytes (``messages_ok`` hands such rows over)."""
    try:
        value, nxt = varint(data, pos, end)
    except NoTemplate:
        return None
    return (value, nxt) if nxt - pos < MAX_VARINT_BYTES else None


def _shape(data: bytes | memoryview, pos: int, end: int, kind: int, depth: int, structural: list[int],
           continuation: list[int], ascii_at: list[int]) -> bool:
    for _ in range(MAX_FIELDS):
        if pos >= end:
            return pos == end
        at = _varint_at(data, pos, end)
        if at is None:
            return False
        key, nxt = at
        number, wire = key >> 3, key & 7
        if not 0 < number < _MAX_FIELD_NUMBER:
            return False
        rule = int(_RULES[kind, number]) if number < _FIELD_LIMIT else UNKNOWN
        if rule < 0:
            return False
        expected = 2 if rule >= MESSAGE else _WIRE_OF_RULE.get(rule)
        if (wire != expected) if rule != UNKNOWN else wire not in (0, 1, 2, 5):
            return False
        structural.extend(range(pos, nxt))
        pos = nxt
        if wire == 1 or wire == 5:
            pos += 8 if wire == 1 else 4
        else:
            at = _varint_at(data, pos, end)
            if at is None:
                return False
            n, after = at
            if wire == 0:
                continuation.extend(range(pos, after))
                pos = after
            else:
                structural.extend(range(pos, after))
                body, pos = after, after + n
                if pos > end or (rule == PACKED64 and n % 8) or (rule == PACKED32 and n % 4):
                    return False
                if rule == STRING:
                    if n > MAX_STRING or any(b >= 0x80 for b in bytes(data[body:pos])):
                        return False
                    ascii_at.extend(range(body, pos))
                elif rule >= MESSAGE and (depth + 1 >= MAX_DEPTH or not _shape(
                        data, body, pos, rule - MESSAGE, depth + 1, structural, continuation, ascii_at)):
                    return False
        if pos > end:
            return False
    return pos == end

