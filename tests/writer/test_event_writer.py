"""Tests for ``tbnb.writer.event_writer``: every summary kind, read back by TensorBoard's loaders.

Each test writes with explicit wall times and checks what TensorBoard (raw and migrated) and
our framing see, so that the writer produces what TF1 and TF2 writers produce.
"""

from __future__ import annotations

import os
import pathlib
import re
import struct

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.plugins.histogram.summary_v2 import histogram_pb  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

from tbnb.format.crc import masked_crc32c  # noqa: E402
from tbnb.format.proto import (  # noqa: E402
    event_pb2,
    graph_pb2,
    plugin_data_pb2,
    types_pb2,
)
from tbnb.reader.records.records import frame  # noqa: E402
from tbnb.writer import EventWriter, histogram_buckets  # noqa: E402

from .readback import T0, decode_png, decode_wav, ours, tb_migrated, tb_raw, values_of  # noqa: E402


def test_file_name_and_first_record(tmp_path: pathlib.Path) -> None:
    logdir = tmp_path / "a" / "b"  # missing parents are created
    with EventWriter(logdir, start_time=T0, filename_suffix=".v2") as w:
        pass
    assert w.path.parent == logdir
    pattern = rf"events\.out\.tfevents\.1650000000\.tbnb-testing\.{os.getpid()}\.\d{{6}}\.v2"
    assert re.fullmatch(pattern, w.path.name)
    (first,) = tb_raw(w.path)
    assert first.file_version == "brain.Event:2"
    assert first.wall_time == T0
    assert first.step == 0


def test_writers_in_one_dir_get_distinct_name_ordered_files(tmp_path: pathlib.Path) -> None:
    writers = [EventWriter(tmp_path, start_time=T0) for _ in range(12)]  # past 9 -> 10
    for i, w in enumerate(writers):
        w.add_scalar("x", float(i), 0, wall_time=T0 + 1)
        w.close()
    names = [w.path.name for w in writers]
    assert len(set(names)) == 12
    assert sorted(names) == names
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert [values_of(tb_raw(w.path))[0][1].simple_value for w in writers] == list(range(12))


def test_flush_makes_records_visible_before_close(tmp_path: pathlib.Path) -> None:
    w = EventWriter(tmp_path, start_time=T0)
    w.add_scalar("loss", 1.5, 3, wall_time=T0 + 1)
    w.flush()
    assert [(s, v.tag, v.simple_value) for s, v in values_of(ours(w.path))] == [(3, "loss", 1.5)]
    w.close()
    assert w._file.closed


def test_add_record_bytes_and_add_event_are_raw(tmp_path: pathlib.Path) -> None:
    garbage = b"\xff\x00 not a protobuf"
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_record_bytes(garbage)
        w.add_event(event_pb2.Event(step=7, file_version="custom"))  # no wall time filled in
    buf = w.path.read_bytes()
    framed = frame(buf)
    assert framed.problems == [] and len(framed.starts) == 3
    s, n = int(framed.starts[1]), int(framed.lengths[1])
    assert buf[s : s + n] == garbage
    assert struct.unpack_from("<I", buf, s + n)[0] == masked_crc32c(garbage)
    last = event_pb2.Event.FromString(buf[int(framed.starts[2]) :][: int(framed.lengths[2])])
    assert (last.step, last.file_version, last.wall_time) == (7, "custom", 0.0)


# --- scalars ------------------------------------------------------------------------------------


def test_scalars_tf1(tmp_path: pathlib.Path) -> None:
    with EventWriter(tmp_path, start_time=T0) as w:
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step, wall_time=T0 + step)
            w.add_scalar("acc", 0.1 * step, step, wall_time=T0 + step + 0.5)
    got = [
        (e.step, e.wall_time, v.tag, v.simple_value, v.HasField("metadata"))
        for e in tb_raw(w.path)[1:]
        for v in e.summary.value
    ]
    want = []
    for step in range(5):
        want.append((step, T0 + step, "loss", float(np.float32(1.0 / (step + 1))), False))
        want.append((step, T0 + step + 0.5, "acc", float(np.float32(0.1 * step)), False))
    assert got == want


