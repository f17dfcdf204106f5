"""The bulk paths give exactly the sequential path's results: a differential test.

Bulk framing (``frame_bulk``) must return the same records, offsets and problems as
``records.frame``; a Logdir read with the bulk decoder must hold the same runs, tags, metadata,
scalars (bit for bit), tensors and problems as one read with protobuf record by record. The
inputs are real writers' logs, the project's fast writer, and randomised records of every shape
the decoder has to recognise or refuse, with and without damage.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.format.proto import event_pb2, summary_pb2, types_pb2
from tbnb.reader.events.scalars_bulk import decode_scalars
from tbnb.reader.records import frame_bulk as frame_bulk_module
from tbnb.reader.records import grouping
from tbnb.reader.records.frame_bulk import frame_bulk
from tbnb.reader.records.records import frame
from tbnb.testing import EventWriter, write_demo_logdir, write_scalar_logdir
from tbnb.writer import encode_record


def assert_same_framing(buf: bytes) -> None:
    got, want = frame_bulk(buf, "f", 100), frame(buf, "f", 100)
    assert np.array_equal(got.starts, want.starts)
    assert np.array_equal(got.lengths, want.lengths)
    assert got.consumed == want.consumed
    assert got.problems == want.problems


def assert_same_logdir(path: Path, **kwargs: object) -> None:
    fast = tbnb.Logdir(path, bulk=True, **kwargs)  # type: ignore[arg-type]
    slow = tbnb.Logdir(path, bulk=False, **kwargs)  # type: ignore[arg-type]
    fast_delta, slow_delta = fast.reload(), slow.reload()
    assert fast_delta.points == slow_delta.points
    # the order in which tags were discovered is not part of the contract; which ones is
    assert {r: sorted(t) for r, t in fast_delta.new_tags.items()} == {r: sorted(t) for r, t in slow_delta.new_tags.items()}
    assert fast.runs() == slow.runs()
    assert fast.problems == slow.problems
    for run in slow.runs():
        assert fast.tags(run) == slow.tags(run), run
        assert fast.run_start_time(run) == slow.run_start_time(run)
        for tag, plugin in slow.tags(run).items():
            assert fast.metadata(run, tag) == slow.metadata(run, tag), (run, tag)
            if plugin == "scalars":
                a, b = fast.scalars(run, tag), slow.scalars(run, tag)
                assert a.step.tobytes() == b.step.tobytes(), (run, tag)
                assert a.wall_time.tobytes() == b.wall_time.tobytes(), (run, tag)
                assert a.value.tobytes() == b.value.tobytes(), (run, tag)
            elif fast._runs[run].data.sampled(tag) is not None:
                a2, b2 = fast.tensors(run, tag), slow.tensors(run, tag)
                assert a2.step.tolist() == b2.step.tolist()
                for x, y in zip(a2.values, b2.values):
                    assert x.dtype == y.dtype and x.shape == y.shape
                    assert x.tobytes() == y.tobytes() if x.dtype != object else x.tolist() == y.tolist()


@contextlib.contextmanager
def protobuf_rows() -> Iterator[list[int]]:
    """Count the records that go through the protobuf path (RunData.apply_records) while active."""
    from tbnb.reader.runs.run_data import RunData

    calls: list[int] = []
    real = RunData.apply_records

    def counting(self, buf, rows, *args, **kwargs):  # type: ignore[no-untyped-def]
        rows = list(rows)
        calls.append(len(rows))
        return real(self, buf, rows, *args, **kwargs)

    RunData.apply_records = counting  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        RunData.apply_records = real  # type: ignore[method-assign]


@pytest.fixture
def small_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the bulk paths engage on test-sized inputs."""
    import tbnb.reader.runs.bulk_apply as bulk_apply_module

    monkeypatch.setattr(frame_bulk_module, "MIN_BULK_BYTES", 0)
    monkeypatch.setattr(grouping, "MIN_CRC_GROUP", 2)
    monkeypatch.setattr(grouping, "MIN_DECODE_GROUP", 2)
    monkeypatch.setattr(bulk_apply_module, "BULK_MIN_RECORDS", 1)


# -- randomised records ---------------------------------------------------------------------------

TAGS = ["loss", "loss/train", "acc", "a" * 40, "é/ü", "x"]


