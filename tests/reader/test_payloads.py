"""Sampled payloads: decoding, and the in-memory items that cannot be decoded left out."""

from __future__ import annotations

from pathlib import Path

from tbnb.format.proto import event_pb2
from tbnb.reader.runs.items import BlobRef, Item, Record
from tbnb.reader.runs.payloads import decode_payload, readable


def _record(values: list[float], dims: list[int]) -> Record:
    ev = event_pb2.Event(step=1)
    t = ev.summary.value.add(tag="t").tensor
    t.dtype = 1
    t.float_val.extend(values)
    for d in dims:
        t.tensor_shape.dim.add(size=d)
    return Record(ev.SerializeToString(), 0)


def test_damaged_items_are_left_out_with_a_reason() -> None:
    good = Item(0, 1.0, _record([1.0, 2.0], [2]))
    short = Item(1, 2.0, _record([1.0, 2.0], [3]))
    cut = Item(2, 3.0, Record(good.payload.data[:-3], 0))
    wrong_index = Item(3, 4.0, Record(good.payload.data, 5))
    gone = Item(4, 5.0, BlobRef("no-such-file", 0, 10, 0))
    decoded: set = set()
    kept, bad = readable([good, short, cut, wrong_index, gone], decoded)
    assert kept == [good]
    assert [item for item, _ in bad] == [short, cut, wrong_index, gone]
    assert all(reason for _, reason in bad)
    assert decoded == {good.payload}
    assert decode_payload(good.payload).tolist() == [1.0, 2.0]


def test_each_payload_is_decoded_once(tmp_path: Path) -> None:
    data = _record([1.0], []).data
    (tmp_path / "blob").write_bytes(b"xx" + data)
    blob = Item(0, 1.0, BlobRef(str(tmp_path / "blob"), 2, len(data), 0))
    decoded: set = set()
    assert readable([blob], decoded) == ([blob], [])
    (tmp_path / "blob").unlink()  # not read again: found readable once, it stays readable
    assert readable([blob], decoded) == ([blob], [])
