"""Records -> Events: one loop, one wording of a problem, for the loader and for inspection."""

from __future__ import annotations

from pathlib import Path

import tbnb
from tbnb.format.proto import event_pb2
from tbnb.reader.events.events import NOT_AN_EVENT, parse_events, read_event_file
from tbnb.reader.logdir.inspection import inspect_logdir
from tbnb.reader.records.records import HEADER_SIZE, frame
from tbnb.writer import encode_record

NOT_PROTOBUF = b"\x0f\x00"  # field 1 of wire type 7: no protobuf message parses it


def test_records_that_are_not_events_are_skipped_and_reported() -> None:
    events = [event_pb2.Event(step=i, wall_time=1.0 + i) for i in range(3)]
    data = [events[0].SerializeToString(), NOT_PROTOBUF, events[1].SerializeToString(), events[2].SerializeToString()]
    buf = b"".join(encode_record(d) for d in data)
    framed = frame(buf, "f", 100)
    problems: list = []
    got = list(parse_events(buf, range(len(framed.starts)), framed.starts, framed.lengths, "f", 100, problems))
    assert [e.step for _, _, e in got] == [0, 1, 2]
    assert [(s, n) for s, n, _ in got] == [(int(s), int(n)) for s, n in zip(framed.starts, framed.lengths) if n != 2]
    second = len(encode_record(data[0]))
    assert [(p.path, p.offset, p.reason) for p in problems] == [("f", 100 + second, NOT_AN_EVENT)]
    assert int(framed.starts[1]) - HEADER_SIZE == second


def test_the_loader_and_inspection_word_a_problem_alike(tmp_path: Path) -> None:
    path = tmp_path / "run" / "events.out.tfevents.1.host"
    path.parent.mkdir()
    good = event_pb2.Event(step=1, wall_time=2.0).SerializeToString()
    path.write_bytes(encode_record(good) + encode_record(NOT_PROTOBUF) + encode_record(good))
    events, from_file = read_event_file(path)
    assert len(events) == 2
    lg = tbnb.load(tmp_path)
    report = inspect_logdir(str(tmp_path))
    assert lg.problems == report.problems == from_file
    assert [p.reason for p in from_file] == [NOT_AN_EVENT]


def test_a_whole_file_read_reports_its_incomplete_tail(tmp_path: Path) -> None:
    path = tmp_path / "events.out.tfevents.1.host"
    record = encode_record(event_pb2.Event(step=1).SerializeToString())
    path.write_bytes(record + record[:7])
    events, problems = read_event_file(path)
    assert [e.step for e in events] == [1]
    assert [(p.offset, "not a complete record" in p.reason) for p in problems] == [(len(record), True)]
    assert tbnb.load(tmp_path).problems == []  # a reload waits for the writer instead