def random_tensor_value(rng: np.random.Generator, value: summary_pb2.Summary.Value) -> None:
    t = value.tensor
    choice = int(rng.integers(0, 7))
    x = float(rng.choice([rng.normal(), 0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45]))
    if choice == 0:
        t.dtype, t.float_val[:] = types_pb2.DT_FLOAT, [x]
    elif choice == 1:
        t.dtype, t.double_val[:] = types_pb2.DT_DOUBLE, [x]
    elif choice == 2:
        t.dtype, t.tensor_content = types_pb2.DT_FLOAT, struct.pack("<f", x)
    elif choice == 3:
        t.dtype, t.tensor_content = types_pb2.DT_DOUBLE, struct.pack("<d", x)
    elif choice == 4:  # a shape: not a scalar record
        t.dtype, t.float_val[:] = types_pb2.DT_FLOAT, [x, x]
        t.tensor_shape.dim.add(size=2)
    elif choice == 5:  # another dtype
        t.dtype, t.int64_val[:] = types_pb2.DT_INT64, [int(rng.integers(-5, 5))]
    else:
        t.dtype = types_pb2.DT_FLOAT
        t.tensor_shape.SetInParent()
        t.float_val[:] = [x]


def random_event(rng: np.random.Generator, step: int) -> bytes:
    e = event_pb2.Event(step=step)
    if rng.random() < 0.95:
        e.wall_time = float(rng.choice([1.6e9 + rng.random(), 0.0, 1.0]))
    kind = rng.random()
    if kind < 0.55:
        v = e.summary.value.add(tag=str(rng.choice(TAGS)), simple_value=float(rng.choice(
            [rng.normal(), np.nan, np.inf, -np.inf, -0.0, 3.4e38])))
    elif kind < 0.8:
        v = e.summary.value.add(tag=str(rng.choice(TAGS)) + "/tf2")
        random_tensor_value(rng, v)
        if rng.random() < 0.3:
            v.metadata.plugin_data.plugin_name = str(rng.choice(["scalars", "text", ""]))
    elif kind < 0.85:  # two values in one summary
        e.summary.value.add(tag="pair/a", simple_value=1.0)
        e.summary.value.add(tag="pair/b", simple_value=2.0)
    elif kind < 0.9:
        e.session_log.status = int(rng.choice([event_pb2.SessionLog.START, event_pb2.SessionLog.STOP]))
    elif kind < 0.95:
        h = e.summary.value.add(tag="hist")
        h.histo.min, h.histo.max, h.histo.num = 0.0, 1.0, 3.0
        h.histo.bucket_limit[:] = [0.5, 1.0]
        h.histo.bucket[:] = [1.0, 2.0]
    else:
        e.summary.value.add(tag="loss", simple_value=1.0).node_name = "n"
    data = e.SerializeToString()
    r = rng.random()
    if r < 0.03:  # two Events back to back parse as one merged Event
        data += random_event(rng, step + 1)
    elif r < 0.05:  # a tag that is not UTF-8: protobuf refuses the record
        data = data.replace(b"loss", b"lo\xffs")
    return data


def random_log(rng: np.random.Generator, n: int) -> bytes:
    steps = np.cumsum(rng.integers(-3, 12, n)) + int(rng.choice([0, 200, 20000, -50, 1 << 40]))
    records = [encode_record(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())]
    records += [encode_record(random_event(rng, int(s))) for s in steps]
    return b"".join(records)


def damage(rng: np.random.Generator, buf: bytes) -> bytes:
    b = bytearray(buf)
    for _ in range(int(rng.integers(1, 4))):
        pos = int(rng.integers(0, len(b)))
        if rng.random() < 0.5:
            b[pos] ^= int(rng.integers(1, 256))
        else:
            b[pos:pos] = rng.bytes(int(rng.integers(1, 30)))
    return bytes(b[: len(b) - int(rng.integers(0, 20))])


@pytest.mark.parametrize("seed", range(12))
def test_random_logs_frame_and_decode_identically(tmp_path: Path, small_bulk: None, seed: int) -> None:
    rng = np.random.default_rng(seed)
    buf = random_log(rng, 400)
    assert_same_framing(buf)
    framed = frame_bulk(buf)
    decoded = decode_scalars(buf, framed.starts, framed.lengths)
    assert len(decoded.rows) > 0.3 * len(framed.starts)  # the comparison below is not vacuous
    damaged = damage(rng, buf)
    assert_same_framing(damaged)
    for name, data in (("clean", buf), ("damaged", damaged)):
        run = tmp_path / name
        run.mkdir()
        (run / "events.out.tfevents.1.test").write_bytes(data)
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)