def test_scalars_tf2_metadata_only_on_first_value_per_tag(tmp_path: pathlib.Path) -> None:
    with EventWriter(tmp_path, start_time=T0) as w:
        for step in range(4):
            w.add_scalar("a", step * 2.5, step, wall_time=T0 + step, tf2=True)
            w.add_scalar("b", -step, step, wall_time=T0 + step, tf2=True)
    vals = values_of(ours(w.path))
    assert [(s, v.tag) for s, v in vals] == [(s, t) for s in range(4) for t in "ab"]
    assert [v.HasField("metadata") for _, v in vals] == [True, True] + [False] * 6
    for _, v in vals[:2]:
        assert v.metadata.plugin_data.plugin_name == "scalars"
        assert v.metadata.plugin_data.content == plugin_data_pb2.ScalarPluginData().SerializeToString()
    for s, v in vals:
        assert v.WhichOneof("value") == "tensor"
        assert v.tensor.dtype == types_pb2.DT_FLOAT
        assert len(v.tensor.tensor_shape.dim) == 0 and v.tensor.HasField("tensor_shape")
        assert list(v.tensor.float_val) == [s * 2.5 if v.tag == "a" else -s]
    # TensorBoard's view: rank-0 tensors with the right values, scalars plugin on the first.
    migrated = values_of(tb_migrated(w.path))
    a_values = [float(tensor_util.make_ndarray(v.tensor)) for _, v in migrated if v.tag == "a"]
    assert a_values == [0, 2.5, 5, 7.5]
    assert migrated[0][1].metadata.plugin_data.plugin_name == "scalars"


def test_repeat_metadata_puts_metadata_on_every_value(tmp_path: pathlib.Path) -> None:
    with EventWriter(tmp_path, start_time=T0, repeat_metadata=True) as w:
        for step in range(3):
            w.add_scalar("a", 1.0, step, wall_time=T0, tf2=True)
            w.add_text("t", "hi", step, wall_time=T0)
    assert all(v.metadata.plugin_data.plugin_name for _, v in values_of(ours(w.path)))


# --- histograms ---------------------------------------------------------------------------------

HIST_CASES = {
    "normal": (np.random.default_rng(1).normal(size=1000), 30),
    "few_bins": (np.random.default_rng(2).uniform(-3, 7, size=(20, 5)), 5),
    "all_equal": (np.full(17, 2.5), 30),
    "empty": (np.zeros(0), 30),
    "ints": (np.arange(100), 7),
}


@pytest.mark.parametrize("case", sorted(HIST_CASES))
def test_histogram_tf2_matches_tensorboard(tmp_path: pathlib.Path, case: str) -> None:
    data, bins = HIST_CASES[case]
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_histogram("h", data, 4, bins=bins, wall_time=T0, tf2=True)
        w.add_histogram("h", data, 5, bins=bins, wall_time=T0, tf2=True)
    (s0, v0), (s1, v1) = values_of(tb_raw(w.path))
    assert (s0, s1) == (4, 5)
    assert v0.metadata.plugin_data.plugin_name == "histograms" and not v1.HasField("metadata")
    assert v0.tensor.dtype == types_pb2.DT_DOUBLE
    assert [d.size for d in v0.tensor.tensor_shape.dim] == [bins, 3]
    got = tensor_util.make_ndarray(v0.tensor)
    want = tensor_util.make_ndarray(histogram_pb("h", data, buckets=bins).value[0].tensor)
    np.testing.assert_array_equal(got, want)
    assert got[:, 2].sum() == data.size


@pytest.mark.parametrize("case", sorted(HIST_CASES))
def test_histogram_tf1_proto_and_tensorboard_migration(tmp_path: pathlib.Path, case: str) -> None:
    data, bins = HIST_CASES[case]
    flat = np.asarray(data, dtype=np.float64).ravel()
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_histogram("h", data, 9, bins=bins, wall_time=T0)
    ((step, value),) = values_of(tb_raw(w.path))
    h = value.histo
    assert step == 9 and not value.HasField("metadata")
    assert h.num == flat.size and sum(h.bucket) == flat.size
    assert len(h.bucket) == len(h.bucket_limit)
    if flat.size:
        assert (h.min, h.max) == (flat.min(), flat.max())
        assert h.sum == pytest.approx(flat.sum()) and h.sum_squares == pytest.approx((flat**2).sum())
        assert h.bucket_limit[-1] == flat.max()  # last limit is the max, not +inf
        if flat.min() == flat.max():  # one bucket whose limit is the value
            assert (list(h.bucket_limit), list(h.bucket)) == ([flat[0]], [flat.size])
        else:  # right edges and counts of the TF2 buckets
            want = histogram_buckets(flat, bins)
            assert (list(h.bucket_limit), list(h.bucket)) == (list(want[:, 1]), list(want[:, 2]))
    else:
        assert (h.min, h.max, len(h.bucket)) == (0, 0, 0)
    # TensorBoard's migration to [k, 3] gives our TF2 buckets (f32, trimmed of empty ends).
    ((_, migrated),) = values_of(tb_migrated(w.path))
    got = tensor_util.make_ndarray(migrated.tensor)
    if flat.size == 0:
        assert got.shape == (0, 3)
    elif flat.min() == flat.max():
        np.testing.assert_array_equal(got, [[flat[0], flat[0], flat.size]])
    else:
        want = histogram_buckets(flat, bins)
        nonzero = np.flatnonzero(want[:, 2])
        want = want[nonzero[0] : nonzero[-1] + 1]
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-6)


