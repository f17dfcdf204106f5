"""Framed records -> Events: protobuf parsing of record data, with damage as Problems.

The one loop that turns the records ``records.frame`` found into ``Event`` messages, used by the
run's general path (``run_data``) and by ``tbnb inspect`` (``inspection``), so that both name a
problem alike. Data migration (TF1 -> tensors) is ``data_compat``'s, later.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.proto import event_pb2

from ..files.problems import Problem
from ..records.records import HEADER_SIZE, frame

#: The problem of a record whose CRCs are right but whose data is no Event.
NOT_AN_EVENT = "record is not an Event; skipped"


def cannot_read(err: OSError) -> str:
    """The problem of a file that cannot be read (or stat-ed) at all."""
    return f"cannot read: {err.strerror or err}"


def parse_event(buf: bytes | memoryview, start: int, length: int, path: str, base: int,
                problems: list[Problem]) -> event_pb2.Event | None:
    """The Event in ``buf[start:start + length]`` (a record's data at file offset ``base +
    start``), or None with a problem added."""
    try:
        return event_pb2.Event.FromString(memoryview(buf)[start : start + length])
    except DecodeError:
        problems.append(Problem(path, base + start - HEADER_SIZE, NOT_AN_EVENT))
        return None


def parse_events(buf: bytes | memoryview, rows: Iterable[int], starts: np.ndarray, lengths: np.ndarray,
                 path: str, base: int, problems: list[Problem]) -> Iterator[tuple[int, int, event_pb2.Event]]:
    """``(start, length, event)`` of the records ``rows`` (indices into ``starts``/``lengths``),
    in that order; records that are not Events are skipped, each with a problem added."""
    for i in rows:
        start, length = int(starts[i]), int(lengths[i])
        event = parse_event(buf, start, length, path, base, problems)
        if event is not None:
            yield start, length, event


def read_event_file(path: Path) -> tuple[list[event_pb2.Event], list[Problem]]:
    """Parse every intact record of a whole file; damage becomes ``Problem``s, never an exception.

    The whole file is read at once (a one-shot job such as inspection); ``frame`` checks every
    CRC, so that a damaged record is skipped while the records after it are still read. A
    trailing incomplete record is reported too: unlike a reload, nothing will read it later.
    """
    name = str(path)
    try:
        buf = path.read_bytes()
    except OSError as err:
        return [], [Problem(name, 0, cannot_read(err))]
    framed = frame(buf, name, 0)
    problems = list(framed.problems)
    events = [event for _, _, event in
              parse_events(buf, range(len(framed.starts)), framed.starts, framed.lengths, name, 0, problems)]
    leftover = len(buf) - framed.consumed
    if leftover:
        problems.append(Problem(name, framed.consumed, f"{leftover} bytes at end of file are not a complete "
                                                       "record (truncated or still being written)"))
    return events, problems