@pytest.mark.parametrize("seed", range(3))
def test_growing_file_read_in_pieces_matches(tmp_path: Path, small_bulk: None, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    buf = random_log(rng, 300)
    path = tmp_path / "events.out.tfevents.1.test"
    fast, slow = tbnb.Logdir(tmp_path, bulk=True), tbnb.Logdir(tmp_path, bulk=False)
    cuts = sorted(rng.integers(0, len(buf), 6).tolist()) + [len(buf)]
    prev = 0
    for cut in cuts:
        with open(path, "ab") as fh:
            fh.write(buf[prev:cut])
        prev = cut
        assert fast.reload().points == slow.reload().points
    assert fast.problems == slow.problems
    for tag in slow.tags("."):
        if slow.tags(".")[tag] == "scalars":
            assert fast.scalars(".", tag).value.tobytes() == slow.scalars(".", tag).value.tobytes()


# -- real logs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("tf2", [False, True])
def test_fast_writer_logdir(tmp_path: Path, small_bulk: None, tf2: bool) -> None:
    write_scalar_logdir(tmp_path, runs=2, tags=5, steps=300, tf2=tf2)
    with EventWriter(tmp_path / "run_00") as w:  # a restart in a second file
        w.add_session_start(150)
        for i in range(150, 160):
            w.add_scalar("group_0/metric_0", -1.0, i, tf2=tf2)
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)


def test_demo_logdir(tmp_path: Path, small_bulk: None) -> None:
    write_demo_logdir(tmp_path)
    assert_same_logdir(tmp_path)


def test_real_writers(tmp_path: Path, small_bulk: None) -> None:
    from tensorboardX import SummaryWriter as TbxWriter

    rng = np.random.default_rng(0)
    with TbxWriter(str(tmp_path / "tbx")) as w:
        for i in range(200):
            w.add_scalar("loss", float(rng.normal()), i)
            w.add_scalars("multi", {"a": i, "b": -i}, i)
            if i % 20 == 0:
                w.add_histogram("h", rng.normal(size=100), i)
                w.add_text("t", f"step {i}", i)
    torch_utils = pytest.importorskip("torch.utils.tensorboard")
    w2 = torch_utils.SummaryWriter(str(tmp_path / "torch"))
    for i in range(200):
        w2.add_scalar("loss", float(rng.normal()), i)
        w2.add_scalar("new_style", float(i), i, new_style=True)
    w2.close()
    w3 = torch_utils.SummaryWriter(str(tmp_path / "torch"), purge_step=120)
    for i in range(120, 150):
        w3.add_scalar("loss", 5.0, i)
    w3.close()
    assert_same_logdir(tmp_path)


@pytest.mark.parametrize("tf2", [False, True])
def test_bulk_engages_on_a_large_scalar_log(tmp_path: Path, tf2: bool) -> None:
    """Without lowered thresholds: a real-sized scalar log is decoded by the bulk path."""
    write_scalar_logdir(tmp_path, runs=1, tags=4, steps=3000, tf2=tf2)
    with protobuf_rows() as calls:
        lg = tbnb.load(tmp_path)
    assert len(lg.scalars("run_00", "group_0/metric_0")) == 3000
    assert sum(calls) < 100  # only the few odd records went through protobuf
    assert_same_logdir(tmp_path)


def test_media_log_is_walked_in_bulk_and_matches(tmp_path: Path) -> None:
    """Histograms, images and text are sampled from walked rows; protobuf reads only a few."""
    rng = np.random.default_rng(5)
    image = rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)
    for run, tf2 in (("tf1", False), ("tf2", True)):
        with EventWriter(tmp_path / run) as w:
            for i in range(700):
                w.add_histogram("w/a", rng.normal(size=50), i, tf2=tf2)
                w.add_histogram("w/b", rng.normal(size=50), i, tf2=tf2)
                if i % 5 == 0:
                    w.add_image("img", image, i, tf2=tf2)
                    w.add_text("notes", f"step {i}", i)
    with protobuf_rows() as calls:
        lg = tbnb.load(tmp_path)
    assert len(lg.tensors("tf1", "w/a")) == 500 and lg.tensors("tf2", "w/b").step[-1] == 699
    assert sum(calls) < 20  # first values of each tag, and the file_version records
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, samples_per_plugin="histograms=all")


@pytest.mark.parametrize("seed", range(6))
def test_large_records_follow_the_chain_and_match(seed: int) -> None:
    """Files of large records (images, histograms) are framed by following the length chain."""
    rng = np.random.default_rng(200 + seed)
    records = [encode_record(rng.bytes(int(n))) for n in rng.integers(400, 20000, 120)]
    records.insert(3, encode_record(rng.bytes(70000)))  # a length above 64 KiB
    buf = b"".join(records)
    framed = frame_bulk(buf, "f", 0)
    assert len(framed.starts) == len(records) and framed.problems == []  # the chain path took it
    assert_same_framing(buf)
    assert_same_framing(buf[: len(buf) - int(rng.integers(1, 5000))])  # a record being written
    assert_same_framing(damage(rng, buf))
    header = bytearray(buf)
    header[len(records[0]) + 2] ^= 0x10  # the second record's length: its header CRC fails
    assert_same_framing(bytes(header))


