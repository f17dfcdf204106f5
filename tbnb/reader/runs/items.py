"""What a sampled series holds: items of one step each, whose payload is an event record kept
in memory or a reference to a blob left on disk."""

from __future__ import annotations

from typing import Any, NamedTuple

#: A payload's ``index`` when its bytes are one ``Summary.Value`` rather than a whole Event record:
#: how a value of an event holding many is kept (``wire.value_spans``), so that keeping and
#: reading each of N values costs its own size, not the event's (N values would cost N times the
#: event: quadratic in the values per event).
WHOLE_VALUE = -1

#: ``new_tuple(Item, (step, wall, payload))``: a named tuple made without a Python-level
#: ``__new__`` call, for the thousands a batch keeps.
new_tuple = tuple.__new__


class BlobRef(NamedTuple):
    """Where a blob (image, audio) lives: the record's data in an event file and the value's
    index (or the value's own bytes there, ``index`` ``WHOLE_VALUE``).

    Blobs are read when shown, so a logdir of many large images costs little memory. (Named
    tuples, not frozen dataclasses: a load makes tens of thousands of these, and a frozen
    dataclass costs more to construct.)
    """

    path: str
    offset: int
    length: int
    index: int


class Record(NamedTuple):
    """An event record's bytes and the value's index in it (or, ``index`` ``WHOLE_VALUE``, the
    value's own bytes), kept in memory and decoded when read.

    Sampled tensors (histograms, text, PR curves...) are kept this way: a reload only decides
    which steps to keep, and decoding the few hundred survivors waits until someone looks.
    """

    data: bytes
    index: int


class Item(NamedTuple):
    """One sampled step of a tensor series: the payload is a Record or a BlobRef."""

    step: int
    wall_time: float
    payload: Any
