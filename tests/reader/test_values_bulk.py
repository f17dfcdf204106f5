"""Walking one-value records in bulk: the cursors' varints, and templates against the cursor walk."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tbnb.format.proto import event_pb2
from tbnb.reader.events import values_bulk, values_template


def _varint(value: int) -> bytes:
    """protobuf's varint of ``value`` (0 <= value < 2**64), as an Event's int64 step writes it."""
    signed = value - (1 << 64) if value >= 1 << 63 else value
    return event_pb2.Event(step=signed).SerializeToString()[1:]  # after the key byte 0x10


def test_cursor_varints_of_every_length_and_at_the_buffer_end() -> None:
    """The walker's varints, 1 to 10 bytes, decode as protobuf's; one that would run past the
    buffer, or past 10 bytes, flags its row (protobuf then parses that record)."""
    from tbnb.reader.events.values_bulk import _Cursor

    rng = np.random.default_rng(5)
    values = [1, 127, 128, 300, 16_383, 16_384, (1 << 21) - 1, 1 << 21, 1 << 28, 1 << 35, 1 << 42,
              1 << 49, 1 << 56, (1 << 63) + 5, (1 << 64) - 1] + rng.integers(0, 1 << 62, 40).tolist()
    blob, at = b"", []
    for v in values:
        at.append(len(blob))
        blob += _varint(int(v)) + b"\x00"
    at.append(len(blob))
    blob += b"\xff" * 11 + b"\x00"  # eleven continuation bytes: not a varint
    at.append(len(blob))
    blob += b"\xff\xff"  # a varint cut by the end of the buffer
    a = np.frombuffer(blob, dtype=np.uint8)
    where = np.ones(len(at), dtype=bool)
    cursor = _Cursor(a, np.array(at), np.full(len(at), 12))
    value, count = cursor.varint(np.array(at), where)
    n = len(values)
    assert value[:n].tolist() == [int(v) for v in values]
    assert count[:n].tolist() == [len(_varint(int(v))) for v in values]
    assert cursor.ok.tolist() == [True] * n + [False, False]


# -- one-value records: template matching against the cursor walk ---------------------------------

def _field(number: int, body: bytes) -> bytes:
    """A length-delimited field (one-byte key) with its varint length."""
    return bytes([number << 3 | 2]) + _varint(len(body)) + body


def _payload(rng: np.random.Generator, field: int, size: int) -> bytes:
    """A payload message of ``size`` bytes, as writers make them: an Image (4) or a TensorProto
    (8) whose bytes field holds random bytes (after a tensor's dtype), a HistogramProto (5) with
    a min and one packed array, each padded to the size by an unknown varint field (20), which
    protobuf keeps; protobuf parses each."""
    def _len(n: int) -> bytes:
        return _varint(n) if n else b"\x00"

    head = {4: b"", 5: b"\x09" + rng.bytes(8), 8: b"\x08\x01"}[field]
    key = {4: 0x22, 5: 0x3A, 8: 0x22}[field]  # image bytes, histogram buckets, tensor content
    body = size - len(head) - 2
    while True:
        pad = size - len(head) - 1 - len(_len(body)) - body
        if body >= 0 and (pad == 0 or pad >= 3) and (field != 5 or body % 8 == 0):
            break
        body -= 1
    filler = b"\xa0\x01" + _varint(1 << (7 * (pad - 3))) if pad else b""  # a varint of pad - 2 bytes
    return head + bytes([key]) + _len(body) + rng.bytes(body) + filler


def _value_record(rng: np.random.Generator, shape: dict[str, object], step: int) -> bytes:
    """``Event{wall_time?, step?, summary{value{...}}}`` by hand: the value's fields in the
    shape's order, some of them ones the walker must refuse."""
    parts = {"tag": _field(1, shape["tag"]), "payload": _field(shape["payload"], _payload(rng, shape["payload"], shape["size"])),
             "metadata": _field(9, _field(1, _field(1, b"images"))), "extra": _field(3, b"n"),
             "other": _field(3, b"0123456789")}  # as long as the metadata
    value = b"".join(parts[name] for name in shape["order"])
    summary = _field(1, value) * shape["values"]
    event = b""
    if shape["wall"]:
        event += b"\x09" + struct.pack("<d", 1.6e9 + rng.random())
    if shape["step"]:
        event += b"\x10" + _varint(step % (1 << 64))
    return event + _field(5, summary) + shape["tail"]


def _value_shapes() -> list[dict[str, object]]:
    shapes = []
    for order in (("tag", "payload"), ("tag", "payload", "metadata"), ("payload", "tag"),
                  ("metadata", "tag", "payload"), ("tag",), ("tag", "payload", "extra"), ("tag", "tag", "payload")):
        for wall, step in ((True, True), (False, True), (True, False)):
            for tag in (b"w/layer_0", b"w/lay\xff_0", b"t" * 130, b""):
                for payload in (4, 5, 8):
                    shapes.append({"order": order, "wall": wall, "step": step, "tag": tag, "payload": payload,
                                   "size": 40, "values": 1, "tail": b""})
    shapes.append({**shapes[0], "values": 2})  # two values
    shapes.append({**shapes[0], "tail": b"\x18\x01"})  # a field after the summary
    shapes.append({**shapes[0], "tag": b"w/layer_00", "size": 39})  # same length, other split
    shapes.append({**shapes[0], "size": 400})  # a length varint of two bytes
    for last in ("metadata", "other"):  # alike up to a key far beyond the head
        shapes.append({**shapes[0], "order": ("tag", "payload", last), "size": 400})
    return shapes


@pytest.mark.parametrize("seed", range(4))
def test_value_templates_give_the_cursor_walks_result(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Records of one length matched against a template give exactly what the cursor walk
    gives: rows kept, tags, steps (of every varint width), wall times, metadata flags, whatever
    their shape (fields the walker refuses, other orders, a non-UTF-8 or long tag, same length
    with another split) and with random bytes damaged."""
    monkeypatch.setattr(values_template, "MIN_TEMPLATE_ROWS", 2)
    monkeypatch.setattr(values_template, "MIN_TEMPLATE_SHARE", 0.0)
    monkeypatch.setattr(values_template, "TEMPLATES_PER_GROUP", 8)
    rng = np.random.default_rng(seed)
    shapes = _value_shapes()
    good = [i for i, sh in enumerate(shapes) if sh["tag"] == b"w/layer_0" and sh["values"] == 1
            and sh["tail"] == b"" and sh["order"] in (("tag", "payload"), ("payload", "tag"), ("tag", "payload", "other"),
                                                      ("tag", "payload", "metadata"), ("metadata", "tag", "payload"))]
    records = []
    for _ in range(3000):
        shape = shapes[int(rng.choice(good)) if rng.random() < 0.6 else int(rng.integers(0, len(shapes)))]
        width = int(rng.choice([1, 2, 3, 5, 10]))  # a step varint of this many bytes
        step = {1: 5, 2: 300, 3: 1 << 15, 5: 1 << 30, 10: -7}[width] + int(rng.integers(0, 3))
        data = bytearray(_value_record(rng, shape, step))
        if rng.random() < 0.1:  # damage: a structural byte most likely, anything possible
            data[int(rng.integers(0, min(len(data), 40)))] ^= 1 << int(rng.integers(0, 8))
        elif rng.random() < 0.1:  # in the payload's structure, or its bytes (``wire_check``)
            data[int(rng.integers(len(data) // 2, len(data)))] ^= 1 << int(rng.integers(0, 8))
        records.append(bytes(data))
    buf = b"".join(records)
    lengths = np.array([len(r) for r in records], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    walked_rows = []
    real_walk = values_bulk._walk
    monkeypatch.setattr(values_bulk, "_walk", lambda a, s, n: walked_rows.append(len(s)) or real_walk(a, s, n))
    got = values_bulk.walk_values(buf, starts, lengths)
    assert sum(walked_rows) < len(records) // 2  # templates took most rows
    want = values_bulk.walk_values(buf, starts, lengths, templates=False)
    assert len(want.rows) > len(records) // 2  # the comparison is not vacuous
    assert got.rows.tolist() == want.rows.tolist()
    assert [got.tags[i] for i in got.tag] == [want.tags[i] for i in want.tag]
    assert got.step.tolist() == want.step.tolist()
    assert got.wall.tobytes() == want.wall.tobytes()
    assert got.has_metadata.tolist() == want.has_metadata.tolist()