@pytest.mark.parametrize("first", [0, 1, 3])
def test_a_large_first_record_does_not_decide_how_a_log_is_framed(monkeypatch: pytest.MonkeyPatch,
                                                                    first: int) -> None:
    """A graph (or image) at the start of a log of small scalar records: the records are still
    proposed in bulk, not followed one by one, and framed as ``frame`` does."""
    chained = []
    real_chain = frame_bulk_module._frame_chain
    monkeypatch.setattr(frame_bulk_module, "_frame_chain", lambda *a: chained.append(1) or real_chain(*a))
    big = [encode_record(event_pb2.Event(wall_time=1.0, graph_def=bytes(range(256)) * 400).SerializeToString())
           for _ in range(first)]
    small = [encode_record(event_pb2.Event(wall_time=2.0, step=s, summary=summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag="loss", simple_value=float(s))])).SerializeToString())
        for s in range(5000)]
    buf = b"".join(big + small)
    assert_same_framing(buf)
    assert chained == []


def test_logs_of_large_records_are_read_in_larger_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A media log is read in LARGE_READ_CHUNK pieces (fewer batches, each reservoir looks at a
    tag fewer times), a scalar log in READ_CHUNK pieces; both as the sequential path reads them."""
    import tbnb.reader.runs.run as run_module

    monkeypatch.setattr(run_module, "READ_CHUNK", 1 << 16)
    monkeypatch.setattr(run_module, "LARGE_READ_CHUNK", 1 << 20)
    batches: dict[str, list[int]] = {"media": [], "run_00": []}
    real = run_module.apply_batch

    def counting(data, buf, framed, path, base, delta, bulk=True):  # type: ignore[no-untyped-def]
        batches[Path(path).parent.name].append(len(buf))
        return real(data, buf, framed, path, base, delta, bulk)

    monkeypatch.setattr(run_module, "apply_batch", counting)
    rng = np.random.default_rng(3)
    with EventWriter(tmp_path / "media") as w:
        for i in range(600):
            w.add_histogram("w/a", rng.normal(size=50), i)
            if i % 50 == 0:
                w.add_image("img", rng.integers(0, 255, (16, 16, 3), dtype=np.uint8), i)
    write_scalar_logdir(tmp_path, runs=1, tags=4, steps=2000)  # run_00
    media_size = sum(p.stat().st_size for p in (tmp_path / "media").iterdir())
    assert (1 << 16) * 4 < media_size < 1 << 20
    tbnb.Logdir(tmp_path).reload()
    assert batches["media"] == [media_size]
    assert len(batches["run_00"]) > 3 and max(batches["run_00"]) <= 1 << 16
    assert_same_logdir(tmp_path)


def test_a_record_unlike_its_template_only_in_a_continuation_bit_is_not_decoded_by_it(
        tmp_path: Path, small_bulk: None) -> None:
    """Records of one length whose step is a two-byte varint, some with the first step byte's
    continuation bit cleared (and their data CRC made anew): their structural bytes are the
    template's, but protobuf reads a one-byte step and then a field of number 0, and refuses
    them. The bulk decoder must not decode them by the template: both paths keep the same
    points and report the same records."""
    records = [encode_record(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())]
    for step in range(200, 400):
        event = event_pb2.Event(wall_time=1000.0 + step, step=step)
        event.summary.value.add(tag="loss", simple_value=float(step))
        data = bytearray(event.SerializeToString())
        at = data.index(0x10) + 1  # the step's first byte (after its key), continuation bit set
        assert data[at] & 0x80 and not data[at + 1] & 0x80
        if step % 7 == 0:
            data[at] &= 0x7F
        records.append(encode_record(bytes(data)))
    run = tmp_path / "run"
    run.mkdir()
    (run / "events.out.tfevents.1.test").write_bytes(b"".join(records))
    assert_same_logdir(tmp_path)
    logdir = tbnb.Logdir(tmp_path)
    logdir.reload()
    assert len(logdir.scalars("run", "loss").step) == 200 - len(range(203, 400, 7))
    assert len(logdir.problems) == len(range(203, 400, 7))
