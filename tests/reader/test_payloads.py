"""Sampled payloads: decoding, and the in-memory items that cannot be decoded left out."""

from __future__ import annotations

from tbnb.reader.items import BlobRef, Item, Record
from tbnb.reader.payloads import decode_payload, readable
from tbnb.reader.proto import event_pb2, tensor_pb2


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
    blob = Item(4, 5.0, BlobRef("not-read", 0, 10, 0))  # blobs are not read to check them
    kept, bad = readable([good, short, cut, wrong_index, blob])
    assert kept == [good, blob]
    assert [item for item, _ in bad] == [short, cut, wrong_index]
    assert all(reason for _, reason in bad)
    assert decode_payload(good.payload).tolist() == [1.0, 2.0]