# --- images, audio, text, pr curves, session log, graph --------------------------------------------


def test_images_tf1_single_and_first_of_batch(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(0)
    gray = rng.integers(0, 256, size=(5, 6), dtype=np.uint8)
    batch = rng.integers(0, 256, size=(3, 4, 9, 3), dtype=np.uint8)
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_image("gray", gray, 1, wall_time=T0)
        w.add_image("batch", batch, 2, wall_time=T0)
    (_, g), (_, b) = values_of(tb_raw(w.path))
    assert (g.image.height, g.image.width, g.image.colorspace) == (5, 6, 1)
    np.testing.assert_array_equal(decode_png(g.image.encoded_image_string), gray)
    assert (b.image.height, b.image.width, b.image.colorspace) == (4, 9, 3)
    np.testing.assert_array_equal(decode_png(b.image.encoded_image_string), batch[0])
    # TensorBoard migrates TF1 images to [width, height, png].
    migrated = tensor_util.make_ndarray(values_of(tb_migrated(w.path))[1][1].tensor)
    assert list(migrated[:2]) == [b"9", b"4"]


def test_images_tf2_batch_tensor(tmp_path: pathlib.Path) -> None:
    batch = np.random.default_rng(1).integers(0, 256, size=(3, 4, 9, 4), dtype=np.uint8)
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_image("batch", batch, 0, wall_time=T0, tf2=True)
        w.add_image("batch", batch[:1], 1, wall_time=T0, tf2=True)
    (_, v0), (_, v1) = values_of(ours(w.path))
    assert v0.tensor.dtype == types_pb2.DT_STRING
    assert [d.size for d in v0.tensor.tensor_shape.dim] == [5]
    assert list(v0.tensor.string_val[:2]) == [b"9", b"4"]
    for png, img in zip(v0.tensor.string_val[2:], batch):
        np.testing.assert_array_equal(decode_png(png), img)
    assert v0.metadata.plugin_data.plugin_name == "images" and not v1.HasField("metadata")
    assert len(v1.tensor.string_val) == 3


def test_images_reject_bad_input(tmp_path: pathlib.Path) -> None:
    with EventWriter(tmp_path, start_time=T0) as w:
        with pytest.raises(TypeError):
            w.add_image("x", np.zeros((4, 4, 3), dtype=np.float32), 0)
        with pytest.raises(ValueError):
            w.add_image("x", np.zeros((4, 4, 2), dtype=np.uint8), 0)


def test_audio_tf1_mono(tmp_path: pathlib.Path) -> None:
    samples = np.sin(np.linspace(0, 20, 1000)) * 0.9
    samples[:2] = [1.5, -2.0]  # clipped to [-1, 1]
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_audio("tone", samples, 16000, 3, wall_time=T0)
    ((step, v),) = values_of(tb_raw(w.path))
    a = v.audio
    assert (step, a.sample_rate, a.num_channels, a.length_frames, a.content_type) == (
        3, 16000.0, 1, 1000, "audio/wav"
    )
    rate, decoded = decode_wav(a.encoded_audio_string)
    assert rate == 16000 and decoded.shape == (1000, 1)
    np.testing.assert_allclose(decoded[:, 0], np.clip(samples, -1, 1), atol=0.5 / 32767 + 1e-12)


def test_audio_tf2_stereo_with_label(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(3)
    samples = rng.uniform(-1, 1, size=(500, 2))
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_audio("noise", samples, 8000, 0, wall_time=T0, tf2=True, label="white *noise*")
        w.add_audio("noise", samples, 8000, 1, wall_time=T0, tf2=True)
    (_, v0), (_, v1) = values_of(ours(w.path))
    assert v0.tensor.dtype == types_pb2.DT_STRING
    assert [d.size for d in v0.tensor.tensor_shape.dim] == [1, 2]
    wav, label = v0.tensor.string_val
    assert label == b"white *noise*" and v1.tensor.string_val[1] == b""
    rate, decoded = decode_wav(wav)
    assert rate == 8000
    np.testing.assert_allclose(decoded, samples, atol=0.5 / 32767 + 1e-12)
    assert v0.metadata.plugin_data.plugin_name == "audio" and not v1.HasField("metadata")
    content = plugin_data_pb2.AudioPluginData.FromString(v0.metadata.plugin_data.content)
    assert content.encoding == plugin_data_pb2.AudioPluginData.WAV


def test_text_scalar_and_table(tmp_path: pathlib.Path) -> None:
    table = np.array([["a", "β"], ["1", "2"], ["x", "y"]])
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_text("md", "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |", 0, wall_time=T0)
        w.add_text("md", "second", 1, wall_time=T0)
        w.add_text("table", table, 2, wall_time=T0)
    (_, md0), (_, md1), (_, tab) = values_of(tb_raw(w.path))
    assert md0.tensor.dtype == types_pb2.DT_STRING and len(md0.tensor.tensor_shape.dim) == 0
    assert md0.tensor.string_val[0].decode().startswith("# Title\n\n| a | b |")
    assert md0.metadata.plugin_data.plugin_name == "text" and not md1.HasField("metadata")
    assert tab.metadata.plugin_data.plugin_name == "text"
    got = tensor_util.make_ndarray(tab.tensor)
    assert got.shape == (3, 2) and got[0, 1].decode() == "β"


def pr_oracle(labels: np.ndarray, predictions: np.ndarray, t: int) -> np.ndarray:
    """Threshold by threshold, as the pr_curves plugin defines it."""
    rows = []
    bucket = np.floor(predictions * (t - 1))
    for i in range(t):
        positive = bucket >= i
        tp = np.sum(positive & labels)
        fp = np.sum(positive & ~labels)
        tn = np.sum(~positive & ~labels)
        fn = np.sum(~positive & labels)
        rows.append([tp, fp, tn, fn, tp / max(1e-7, tp + fp), tp / max(1e-7, tp + fn)])
    return np.array(rows, dtype=np.float64).T


def test_pr_curve(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(5)
    labels = rng.random(300) < 0.3
    predictions = np.clip(labels * 0.4 + rng.random(300) * 0.6, 0, 1)
    predictions[:3] = [0.0, 1.0, 0.5]
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_pr_curve("pr", labels, predictions, 10, num_thresholds=11, wall_time=T0)
        w.add_pr_curve("pr", labels, predictions, 20, num_thresholds=11, wall_time=T0)
    (s0, v0), (s1, v1) = values_of(tb_raw(w.path))
    assert (s0, s1) == (10, 20)
    assert v0.tensor.dtype == types_pb2.DT_FLOAT
    got = tensor_util.make_ndarray(v0.tensor)
    assert got.dtype == np.float32 and got.shape == (6, 11)
    np.testing.assert_allclose(got, pr_oracle(labels, predictions, 11), rtol=1e-6)
    assert got[0, 0] == labels.sum() and got[3, 0] == 0  # threshold 0: everything is positive
    assert v0.metadata.plugin_data.plugin_name == "pr_curves" and not v1.HasField("metadata")
    content = plugin_data_pb2.PrCurvePluginData.FromString(v0.metadata.plugin_data.content)
    assert content.num_thresholds == 11


def test_session_start_and_graph_def(tmp_path: pathlib.Path) -> None:
    graph = graph_pb2.GraphDef()
    graph.node.add(name="x", op="Placeholder")
    graph.node.add(name="y", op="Relu", input=["x"])
    with EventWriter(tmp_path, start_time=T0) as w:
        w.add_graph_def(graph.SerializeToString(), wall_time=T0 + 1)
        w.add_scalar("loss", 1.0, 50, wall_time=T0 + 2)
        w.add_session_start(40, wall_time=T0 + 3)
    _, g, _, start = tb_raw(w.path)
    assert [n.name for n in graph_pb2.GraphDef.FromString(g.graph_def).node] == ["x", "y"]
    assert g.wall_time == T0 + 1
    assert start.session_log.status == event_pb2.SessionLog.START
    assert (start.step, start.wall_time) == (40, T0 + 3)
    # TensorBoard turns the graph_def into the __run_graph__ tag of the graphs plugin.
    migrated = values_of(tb_migrated(w.path))
    assert migrated[0][1].tag == "__run_graph__"
    assert migrated[0][1].metadata.plugin_data.plugin_name == "graphs"
