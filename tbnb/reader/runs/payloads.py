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

from collections.abc import Callable

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.proto import event_pb2, summary_pb2

from ..events import data_compat
from .items import WHOLE_VALUE, BlobRef, Item, Record

#: What decoding a damaged payload raises: protobuf's error, a value that does not fit its shape
#: (``TensorDecodeError`` is a ``ValueError``), a value index past the summary's values, a blob
#: whose file can no longer be read.
DECODE_ERRORS = (DecodeError, ValueError, IndexError, OverflowError, OSError)


#: Reads ``length`` bytes of a file from an offset (``Storage.read_range``: local or remote).
ReadRange = Callable[[str, int, int], bytes]


def read_local(path: str, start: int, length: int) -> bytes:
    """``length`` bytes of a local file from ``start``."""
    with open(path, "rb") as fh:
        fh.seek(start)
        return fh.read(length)


def decode_payload(payload: BlobRef | Record, read_range: ReadRange = read_local) -> np.ndarray:
    """A sampled item in its plugin's tensor form: decoded from memory, or its blob read first
    (from where the logdir is: ``read_range``)."""
    if isinstance(payload, BlobRef):
        payload = Record(read_range(payload.path, payload.offset, payload.length), payload.index)
    if payload.index == WHOLE_VALUE:
        value = summary_pb2.Summary.Value.FromString(payload.data)
    else:
        value = event_pb2.Event.FromString(payload.data).summary.value[payload.index]
    return data_compat.tensor_of(value)


def readable(items: list[Item], decoded: set[BlobRef | Record],
             read_range: ReadRange = read_local) -> tuple[list[Item], list[tuple[Item, str]]]:
    """(the items that decode, (item, reason) for each that does not). ``decoded`` holds the
    payloads already found to decode (checked once each; those that decode are added)."""
    good: list[Item] = []
    bad: list[tuple[Item, str]] = []
    for item in items:
        payload = item.payload
        if payload not in decoded:
            try:
                decode_payload(payload, read_range)
            except DECODE_ERRORS as err:
                bad.append((item, str(err) or type(err).__name__))
                continue
            decoded.add(payload)
        good.append(item)
    return good, bad
