"""Audio tensors read as TensorBoard 2.21's loader reads them: ``Logdir.tensors`` gives the
encoded clips only, shape ``[k]``, for TF1 ``Summary.Audio`` (torch, tensorboardX, tbnb's writer)
and tensor audio (``[k]`` without labels, ``[k, 2]`` with them) alike, equal to what
``plugin_event_accumulator.EventAccumulator.Tensors`` gives for the same file. The labels stay
reachable as written (``as_written=True``), which the audio dashboard reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.format.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
from tbnb.reader.events.data_compat import audio_clips
from tbnb.testing import EventWriter, encode_wav

pytest.importorskip("tensorboard")

RATE = 8000
SOUND = np.sin(np.linspace(0, 40, 800))


def tensorboard_reading(run_dir: Path, tag: str) -> list[tuple[int, np.ndarray]]:
    """(step, tensor) of every event of ``tag`` as TensorBoard's own loader reads the run."""
    from tensorboard.backend.event_processing.plugin_event_accumulator import EventAccumulator
    from tensorboard.util import tensor_util

    acc = EventAccumulator(str(run_dir), size_guidance={"tensors": 0})
    acc.Reload()
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def string_tensor_event(tag: str, values: list[bytes], shape: list[int], step: int) -> summary_pb2.Summary.Value:
    """A tensor audio value as TensorBoard's tensor summaries write it (plugin "audio")."""
    from tensorboard.plugins.audio import metadata

    t = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=values)
    for size in shape:
        t.tensor_shape.dim.add(size=size)
    md = metadata.create_summary_metadata(display_name=tag, description="", encoding=metadata.Encoding.Value("WAV"))
    value = summary_pb2.Summary.Value(tag=tag, metadata=summary_pb2.SummaryMetadata.FromString(md.SerializeToString()))
    value.tensor.CopyFrom(t)
    return value


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("audio")
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(root / "torch"))
    for step in range(3):
        w.add_audio("clip", torch.from_numpy(SOUND * (step + 1) / 4), step, sample_rate=RATE)
    w.close()
    tbx = pytest.importorskip("tensorboardX")
    w = tbx.SummaryWriter(str(root / "tbx"))
    for step in range(3):
        w.add_audio("clip", SOUND * (step + 1) / 4, step, sample_rate=RATE)
    w.close()
    with EventWriter(root / "tbnb") as w:
        for step in range(3):
            w.add_audio("clip", SOUND / (step + 1), RATE, step)  # TF1 Summary.Audio
            w.add_audio("tf2", SOUND / (step + 1), RATE, step, tf2=True, label=f"take {step}")  # [1, 2]
        wavs = [encode_wav(SOUND * i / 4, RATE) for i in range(3)]
        for step in range(2):
            for value in (string_tensor_event("batch", wavs, [3], step),  # TF2's tf.summary.audio: [k]
                          string_tensor_event("labelled", [wavs[0], b"one", wavs[1], b"two"], [2, 2], step)):
                w.add_event(event_pb2.Event(step=step, wall_time=1.0 + step, summary=summary_pb2.Summary(value=[value])))
    return root


@pytest.mark.parametrize(("run", "tag"), [("torch", "clip"), ("tbx", "clip"), ("tbnb", "clip"), ("tbnb", "tf2"),
                                          ("tbnb", "batch"), ("tbnb", "labelled")])
def test_audio_reads_as_tensorboards_loader(logdir: Path, run: str, tag: str) -> None:
    ours = tbnb.load(logdir, samples_per_plugin="audio=all").tensors(run, tag)
    theirs = tensorboard_reading(logdir / run, tag)
    assert ours.plugin == "audio"
    assert ours.step.tolist() == [step for step, _ in theirs]
    for mine, (_, expected) in zip(ours.values, theirs):
        assert mine.shape == expected.shape and mine.ndim == 1
        assert [bytes(x) for x in mine] == [bytes(x) for x in expected]
        assert all(bytes(x).startswith(b"RIFF") for x in mine)


def test_labels_stay_reachable_as_written(logdir: Path) -> None:
    lg = tbnb.load(logdir, samples_per_plugin="audio=all")
    written = lg.tensors("tbnb", "labelled", as_written=True).values[0]
    assert written.shape == (2, 2) and [bytes(x) for x in written[:, 1]] == [b"one", b"two"]
    assert lg.tensors("tbnb", "tf2", as_written=True).values[2][0, 1] == b"take 2"
    assert lg.tensors("tbnb", "clip", as_written=True).values[0].shape == (1, 2)  # TF1: an empty label


def test_the_audio_dashboard_still_lists_the_labels(logdir: Path) -> None:
    from tbnb.board.dashboards import MODULES, blob_kinds
    from tbnb.board.dashboards.media import blobs_entries
    from tbnb.board.sources import MultiLogdir

    source = MultiLogdir([(None, tbnb.load(logdir, samples_per_plugin="audio=all"))])
    _, entries = blobs_entries(source, "labelled", ["tbnb"], blob_kinds(MODULES))
    assert entries[0]["labels"] == ["one", "one"] and entries[0]["counts"] == [2, 2]
    _, entries = blobs_entries(source, "tf2", ["tbnb"], blob_kinds(MODULES))
    assert entries[0]["labels"] == ["take 0", "take 1", "take 2"]


def test_audio_clips_projects_the_first_axis() -> None:
    arr = np.array([[b"a", b"x"], [b"b", b"y"]], dtype=object)
    assert audio_clips(arr).tolist() == [b"a", b"b"]
    assert audio_clips(np.array([b"a", b"b"], dtype=object)).tolist() == [b"a", b"b"]
    assert audio_clips(np.empty((3, 0), dtype=object)).shape == (0,)
    assert audio_clips(np.array([[[b"a", b"p"], [b"q", b"r"]]], dtype=object)).tolist() == [b"a"]
