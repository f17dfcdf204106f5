"""A sampled item's payload in its plugin's tensor form, and the rule that a damaged item costs
only itself.

Sampled items are kept as record bytes (or, for blobs, as file positions) and decoded when
someone looks, so damage inside a value (a shape its values do not fit, a truncated nested
field) shows only then. ``readable`` decodes the in-memory items of a series before the series
is handed out: an item that cannot be decoded is reported and left out, so that indexing the
series never raises for one bad value and its steps and values stay aligned. Blobs are not
read for this (that would read every image of a series from disk); a damaged blob raises a
``ValueError`` naming its position when it is indexed.
"""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from . import data_compat
from .items import BlobRef, Item, Record
from .proto import event_pb2

#: What decoding a damaged payload raises: protobuf's error, a value that does not fit its shape
#: (``TensorDecodeError`` is a ``ValueError``), a value index past the summary's values.
DECODE_ERRORS = (DecodeError, ValueError, IndexError, OverflowError)


def decode_payload(payload: BlobRef | Record) -> np.ndarray:
    """A sampled item in its plugin's tensor form: decoded from memory, or read from disk first."""
    if isinstance(payload, BlobRef):
        with open(payload.path, "rb") as fh:
            fh.seek(payload.offset)
            payload = Record(fh.read(payload.length), payload.index)
    value = event_pb2.Event.FromString(payload.data).summary.value[payload.index]
    return data_compat.tensor_of(value)


def readable(items: list[Item]) -> tuple[list[Item], list[tuple[Item, str]]]:
    """(the items that decode, (item, reason) for each in-memory item that does not)."""
    good: list[Item] = []
    bad: list[tuple[Item, str]] = []
    for item in items:
        if isinstance(item.payload, Record):
            try:
                decode_payload(item.payload)
            except DECODE_ERRORS as err:
                bad.append((item, str(err) or type(err).__name__))
                continue
        good.append(item)
    return good, bad
