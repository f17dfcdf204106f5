"""The column-wise field scan of NodeDefs (wire.scan) against a plain decoder written here, on
generated nodes: every wire type, tags and lengths of one and more bytes, fields read together
for many nodes and one by one for the few with many fields; damaged bytes give GraphError."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.reader.plugins.graph.model import GraphError
from tbnb.reader.plugins.graph.wire import _VECTOR_MIN, scan


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def random_node(rng: np.random.Generator, n_fields: int) -> tuple[bytes, list[tuple[int, int, int]]]:
    """A message of ``n_fields`` random fields; (its bytes, its length-delimited fields as
    (number, start, stop) in the message)."""
    body = bytearray()
    fields = []
    for _ in range(n_fields):
        number = int(rng.choice([1, 2, 3, 4, 5, 15, 16, 300, 70_000]))
        wire = int(rng.choice([0, 1, 2, 5]))
        body += varint(number << 3 | wire)
        if wire == 0:
            body += varint(int(rng.choice([0, 1, 127, 128, 300, 2**35, 2**63])))
        elif wire == 1:
            body += rng.bytes(8)
        elif wire == 5:
            body += rng.bytes(4)
        else:
            length = int(rng.choice([0, 1, 5, 127, 128, 200, 20_000]))
            body += varint(length)
            fields.append((number, len(body), len(body) + length))
            body += rng.bytes(length)
    return bytes(body), fields


def expected_of(nodes: list[tuple[bytes, list[tuple[int, int, int]]]]) -> list[tuple[int, int, int, int]]:
    out, offset = [], 0
    for k, (body, fields) in enumerate(nodes):
        out += [(k, number, offset + start, offset + stop) for number, start, stop in fields]
        offset += len(body)
    return out


def scanned(nodes: list[tuple[bytes, list[tuple[int, int, int]]]]) -> list[tuple[int, int, int, int]]:
    lens = np.array([len(body) for body, _ in nodes], dtype=np.int64)
    stops = np.cumsum(lens)
    blob = np.frombuffer(b"".join(body for body, _ in nodes), dtype=np.uint8)
    f = scan(blob, stops - lens, stops)
    return list(zip(f.node.tolist(), f.field.tolist(), f.start.tolist(), f.stop.tolist()))


@pytest.mark.parametrize("seed", range(12))
def test_scan_matches_a_plain_decoder(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # most nodes have a few fields (read together); a few have many (finished one by one)
    counts = rng.integers(0, 8, size=int(rng.integers(1, 3 * _VECTOR_MIN)))
    counts[rng.integers(0, len(counts), size=min(3, len(counts)))] = rng.integers(20, 120)
    nodes = [random_node(rng, int(c)) for c in counts]
    assert scanned(nodes) == expected_of(nodes)


def test_many_nodes_with_many_fields_read_together_and_one_by_one_agree() -> None:
    rng = np.random.default_rng(99)
    nodes = [random_node(rng, 40) for _ in range(3 * _VECTOR_MIN)]
    together = scanned(nodes)
    one_by_one = [f for k, node in enumerate(nodes) for f in
                  [(k, number, s + sum(len(b) for b, _ in nodes[:k]), e + sum(len(b) for b, _ in nodes[:k]))
                   for _, number, s, e in scanned([node])]]
    assert together == one_by_one == expected_of(nodes)


@pytest.mark.parametrize("count", [1, 3 * _VECTOR_MIN])
@pytest.mark.parametrize("damage", ["cut in a varint", "length past the end", "wire type 3", "eleven-byte varint"])
def test_damaged_nodes_give_graph_error(count: int, damage: str) -> None:
    good = b"\x0a\x03abc\x12\x01x"
    bad = {"cut in a varint": b"\x0a\x03abc\x10\xff",
           "length past the end": b"\x0a\x09abc",
           "wire type 3": b"\x0b\x0a\x03abc",
           "eleven-byte varint": b"\x10" + b"\xff" * 10 + b"\x01"}[damage]
    nodes = [good] * (count - 1) + [bad]
    lens = np.array([len(n) for n in nodes], dtype=np.int64)
    stops = np.cumsum(lens)
    with pytest.raises(GraphError):
        scan(np.frombuffer(b"".join(nodes), dtype=np.uint8), stops - lens, stops)
