"""What the real writers write, read back through tbnb's public API and checked against the input.

Writers: ``torch.utils.tensorboard.SummaryWriter`` and ``tensorboardX.SummaryWriter``; every kind
they can write. Logdirs are written once per module by the fixtures in ``conftest.py``.
"""

from __future__ import annotations

import io
import re
import wave
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.format.proto import graph_pb2, hparams_pb2, layout_pb2, plugin_data_pb2

from .conftest import (
    BIG_STEPS,
    HAVE_TORCH,
    HP_METRICS,
    HPARAMS,
    N_HIST_STEPS,
    N_IMAGE_STEPS,
    N_TEXT_STEPS,
    SPECIAL_VALUES,
    TEXTS,
    WRITERS,
    available_writers,
    make_writer,
    needs_torch,
    wait_for_next_second,
)

PIL = pytest.importorskip("PIL.Image")


def f32(values) -> np.ndarray:
    """What a float32 field holds, as float64 (how the reader hands scalars out)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64)


def decode_png(data: bytes) -> np.ndarray:
    with PIL.open(io.BytesIO(data)) as im:
        assert im.format == "PNG"
        return np.asarray(im.convert("RGB"))


@pytest.fixture(scope="module")
def lg(all_kinds) -> tbnb.Logdir:
    return tbnb.load(all_kinds.root)


def hparams_run(lg: tbnb.Logdir, writer: str) -> str:
    """The timestamped sub-run that add_hparams wrote under ``writer``."""
    found = [r for r in lg.runs() if re.fullmatch(rf"{writer}/\d+(\.\d+)?", r)]
    assert len(found) == 1, f"expected one timestamped hparams sub-run under {writer!r}, runs: {lg.runs()}"
    return found[0]


# -- runs and tags ---------------------------------------------------------------------------------


def test_runs_are_the_writers_directories(lg, all_kinds):
    expected = []
    for writer in all_kinds.data:
        sub = ["group_train", "group_val"] if writer == "torch" else ["group/train", "group/val"]
        expected += [writer] + [f"{writer}/{s}" for s in sub] + [hparams_run(lg, writer)]
    assert lg.runs() == sorted(expected)
    assert lg.problems == []


@pytest.mark.parametrize("writer", WRITERS)
def test_tags_name_their_plugins(lg, writer):
    tags = lg.tags(writer)
    expected = {
        "scalar/plain": "scalars", "scalar/special": "scalars", "scalar/bigstep": "scalars",
        "hist/normal": "histograms", "hist/auto": "histograms", "hist/const": "histograms",
        "hist/ints": "histograms",
        "img/rgb_u8": "images", "img/float_hwc": "images", "img/gray": "images", "img/batch": "images",
        "audio/sine": "audio", "note/text_summary": "text", "pr": "pr_curves",
        "custom_scalars__config__": "custom_scalars",
    }
    if writer == "torch":
        expected.update({"scalar/new_style": "scalars", "scalar/double": "scalars",
                         "cloud_VERTEX": "mesh", "cloud_FACE": "mesh", "cloud_COLOR": "mesh"})
    else:
        expected.update({"scalar/described": "scalars", "audio/stereo": "audio",
                         "cloud_1": "mesh", "cloud_2": "mesh", "cloud_3": "mesh"})
    if HAVE_TORCH:
        expected["__run_graph__"] = "graphs"
        run_metadata_tags = [t for t, p in tags.items() if p == "graph_tagged_run_metadata"]
        assert len(run_metadata_tags) == 1
        expected[run_metadata_tags[0]] = "graph_tagged_run_metadata"
    assert tags == expected
    assert list(tags) == sorted(tags)
    for tag, plugin in tags.items():
        md = lg.metadata(writer, tag)
        if plugin not in ("graphs", "graph_tagged_run_metadata"):
            assert md is not None and md.plugin_data.plugin_name == plugin, tag


# -- scalars ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_scalars_exact_with_float32_rounding(lg, all_kinds, writer):
    steps, walls, values = all_kinds.data[writer]["plain"]
    s = lg.scalars(writer, "scalar/plain")
    assert s.step.dtype == np.int64 and s.wall_time.dtype == np.float64 and s.value.dtype == np.float64
    np.testing.assert_array_equal(s.step, steps)
    np.testing.assert_array_equal(s.wall_time, walls)  # explicit walltime: a double, exact
    np.testing.assert_array_equal(s.value, f32(values))
    assert not np.array_equal(s.value, values), "float64 inputs must come back float32-rounded"


@pytest.mark.parametrize("writer", WRITERS)
def test_scalars_nan_and_infinities_kept(lg, writer):
    s = lg.scalars(writer, "scalar/special")
    np.testing.assert_array_equal(s.step, np.arange(len(SPECIAL_VALUES)))
    expected = f32(SPECIAL_VALUES)
    np.testing.assert_array_equal(s.value, expected)  # NaN compares equal to NaN here
    assert np.isnan(s.value[0]) and s.value[1] == np.inf and s.value[2] == -np.inf
    assert np.signbit(s.value[4]) and not np.signbit(s.value[3])  # -0.0 stays negative zero
    assert s.value[5] != 0.0 and s.value[5] == np.float32(1e-40)  # float32 subnormal, not flushed
    assert s.value[7] != 1 / 3 and s.value[7] == np.float32(1 / 3)
    assert np.all(np.diff(s.wall_time) >= 0)


@pytest.mark.parametrize("writer", WRITERS)
def test_scalar_steps_are_int64(lg, writer):
    s = lg.scalars(writer, "scalar/bigstep")
    np.testing.assert_array_equal(s.step, np.array(BIG_STEPS, dtype=np.int64))
    np.testing.assert_array_equal(s.value, np.arange(len(BIG_STEPS), dtype=np.float64))


@pytest.mark.torch
@needs_torch
def test_torch_tensor_style_scalars(lg):
    single = lg.scalars("torch", "scalar/new_style")
    double = lg.scalars("torch", "scalar/double")
    expected = np.array([1 / (i + 3) for i in range(5)])
    np.testing.assert_array_equal(single.step, np.arange(5))
    np.testing.assert_array_equal(single.value, f32(expected))
    np.testing.assert_array_equal(double.value, expected)  # DT_DOUBLE: no rounding at all
    assert lg.metadata("torch", "scalar/double").plugin_data.plugin_name == "scalars"


def test_tensorboardx_display_name_and_description(lg, all_kinds):
    if "tbx" not in all_kinds.data:
        pytest.skip("tensorboardX is not installed")
    md = lg.metadata("tbx", "scalar/described")
    assert md.display_name == "Nice name"
    assert md.summary_description == "what it is"
    s = lg.scalars("tbx", "scalar/described")
    assert s.step.tolist() == [4] and s.value.tolist() == [2.5]


@pytest.mark.parametrize("writer", WRITERS)
def test_add_scalars_writes_one_run_per_key(lg, all_kinds, writer):
    steps, group = all_kinds.data[writer]["group"]
    sep = "_" if writer == "torch" else "/"
    for key, values in group.items():
        run = f"{writer}/group{sep}{key}"
        assert lg.tags(run) == {"group": "scalars"}
        s = lg.scalars(run, "group")
        np.testing.assert_array_equal(s.step, steps)
        np.testing.assert_array_equal(s.value, f32(values))
    # add_scalars passes one wall time to every key of a step
    np.testing.assert_array_equal(lg.scalars(f"{writer}/group{sep}train", "group").wall_time,
                                  lg.scalars(f"{writer}/group{sep}val", "group").wall_time)


@pytest.mark.parametrize("writer", WRITERS)
def test_to_pandas_scalars_matches_series(lg, writer):
    df = lg.to_pandas()
    assert list(df.columns) == ["run", "tag", "step", "wall_time", "value"]
    part = df[(df.run == writer) & (df.tag == "scalar/plain")]
    s = lg.scalars(writer, "scalar/plain")
    np.testing.assert_array_equal(part.step.to_numpy(), s.step)
    np.testing.assert_array_equal(part.value.to_numpy(), s.value)
    total = sum(len(lg.scalars(r, t)) for r in lg.runs() for t, p in lg.tags(r).items() if p == "scalars")
    assert len(df) == total
    hist = lg.to_pandas("histograms")
    assert set(hist[hist.run == writer].tag) == {"hist/normal", "hist/auto", "hist/const", "hist/ints"}
    assert len(hist[(hist.run == writer) & (hist.tag == "hist/normal")]) == 4


# -- histograms ------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("tag", ["hist/normal", "hist/auto", "hist/ints", "hist/const"])
def test_histograms(lg, all_kinds, writer, tag):
    arrays = all_kinds.data[writer]["hists"][tag]
    t = lg.tensors(writer, tag)
    assert t.plugin == "histograms"
    np.testing.assert_array_equal(t.step, 10 * np.arange(len(arrays)))
    for arr, h in zip(arrays, t.values):
        values = np.asarray(arr, dtype=np.float64).reshape(-1)
        assert h.dtype == np.float64 and h.ndim == 2 and h.shape[1] == 3 and h.shape[0] >= 1
        lefts, rights, counts = h[:, 0], h[:, 1], h[:, 2]
        assert counts.sum() == values.size
        assert lefts[0] == values.min() and rights[-1] == values.max()
        assert np.all((h[:, :2] >= values.min()) & (h[:, :2] <= values.max()))
        assert np.all(lefts <= rights)
        np.testing.assert_array_equal(rights[:-1], lefts[1:])  # contiguous buckets
        assert counts[0] > 0 and counts[-1] > 0  # empty end buckets trimmed
        if h.shape[0] > 1:
            # [l, r) buckets, the last one closed: a recount of the data gives the same counts
            recount, _ = np.histogram(values, bins=np.append(lefts, rights[-1]))
            np.testing.assert_array_equal(counts, recount)
        else:
            assert values.min() == values.max()


# -- images ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("tag", ["img/rgb_u8", "img/float_hwc", "img/gray"])
def test_images_decode_to_the_written_pixels(lg, all_kinds, writer, tag):
    expected = all_kinds.data[writer]["images"][tag]
    t = lg.tensors(writer, tag)
    assert t.plugin == "images"
    np.testing.assert_array_equal(t.step, np.arange(len(expected)))
    for pixels, v in zip(expected, t.values):
        assert v.dtype == object and v.shape == (3,)
        height, width = pixels.shape[:2]
        assert (v[0], v[1]) == (str(width).encode(), str(height).encode())
        np.testing.assert_array_equal(decode_png(v[2]), pixels)
    content = plugin_data_pb2.ImagePluginData.FromString(lg.metadata(writer, tag).plugin_data.content)
    assert content.converted_to_tensor


@pytest.mark.parametrize("writer", WRITERS)
def test_batched_images(lg, all_kinds, writer):
    batch = all_kinds.data[writer]["batch"]  # N, C, H, W: both writers tile it into one row
    n, _, h, w = batch.shape
    t = lg.tensors(writer, "img/batch")
    assert t.step.tolist() == [3]
    v = t.values[0]
    assert (v[0], v[1]) == (str(n * w).encode(), str(h).encode())
    grid = decode_png(v[2])
    assert grid.shape == (h, n * w, 3)
    tiles = [grid[:, i * w : (i + 1) * w] for i in range(grid.shape[1] // w)]
    assert len(tiles) == n
    for tile, image in zip(tiles, batch):
        np.testing.assert_array_equal(tile, image.transpose(1, 2, 0))


# -- audio -----------------------------------------------------------------------------------------


#: Two steps of 16-bit PCM: one for rounding, one for the writers' 32767 vs 32768 scales.
QUANTUM = 2 / 32768


def read_wav(data: bytes) -> tuple[int, np.ndarray]:
    with wave.open(io.BytesIO(data)) as wf:
        assert wf.getsampwidth() == 2
        frames = np.frombuffer(wf.readframes(wf.getnframes()), dtype="<i2")
        return wf.getframerate(), frames.reshape(-1, wf.getnchannels())


@pytest.mark.parametrize("writer", WRITERS)
def test_audio_decodes_to_the_samples(lg, all_kinds, writer):
    sound, rate = all_kinds.data[writer]["audio"]
    t = lg.tensors(writer, "audio/sine")
    assert t.plugin == "audio" and t.step.tolist() == [5]
    v = t.values[0]
    assert v.dtype == object and v.shape == (1,)  # the clips only, as TensorBoard's loader reads them
    assert lg.tensors(writer, "audio/sine", as_written=True).values[0][0, 1] == b""  # TF1: no label
    got_rate, frames = read_wav(v[0])
    assert got_rate == rate and frames.shape == (sound.size, 1)
    # 16-bit quantisation: torch truncates value * 32767, libsndfile scales by 32768
    np.testing.assert_allclose(frames[:, 0] / 32768, sound, rtol=0, atol=QUANTUM)
    content = plugin_data_pb2.AudioPluginData.FromString(lg.metadata(writer, "audio/sine").plugin_data.content)
    assert content.encoding == plugin_data_pb2.AudioPluginData.WAV


def test_tensorboardx_stereo_audio(lg, all_kinds):
    if "tbx" not in all_kinds.data:
        pytest.skip("tensorboardX is not installed")
    stereo = all_kinds.data["tbx"]["stereo"]
    rate, frames = read_wav(lg.tensors("tbx", "audio/stereo").values[0][0])
    assert rate == 8000 and frames.shape == stereo.shape
    np.testing.assert_allclose(frames / 32768, stereo, rtol=0, atol=QUANTUM)


# -- text ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_text_bytes(lg, writer):
    t = lg.tensors(writer, "note/text_summary")
    assert t.plugin == "text"
    np.testing.assert_array_equal(t.step, [0, 2, 4])
    for text, v in zip(TEXTS, t.values):
        assert v.dtype == object and v.shape == (1,)
        assert v[0] == text.encode("utf-8")


# -- pr curves -------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_pr_curve(lg, all_kinds, writer):
    labels, predictions, num_thresholds = all_kinds.data[writer]["pr"]
    t = lg.tensors(writer, "pr")
    assert t.plugin == "pr_curves" and t.step.tolist() == [1]
    data = t.values[0]
    assert data.dtype == np.float32 and data.shape == (6, num_thresholds)
    tp, fp, tn, fn, precision, recall = data.astype(np.float64)
    assert np.all((precision >= 0) & (precision <= 1)) and np.all((recall >= 0) & (recall <= 1))
    # TensorBoard's definition, recomputed: threshold i counts predictions in buckets >= i
    bucket = np.floor(predictions * (num_thresholds - 1)).astype(int)
    exp_tp = np.array([labels[bucket >= i].sum() for i in range(num_thresholds)], dtype=np.float64)
    exp_fp = np.array([(1 - labels[bucket >= i]).sum() for i in range(num_thresholds)], dtype=np.float64)
    np.testing.assert_array_equal(tp, exp_tp)
    np.testing.assert_array_equal(fp, exp_fp)
    np.testing.assert_array_equal(tn, exp_fp[0] - exp_fp)
    np.testing.assert_array_equal(fn, exp_tp[0] - exp_tp)
    assert tp[0] == labels.sum() and fp[0] == labels.size - labels.sum()
    np.testing.assert_allclose(precision, exp_tp / np.maximum(1e-7, exp_tp + exp_fp), rtol=1e-6)
    np.testing.assert_allclose(recall, exp_tp / np.maximum(1e-7, exp_tp[0]), rtol=1e-6)
    content = plugin_data_pb2.PrCurvePluginData.FromString(lg.metadata(writer, "pr").plugin_data.content)
    assert content.num_thresholds == num_thresholds


# -- custom scalars --------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_custom_scalars_layout(lg, writer):
    t = lg.tensors(writer, "custom_scalars__config__")
    assert t.plugin == "custom_scalars" and len(t) == 1
    v = t.values[0]
    assert v.dtype == object and v.shape == ()
    layout = layout_pb2.Layout.FromString(v[()])
    assert [c.title for c in layout.category] == ["Losses", "Bands"]
    losses, bands = layout.category
    assert [ch.title for ch in losses.chart] == ["both losses"]
    assert list(losses.chart[0].multiline.tag) == ["scalar/plain", r"group.*"]
    assert [ch.title for ch in bands.chart] == ["band", "other"]
    assert bands.chart[0].WhichOneof("content") == "margin"
    (series,) = bands.chart[0].margin.series
    assert (series.value, series.lower, series.upper) == ("m/value", "m/lower", "m/upper")
    assert list(bands.chart[1].multiline.tag) == ["scalar/special"]


# -- mesh ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_mesh(lg, all_kinds, writer):
    expected = all_kinds.data[writer]["mesh"]
    by_type = {}
    for tag, plugin in lg.tags(writer).items():
        if plugin == "mesh":
            md = plugin_data_pb2.MeshPluginData.FromString(lg.metadata(writer, tag).plugin_data.content)
            assert md.name == "cloud"
            by_type[md.content_type] = (tag, md)
    assert sorted(by_type) == [plugin_data_pb2.MeshPluginData.VERTEX, plugin_data_pb2.MeshPluginData.FACE,
                               plugin_data_pb2.MeshPluginData.COLOR]
    for content_type, written in expected.items():
        tag, md = by_type[content_type]
        assert list(md.shape) == list(written.shape)
        t = lg.tensors(writer, tag)
        assert t.plugin == "mesh" and t.step.tolist() == [2]
        got = t.values[0]
        assert got.shape == written.shape  # vertices [1, 6, 3], faces [1, 4, 3], colors [1, 6, 3]
        np.testing.assert_array_equal(got, written.astype(got.dtype))


# -- graph -----------------------------------------------------------------------------------------


@pytest.mark.torch
@needs_torch
@pytest.mark.parametrize("writer", WRITERS)
def test_graph_of_a_torch_module(lg, writer):
    data = lg.graph(writer).graph_def
    assert isinstance(data, bytes)
    graph = graph_pb2.GraphDef.FromString(data)
    names = [n.name for n in graph.node]
    ops = {n.op for n in graph.node}
    for part in ("TinyNet/Linear[encoder]", "TinyNet/ReLU[act]", "TinyNet/Linear[head]"):
        assert any(name.startswith(part) for name in names), (part, names)
    assert {"aten::linear", "aten::relu", "IO Node"} <= ops
    assert lg.tags(writer)["__run_graph__"] == "graphs"
    (tag,) = [t for t, p in lg.tags(writer).items() if p == "graph_tagged_run_metadata"]
    config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")
    run_metadata = config_pb2.RunMetadata.FromString(lg.run_metadata(writer, tag))
    assert run_metadata.step_stats.dev_stats[0].device.endswith("CPU:0")
    assert lg.graphs(writer) == ["", tag]
    profiled = lg.graph(writer, tag)  # the op graph with the profile's step stats joined
    assert len(profiled.names) == len(graph.node)
    assert lg.graph(f"{writer}/group{'_' if writer == 'torch' else '/'}train") is None


# -- embeddings (projector) ------------------------------------------------------------------------


@pytest.mark.parametrize("writer", WRITERS)
def test_embeddings(lg, all_kinds, writer):
    expected = all_kinds.data[writer]["embeddings"]
    info = lg.projector(writer)
    assert info is not None and info.run == writer
    assert info.config_path == all_kinds.root / writer / "projector_config.pbtxt"
    assert [e.name for e in info.embeddings] == list(expected)
    for emb in info.embeddings:
        mat, header, rows, sprite = expected[emb.name]
        tensor = emb.tensor()
        assert tensor.dtype == np.float32 and tensor.shape == mat.shape
        np.testing.assert_array_equal(tensor, mat)
        assert emb.metadata() == (header, rows)
        if sprite is None:
            assert emb.sprite_path is None
            continue
        n, _, h, w = sprite.shape
        assert emb.sprite_single_image_dim == (w, h)
        atlas = decode_png(Path(emb.sprite_path).read_bytes())
        per_row = atlas.shape[1] // emb.sprite_single_image_dim[0]
        assert per_row == int(np.ceil(np.sqrt(n)))
        for i in range(n):
            r, c = divmod(i, per_row)
            tile = atlas[r * h : (r + 1) * h, c * w : (c + 1) * w]
            want = np.uint8((sprite[i].transpose(1, 2, 0).astype(np.float64) * 255).clip(0, 255))
            np.testing.assert_array_equal(tile, want)
    assert lg.projector(hparams_run(lg, writer)) is None


# -- hparams ---------------------------------------------------------------------------------------

HP_TAGS = ("_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info")


@pytest.mark.parametrize("writer", WRITERS)
def test_hparams(lg, writer):
    run = hparams_run(lg, writer)
    assert lg.tags(run) == {**{t: "hparams" for t in HP_TAGS}, "hparam/accuracy": "scalars"}

    def plugin_data(tag: str) -> hparams_pb2.HParamsPluginData:
        md = lg.metadata(run, tag)
        assert md is not None and md.plugin_data.plugin_name == "hparams"
        return hparams_pb2.HParamsPluginData.FromString(md.plugin_data.content)

    start = plugin_data("_hparams_/session_start_info").session_start_info
    assert set(start.hparams) == set(HPARAMS)
    assert start.hparams["lr"].number_value == HPARAMS["lr"]
    assert start.hparams["layers"].number_value == HPARAMS["layers"]
    assert start.hparams["optimizer"].string_value == "adam"
    if writer == "torch":  # torch's writer tests isinstance(v, int) first, so a bool becomes a number
        assert start.hparams["use_bn"].number_value == 1.0
    else:
        assert start.hparams["use_bn"].bool_value is True
    experiment = plugin_data("_hparams_/experiment").experiment
    assert sorted(h.name for h in experiment.hparam_infos) == sorted(HPARAMS)
    assert [m.name.tag for m in experiment.metric_infos] == list(HP_METRICS)
    assert plugin_data("_hparams_/session_end_info").WhichOneof("data") == "session_end_info"
    for tag in HP_TAGS:  # TensorBoard gives these summaries an empty float tensor
        t = lg.tensors(run, tag)
        assert len(t) == 1 and t.plugin == "hparams"
        assert t.values[0].dtype == np.float32 and t.values[0].shape == (0,)
    s = lg.scalars(run, "hparam/accuracy")
    assert s.value.tolist() == [HP_METRICS["hparam/accuracy"]]


# -- restarts: purge_step --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def restart(tmp_path_factory):
    """Per writer: A writes loss 0..99, then B = SummaryWriter(same dir, purge_step=60) 60..119.

    ``live`` was loaded after A only and is reloaded after B.
    """
    root = tmp_path_factory.mktemp("restart")
    out = {}
    for writer in available_writers():
        a = make_writer(writer, root / writer)
        for s in range(100):
            a.add_scalar("loss", float(s), s)
            if s % 20 == 0:
                a.add_text("log", f"A{s}", s)
        a.close()
        live = tbnb.load(root / writer)
        assert len(live.scalars(".", "loss")) == 100
        out[writer] = {"live": live}
    wait_for_next_second()
    for writer, state in out.items():
        b = make_writer(writer, root / writer, purge_step=60)
        for s in range(60, 120):
            b.add_scalar("loss", 1000.0 + s, s)
            if s % 20 == 0:
                b.add_text("log", f"B{s}", s)
        b.close()
        state["dir"] = root / writer
    return out


def expected_restart_values() -> np.ndarray:
    return np.concatenate([np.arange(60.0), 1000.0 + np.arange(60.0, 120.0)])


@pytest.mark.parametrize("writer", WRITERS)
def test_restart_with_purge_step_keeps_the_new_run(restart, writer):
    lg = tbnb.load(restart[writer]["dir"])
    assert len(list(restart[writer]["dir"].glob("*tfevents*"))) == 2
    s = lg.scalars(".", "loss")
    np.testing.assert_array_equal(s.step, np.arange(120))
    np.testing.assert_array_equal(s.value, expected_restart_values())
    t = lg.tensors(".", "log/text_summary")
    assert t.step.tolist() == list(range(0, 120, 20))
    assert [v[0].decode() for v in t.values] == ["A0", "A20", "A40", "B60", "B80", "B100"]


@pytest.mark.parametrize("writer", WRITERS)
def test_restart_seen_live_purges_on_reload(restart, writer):
    lg = restart[writer]["live"]  # loaded after A, before B existed
    result = lg.reload()
    assert result.purged_runs == ["."]
    assert result.points == {(".", "loss"): 60, (".", "log/text_summary"): 3}
    assert result.new_runs == [] and result.removed_runs == [] and result.new_tags == {}
    s = lg.scalars(".", "loss")
    np.testing.assert_array_equal(s.step, np.arange(120))
    np.testing.assert_array_equal(s.value, expected_restart_values())
    assert lg.tensors(".", "log/text_summary").step.tolist() == list(range(0, 120, 20))
    assert not lg.reload()


@pytest.mark.parametrize("writer", WRITERS)
def test_restart_without_purging_keeps_every_point(restart, writer):
    lg = tbnb.load(restart[writer]["dir"], purge_orphaned_data=False)
    s = lg.scalars(".", "loss")
    assert len(s) == 100 + 60
    assert np.all(np.diff(s.step) >= 0)
    np.testing.assert_array_equal(np.unique(s.step), np.arange(120))
    for step in range(120):
        got = sorted(s.value[s.step == step].tolist())
        want = ([float(step)] if step < 100 else []) + ([1000.0 + step] if step >= 60 else [])
        assert got == sorted(want), step
    t = lg.tensors(".", "log/text_summary")  # A: 0..80, B: 60..100, every 20 steps
    assert sorted(zip(t.step.tolist(), (v[0].decode() for v in t.values))) == sorted(
        [(s, f"A{s}") for s in range(0, 100, 20)] + [(s, f"B{s}") for s in range(60, 120, 20)])


# -- two writers at once ---------------------------------------------------------------------------


@pytest.mark.torch
@needs_torch
def test_two_writers_open_at_once_in_one_directory(tmp_path):
    w1 = make_writer("torch", tmp_path)
    w2 = make_writer("torch", tmp_path)
    try:
        for s in range(20):
            w1.add_scalar("a", float(s), s)
            w2.add_scalar("b", -float(s), s)
        w1.flush()
        w2.flush()
        assert len(list(tmp_path.glob("*tfevents*"))) == 2
        lg = tbnb.load(tmp_path)
        assert lg.runs() == ["."]
        assert lg.tags(".") == {"a": "scalars", "b": "scalars"}
        for s in range(20, 30):
            w1.add_scalar("a", float(s), s)
            w2.add_scalar("b", -float(s), s)
        w1.flush()
        w2.flush()
        result = lg.reload()
        assert result.points == {(".", "a"): 10, (".", "b"): 10}
        assert not result.purged_runs
    finally:
        w1.close()
        w2.close()
    np.testing.assert_array_equal(lg.scalars(".", "a").value, np.arange(30.0))
    np.testing.assert_array_equal(lg.scalars(".", "b").value, -np.arange(30.0))
    np.testing.assert_array_equal(lg.scalars(".", "b").step, np.arange(30))


# -- sampling --------------------------------------------------------------------------------------


def check_sample(t, total: int, keep: int) -> None:
    steps = t.step.tolist()
    assert len(steps) == keep
    assert steps[-1] == total - 1  # the latest step is always kept
    assert all(a < b for a, b in zip(steps, steps[1:]))
    assert set(steps) <= set(range(total))


def test_default_sampling(sampling_logdir):
    lg = tbnb.load(sampling_logdir)
    check_sample(lg.tensors("sampled", "h"), N_HIST_STEPS, 500)
    images = lg.tensors("sampled", "im")
    check_sample(images, N_IMAGE_STEPS, 10)
    for step, v in zip(images.step, images.values):  # each kept image is the one of its step
        assert decode_png(v[2])[0, 0, 0] == step
    texts = lg.tensors("sampled", "t/text_summary")
    check_sample(texts, N_TEXT_STEPS, 10)
    assert [v[0].decode() for v in texts.values] == [f"step {s}" for s in texts.step]


def test_samples_per_plugin_all(sampling_logdir):
    lg = tbnb.load(sampling_logdir, samples_per_plugin="histograms=all")
    h = lg.tensors("sampled", "h")
    assert h.step.tolist() == list(range(N_HIST_STEPS))
    assert all(v[:, 2].sum() == 20 for v in h.values)
    check_sample(lg.tensors("sampled", "im"), N_IMAGE_STEPS, 10)


def test_samples_per_plugin_mapping(sampling_logdir):
    lg = tbnb.load(sampling_logdir, samples_per_plugin={"images": "all", "*": 5})
    assert lg.tensors("sampled", "im").step.tolist() == list(range(N_IMAGE_STEPS))
    check_sample(lg.tensors("sampled", "t/text_summary"), N_TEXT_STEPS, 5)
    check_sample(lg.tensors("sampled", "h"), N_HIST_STEPS, 5)  # "*" overrides every default not named
    lg3 = tbnb.load(sampling_logdir, samples_per_plugin="images=3")
    check_sample(lg3.tensors("sampled", "im"), N_IMAGE_STEPS, 3)
