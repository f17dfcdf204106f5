"""What the value walkers (``values_bulk``'s cursor walk, ``values_template``'s templates) find
in each one-value record: its tag, step, wall time, and where its payload and metadata are,
which ``wire_check`` judges before the record is kept without protobuf."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .wire_check import METADATA, PAYLOAD_KINDS, messages_ok

#: Summary.Value payload fields the walkers know (``simple_value`` is the scalar decoder's).
PAYLOAD_FIELDS = {4: "image", 5: "histo", 6: "audio", 8: "tensor"}
#: Wire type of length-delimited fields.
LEN = 2


@dataclass
class Fields:
    """What the walk found for each record: whether it is a one-value event, where its tag is
    (and the tag's index once named), its step and wall time, and whether its value carries
    metadata."""

    ok: np.ndarray
    tag_start: np.ndarray
    tag_len: np.ndarray
    tag: np.ndarray  # index into the tag names; -1 until named, or where not UTF-8
    step: np.ndarray
    wall: np.ndarray
    has_metadata: np.ndarray
    checked: np.ndarray  # payload and metadata judged already (by a template's shape)
    payload: np.ndarray  # the payload's field number (``PAYLOAD_FIELDS``)
    payload_start: np.ndarray  # where its message is in the buffer, and how long
    payload_len: np.ndarray
    metadata_start: np.ndarray  # the same for the metadata (where there is some)
    metadata_len: np.ndarray

    @classmethod
    def empty(cls, m: int) -> Fields:
        ints = [np.zeros(m, dtype=np.int64) for _ in range(5)]
        return cls(np.zeros(m, dtype=bool), np.full(m, -1, dtype=np.int64), np.zeros(m, dtype=np.int64),
                   np.full(m, -1, dtype=np.int64), np.zeros(m, dtype=np.int64), np.zeros(m), np.zeros(m, dtype=bool),
                   np.zeros(m, dtype=bool), *ints)

    def put(self, at: np.ndarray, other: Fields) -> None:
        for name in FIELD_NAMES:
            getattr(self, name)[at] = getattr(other, name)

    def well_formed(self, a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Which of ``rows`` have a payload and metadata that protobuf certainly parses
        (``wire_check``: the others are left to protobuf, as the general path reads them)."""
        kinds = np.zeros(len(rows), dtype=np.int64)
        for field, kind in PAYLOAD_KINDS.items():
            kinds[self.payload[rows] == field] = kind
        start = self.payload_start[rows]
        ok = messages_ok(a, start, start + self.payload_len[rows], kinds)
        meta = np.flatnonzero(self.has_metadata[rows])
        if len(meta):
            start = self.metadata_start[rows[meta]]
            ok[meta] &= messages_ok(a, start, start + self.metadata_len[rows[meta]],
                                    np.full(len(meta), METADATA, dtype=np.int64))
        return ok


FIELD_NAMES = [f.name for f in fields(Fields)]


def tag_index(raw: bytes, names: dict[str, int]) -> int:
    """The index of a tag in ``names`` (added if new); -1 if it is not UTF-8 (protobuf's case)."""
    try:
        return names.setdefault(raw.decode("utf-8"), len(names))
    except UnicodeDecodeError:
        return -1
