"""Events holding many values (TF1 merged summaries): read as TensorBoard reads them, in time and
memory linear in the size of the event.

Each sampled value used to keep a copy of its whole event record (and a blob a reference to the
whole record), so N values per event kept N copies of an event N values long: 1,000 histograms
per event took 1.6 GB, 4,000 killed the kernel. Now a value of an event holding several keeps
its own bytes (``wire.value_spans``). The guards here count bytes, not seconds: memory traced
while loading, bytes kept per value, bytes read from disk to show every image.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tbnb
from tbnb.format.proto import event_pb2, summary_pb2
from tbnb.reader.events.wire import value_spans
from tbnb.reader.runs.items import WHOLE_VALUE, Record
from tbnb.reader.runs.payloads import decode_payload
from tbnb.testing import EventWriter
from tests.merged_logs import KINDS, write_merged_run

from .same_data import assert_same

pem = pytest.importorskip("tensorboard.backend.event_processing.plugin_event_multiplexer")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

KEEP_ALL = "scalars=all,histograms=all,images=all,*=all"


def _oracle(root: Path):
    m = pem.EventMultiplexer(size_guidance={"tensors": 0},
                             tensor_size_guidance={p: 0 for p in ("scalars", "histograms", "images")})
    m.AddRunsFromDirectory(str(root))
    m.Reload()
    return m


@pytest.mark.parametrize("writer", ["tbnb", "tensorboard"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_value_as_tensorboards_loader_reads_it(tmp_path, kind, writer):
    write_merged_run(tmp_path / "run", 120, steps=3, kind=kind, writer=writer)
    lg = tbnb.load(tmp_path, samples_per_plugin=KEEP_ALL)
    m = _oracle(tmp_path)
    assert lg.problems == []
    assert lg.runs() == sorted(m.Runs()) == ["run"]
    theirs = {tag: plugin for plugin in m.ActivePlugins()
              for tag in m.PluginRunToTagToContent(plugin).get("run", {})}
    assert lg.tags("run") == theirs
    assert len(theirs) == 120
    for tag, plugin in theirs.items():
        events = m.Tensors("run", tag)
        assert [e.step for e in events] == [0, 1, 2]
        if plugin == "scalars":
            s = lg.scalars("run", tag)
            np.testing.assert_array_equal(s.step, [e.step for e in events])
            np.testing.assert_array_equal(s.wall_time, [e.wall_time for e in events])
            np.testing.assert_array_equal(
                s.value, [tensor_util.make_ndarray(e.tensor_proto).item() for e in events])
            continue
        t = lg.tensors("run", tag)
        np.testing.assert_array_equal(t.step, [e.step for e in events])
        np.testing.assert_array_equal(t.wall_time, [e.wall_time for e in events])
        for ours, event in zip(t.values, events):
            want = tensor_util.make_ndarray(event.tensor_proto)
            assert ours.shape == want.shape, tag
            if plugin == "histograms":  # TensorBoard keeps the migrated buckets as float32
                np.testing.assert_array_equal(ours.astype(want.dtype), want)
            else:
                assert list(ours) == list(want)  # width, height, PNG bytes


_TRACE = """
import sys, tracemalloc
import tbnb
tracemalloc.start()
tbnb.load(sys.argv[1])
print(tracemalloc.get_traced_memory()[1])
"""


def _traced_peak_of_load(path: Path) -> int:
    """Python's peak allocations during ``tbnb.load`` in a fresh interpreter: in the test process,
    other tests' threads (a Board's poller) allocate while the trace runs."""
    done = subprocess.run([sys.executable, "-c", _TRACE, str(path)], capture_output=True, text=True,
                          timeout=300, check=True)
    return int(done.stdout.strip().splitlines()[-1])


def test_memory_per_value_does_not_grow_with_the_values_per_event(tmp_path):
    """Python's allocations while loading, per value: an event 8x longer must not cost more per
    value (each value copying its event made it 8x more), and the whole stays a small multiple
    of the file (the read buffer, the values' bytes)."""
    per_value = {}
    for n in (250, 2000):
        path = write_merged_run(tmp_path / f"n{n}" / "run", n, steps=3, kind="histograms")
        peak = _traced_peak_of_load(tmp_path / f"n{n}")
        assert peak < 4 * path.stat().st_size + 4_000_000, (n, peak, path.stat().st_size)
        per_value[n] = peak / (3 * n)
    assert per_value[2000] < 1.5 * per_value[250], per_value


@pytest.mark.parametrize("kind", ["histograms", "mixed"])
def test_values_keep_their_own_bytes(tmp_path, kind):
    """What a sampled value keeps in memory (a Record) or points to on disk (a BlobRef) is at
    most its share of the event, so the whole run keeps less than its file."""
    path = write_merged_run(tmp_path / "run", 600, steps=3, kind=kind)
    lg = tbnb.load(tmp_path, samples_per_plugin=KEEP_ALL)
    data = lg._run("run").data
    kept = [item.payload for tag in lg.tags("run") for item in (data.sampled(tag) or [])]
    assert len(kept) == 3 * (600 if kind == "histograms" else 400)
    assert all(p.index == WHOLE_VALUE for p in kept)
    held = sum(len(p.data) if isinstance(p, Record) else p.length for p in kept)
    assert held < path.stat().st_size


def test_showing_every_image_reads_each_once(tmp_path, monkeypatch):
    """Reading every image of an event of 800 reads about the file once, not the event per image."""
    path = write_merged_run(tmp_path / "run", 800, steps=3, kind="images")
    lg = tbnb.load(tmp_path, samples_per_plugin=KEEP_ALL)
    read = []
    real = lg.storage.read_range

    def counting(p: str, start: int, length: int) -> bytes:
        read.append(length)
        return real(p, start, length)

    monkeypatch.setattr(lg.storage, "read_range", counting)
    images = [v for tag in lg.tags("run") for v in lg.tensors("run", tag).values]
    assert len(images) == 2400 and all(v[2].startswith(b"\x89PNG") for v in images)
    assert 0 < sum(read) < 2 * path.stat().st_size


def test_a_batch_of_many_records_reads_as_the_general_path(tmp_path):
    """Enough records for the bulk decoders (one-value records among many-value ones): the bulk
    read equals the protobuf-only read."""
    with EventWriter(tmp_path / "run", start_time=1.0) as w:
        for step in range(100):
            w.add_histogram("solo/h", np.arange(step, step + 10.0), step, wall_time=2.0 + step)
            w.add_scalar("solo/s", float(step), step, wall_time=2.0 + step)
            if step % 3 == 0:
                event = event_pb2.Event(wall_time=2.5 + step, step=step)
                for i in range(40):
                    value = event.summary.value.add(tag=f"merged/{i}")
                    value.histo.bucket_limit.extend([0.0, 1.0])
                    value.histo.bucket.extend([float(i), float(step)])
                    event.summary.value.add(tag=f"merged_s/{i}", simple_value=i * step)
                w.add_event(event)
    kwargs = {"samples_per_plugin": KEEP_ALL}
    fast, slow = tbnb.Logdir(tmp_path, bulk=True, **kwargs), tbnb.Logdir(tmp_path, bulk=False, **kwargs)
    fast.reload()
    slow.reload()
    assert len(fast.tags("run")) == 82
    assert_same(fast, slow)


# -- value_spans: each span is the value protobuf parses ------------------------------------------

_values = st.lists(
    st.tuples(st.sampled_from(["a", "b", "layer/w", ""]),
              st.sampled_from(["simple", "histo", "image", "tensor", "metadata"]),
              st.floats(allow_nan=False, allow_infinity=False, width=32)),
    min_size=0, max_size=12)


def _event(values: list, step: int) -> event_pb2.Event:
    event = event_pb2.Event(wall_time=1.5, step=step)
    for tag, kind, x in values:
        v = event.summary.value.add(tag=tag)
        if kind == "simple":
            v.simple_value = x
        elif kind == "histo":
            v.histo.bucket_limit.extend([x, x + 1])
            v.histo.bucket.extend([1.0, 2.0])
        elif kind == "image":
            v.image.encoded_image_string = b"\x89PNG" + bytes(int(abs(x)) % 300)
        elif kind == "tensor":
            v.tensor.dtype = 1
            v.tensor.tensor_shape.dim.add(size=3)
            v.tensor.float_val.extend([x] * 3)
        else:
            v.simple_value = x
            v.metadata.plugin_data.plugin_name = "scalars"
    return event


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(_values, _values, st.integers(0, 2**40), st.booleans())
def test_each_span_decodes_as_the_value_protobuf_parses(first, second, step, split):
    """Spans over every ``summary`` field of the event (a record with two, as protobuf merges
    them), and each span's value decodes as the whole record's value at that index."""
    a, b = _event(first, step), _event(second, step)
    data = a.SerializeToString() + (b.summary.SerializeToString() and
                                    event_pb2.Event(summary=b.summary).SerializeToString() if split else b"")
    parsed = event_pb2.Event.FromString(data)
    pad = b"\x00" * 7
    spans = value_spans(pad + data + pad, len(pad), len(data))
    assert spans is not None and len(spans) == len(parsed.summary.value)
    for index, (start, length) in enumerate(spans):
        part = (pad + data + pad)[start : start + length]
        assert summary_pb2.Summary.Value.FromString(part) == parsed.summary.value[index]
        whole = Record(data, index)
        if parsed.summary.value[index].HasField("simple_value"):
            continue  # a scalar is a column, never a payload
        np.testing.assert_array_equal(decode_payload(Record(part, WHOLE_VALUE)), decode_payload(whole))


@pytest.mark.parametrize("data", [
    b"\x2a\x05\x0a\x03",  # a summary field longer than what is left
    b"\x2a\x02\x0a\x09",  # a value longer than its summary
    b"\x0b\x00",  # a group (wire type 3)
    b"\x10",  # a varint cut short
    b"\x00\x01",  # field number 0
])
def test_spans_of_what_cannot_be_walked_are_none(data):
    assert value_spans(data, 0, len(data)) is None


def test_an_event_the_walk_cannot_follow_is_still_read(tmp_path):
    """A record protobuf parses but the walk refuses (a group field in it) is read the old way."""
    event = _event([("a", "histo", 1.0), ("b", "histo", 2.0)], 3)
    data = event.SerializeToString() + b"\x5b\x5c"  # an empty group at field 11: protobuf skips it
    assert value_spans(data, 0, len(data)) is None
    assert len(event_pb2.Event.FromString(data).summary.value) == 2
    with EventWriter(tmp_path / "run", start_time=1.0) as w:
        w.add_record_bytes(data)
    lg = tbnb.load(tmp_path)
    assert lg.problems == []
    for index, tag in enumerate("ab"):
        assert lg.tensors("run", tag).step.tolist() == [3]
        np.testing.assert_array_equal(lg.tensors("run", tag).values[0], decode_payload(Record(data, index)))
