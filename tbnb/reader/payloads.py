"""A sampled item's payload in its plugin's tensor form, and the rule that a damaged item costs
only itself.

Sampled items are kept as record bytes (or, for blobs, as file positions) and decoded when
someone looks, so damage inside a value (a shape its values do not fit, a truncated nested
field) shows only then. ``readable`` decodes each item of a series once, the first time the
series is handed out with it (blobs are read from disk for it, as showing them would): an item
that cannot be decoded is reported and left out, so that indexing the series never raises for
one bad value and its steps and values stay aligned.
"""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from . import data_compat
from .items import BlobRef, Item, Record
from .proto import event_pb2

#: What decoding a damaged payload raises: protobuf's error, a value that does not fit its shape
#: (``TensorDecodeError`` is a ``ValueError``), a value index past the summary's values, a blob
#: whose file can no longer be read.
DECODE_ERRORS = (DecodeError, ValueError, IndexError, OverflowError, OSError)


def decode_payload(payload: BlobRef | Record) -> np.ndarray:
    """A sampled item in its plugin's tensor form: decoded from memory, or read from disk first."""
    if isinstance(payload, BlobRef):
        with open(payload.path, "rb") as fh:
            fh.seek(payload.offset)
            payload = Record(fh.read(payload.length), payload.index)
    value = event_pb2.Event.FromString(payload.data).summary.value[payload.index]
    return data_compat.tensor_of(value)


def readable(items: list[Item], decoded: set[BlobRef | Record]) -> tuple[list[Item], list[tuple[Item, str]]]:
    """(the items that decode, (item, reason) for each that does not). ``decoded`` holds the
    payloads already found to decode (checked once each; those that decode are added)."""
    good: list[Item] = []
    bad: list[tuple[Item, str]] = []
    for item in items:
        payload = item.payload
        if payload not in decoded:
            try:
                decode_payload(payload)
            except DECODE_ERRORS as err:
                bad.append((item, str(err) or type(err).__name__))
                continue
            decoded.add(payload)
        good.append(item)
    return good, bad
