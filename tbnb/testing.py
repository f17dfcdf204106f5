"""Write TensorBoard event files without TensorFlow or torch, for tests, demos and benchmarks.

tbnb reads event files itself, so its tests need a writer that is small, deterministic when asked
(explicit wall times, seeded data) and able to write what TF1 (``simple_value``, ``histo``,
``image``, ``audio``) and TF2 (plugin tensors, metadata on the first value of a tag only) writers
produce. ``write_scalar_logdir`` is the benchmark dataset: it encodes millions of scalar events
with numpy instead of one protobuf object per event, and is tested to be byte-identical to
protobuf's own serializer.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import threading
import time
from types import TracebackType

import numpy as np

from tbnb._media import encode_png, encode_wav, histogram_buckets, pr_curve_data, scalar_records
from tbnb.reader.proto import event_pb2, graph_pb2, plugin_data_pb2, summary_pb2, tensor_pb2, types_pb2
from tbnb.reader.records import encode_record

__all__ = [
    "EventWriter",
    "write_scalar_logdir",
    "write_demo_logdir",
    "encode_png",
    "encode_wav",
    "histogram_buckets",
    "pr_curve_data",
]

FILE_VERSION = "brain.Event:2"
#: Process-global, so that two writers in one directory get distinct files that sort by creation.
_FILE_COUNTER = itertools.count()
_COUNTER_LOCK = threading.Lock()


def _event_file_name(start_time: float, suffix: str) -> str:
    """TensorBoard's naming scheme with host ``tbnb-testing``; the counter is zero-padded so that
    name order is creation order within a process (``...9`` would sort after ``...10``)."""
    with _COUNTER_LOCK:
        n = next(_FILE_COUNTER)
    return f"events.out.tfevents.{int(start_time):010d}.tbnb-testing.{os.getpid()}.{n:06d}{suffix}"


def _now(wall_time: float | None) -> float:
    return time.time() if wall_time is None else wall_time


def _shape(dims: tuple[int, ...] | list[int]) -> tensor_pb2.TensorShapeProto:
    return tensor_pb2.TensorShapeProto(dim=[tensor_pb2.TensorShapeProto.Dim(size=int(d)) for d in dims])


def _string_tensor(items: list[bytes], dims: tuple[int, ...] | list[int]) -> tensor_pb2.TensorProto:
    return tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_shape=_shape(dims), string_val=items)


def _packed_tensor(arr: np.ndarray, dtype: int) -> tensor_pb2.TensorProto:
    """A numeric tensor in ``tensor_content`` (little-endian), as ``make_tensor_proto`` writes arrays."""
    little = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
    return tensor_pb2.TensorProto(
        dtype=dtype, tensor_shape=_shape(arr.shape), tensor_content=np.ascontiguousarray(little).tobytes()
    )


def _as_images(image: np.ndarray) -> np.ndarray:
    """Normalise [H,W], [H,W,C] or [N,H,W,C] uint8 to [N,H,W,C] with C in 1, 3, 4."""
    arr = np.asarray(image)
    if arr.dtype != np.uint8:
        raise TypeError(f"images must be uint8, got {arr.dtype}")
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim == 3:
        arr = arr[None]
    if arr.ndim != 4 or arr.shape[-1] not in (1, 3, 4) or arr.shape[0] == 0:
        raise ValueError(f"expected HW, HWC or NHWC with C in 1, 3, 4; got shape {np.shape(image)}")
    return arr


class EventWriter:
    """Writes one event file in a directory (created if missing).

    Values default to the current time as wall time; pass ``wall_time`` for reproducible files.
    TF2-style (tensor) values carry their ``SummaryMetadata`` only on the first value of each tag
    in this writer, as TF2 writers do; ``repeat_metadata=True`` puts it on every value instead, as
    tensorboardX and TF1's ``tf.summary.text`` do.
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        *,
        filename_suffix: str = "",
        start_time: float | None = None,
        repeat_metadata: bool = False,
    ) -> None:
        directory = pathlib.Path(logdir)
        directory.mkdir(parents=True, exist_ok=True)
        t = time.time() if start_time is None else float(start_time)
        self.path: pathlib.Path = directory / _event_file_name(t, filename_suffix)
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed by close()
        self._repeat_metadata = repeat_metadata
        self._tags_with_metadata: set[str] = set()
        self.add_event(event_pb2.Event(wall_time=t, file_version=FILE_VERSION))

    # -- raw ----------------------------------------------------------------------------------
    def add_event(self, event: event_pb2.Event) -> None:
        """Append one event as it is (no wall time or step filled in)."""
        self.add_record_bytes(event.SerializeToString())

    def add_record_bytes(self, data: bytes) -> None:
        """Append one record with any payload, valid Event or not (for damage tests)."""
        self._file.write(encode_record(data))

    def _add_value(self, value: summary_pb2.Summary.Value, step: int, wall_time: float | None) -> None:
        event = event_pb2.Event(wall_time=_now(wall_time), step=step)
        event.summary.value.append(value)
        self.add_event(event)

    def _tensor_value(
        self, tag: str, tensor: tensor_pb2.TensorProto, plugin: str, content: bytes
    ) -> summary_pb2.Summary.Value:
        value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
        if self._repeat_metadata or tag not in self._tags_with_metadata:
            self._tags_with_metadata.add(tag)
            value.metadata.plugin_data.plugin_name = plugin
            value.metadata.plugin_data.content = content
        return value

    # -- summaries ------------------------------------------------------------------------------
    def add_scalar(
        self, tag: str, value: float, step: int, *, wall_time: float | None = None, tf2: bool = False
    ) -> None:
        """TF1: ``simple_value``. TF2: rank-0 float32 tensor in ``float_val``, plugin "scalars"."""
        if tf2:
            tensor = tensor_pb2.TensorProto(
                dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_pb2.TensorShapeProto(), float_val=[value]
            )
            content = plugin_data_pb2.ScalarPluginData().SerializeToString()
            self._add_value(self._tensor_value(tag, tensor, "scalars", content), step, wall_time)
        else:
            self._add_value(summary_pb2.Summary.Value(tag=tag, simple_value=value), step, wall_time)

    def add_histogram(
        self,
        tag: str,
        values: np.ndarray,
        step: int,
        *,
        bins: int = 30,
        wall_time: float | None = None,
        tf2: bool = False,
    ) -> None:
        """TF2: ``histogram_buckets`` as a float64 ``[k, 3]`` tensor, plugin "histograms".

        TF1: a ``HistogramProto`` with the same equal-width buckets. ``bucket_limit`` holds each
        bucket's right edge and the last one is exactly ``max`` (never +inf or DBL_MAX), so the
        first and last buckets are never empty. All-equal data gives one bucket (limit = the
        value); empty data gives ``num = 0`` and no buckets, which TensorBoard reads as ``[0, 3]``.
        """
        if tf2:
            tensor = _packed_tensor(histogram_buckets(values, bins), types_pb2.DT_DOUBLE)
            content = plugin_data_pb2.HistogramPluginData().SerializeToString()
            self._add_value(self._tensor_value(tag, tensor, "histograms", content), step, wall_time)
            return
        data = np.asarray(values, dtype=np.float64).ravel()
        histo = summary_pb2.HistogramProto()
        if data.size:
            buckets = histogram_buckets(data, max(bins, 1))
            if data.min() == data.max():
                buckets = buckets[-1:]
            histo.min, histo.max, histo.num = float(data.min()), float(data.max()), float(data.size)
            histo.sum, histo.sum_squares = float(data.sum()), float(data @ data)
            histo.bucket_limit.extend(buckets[:, 1].tolist())
            histo.bucket.extend(buckets[:, 2].tolist())
        self._add_value(summary_pb2.Summary.Value(tag=tag, histo=histo), step, wall_time)

    def add_image(
        self, tag: str, image: np.ndarray, step: int, *, wall_time: float | None = None, tf2: bool = False
    ) -> None:
        """uint8 HW, HWC or NHWC (C in 1, 3, 4) as PNG. TF1 writes only the first image of a batch
        (``Summary.Image``); TF2 writes ``[b"W", b"H", png...]``, plugin "images"."""
        images = _as_images(image)
        _, height, width, channels = images.shape
        if tf2:
            items = [str(width).encode(), str(height).encode()] + [encode_png(im) for im in images]
            content = plugin_data_pb2.ImagePluginData().SerializeToString()
            value = self._tensor_value(tag, _string_tensor(items, [len(items)]), "images", content)
        else:
            img = summary_pb2.Summary.Image(
                height=height, width=width, colorspace=channels, encoded_image_string=encode_png(images[0])
            )
            value = summary_pb2.Summary.Value(tag=tag, image=img)
        self._add_value(value, step, wall_time)

    def add_audio(
        self,
        tag: str,
        samples: np.ndarray,
        sample_rate: int,
        step: int,
        *,
        wall_time: float | None = None,
        tf2: bool = False,
        label: str = "",
    ) -> None:
        """Float samples in [-1, 1], ``[frames]`` or ``[frames, channels]``, as 16-bit WAV.
        TF1: ``Summary.Audio``; TF2: string tensor ``[1, 2]`` of (wav, label), plugin "audio"."""
        arr = np.asarray(samples, dtype=np.float64)
        wav = encode_wav(arr, sample_rate)
        if tf2:
            content = plugin_data_pb2.AudioPluginData(
                encoding=plugin_data_pb2.AudioPluginData.WAV
            ).SerializeToString()
            value = self._tensor_value(tag, _string_tensor([wav, label.encode()], [1, 2]), "audio", content)
        else:
            audio = summary_pb2.Summary.Audio(
                sample_rate=float(sample_rate),
                num_channels=1 if arr.ndim == 1 else arr.shape[1],
                length_frames=arr.shape[0],
                encoded_audio_string=wav,
                content_type="audio/wav",
            )
            value = summary_pb2.Summary.Value(tag=tag, audio=audio)
        self._add_value(value, step, wall_time)

    def add_text(
        self, tag: str, text: str | np.ndarray, step: int, *, wall_time: float | None = None
    ) -> None:
        """A string tensor, rank 0 for a ``str`` (rendered as Markdown) or the array's shape."""
        arr = np.asarray(text, dtype=object)
        tensor = _string_tensor([str(x).encode("utf-8") for x in arr.ravel()], arr.shape)
        content = plugin_data_pb2.TextPluginData().SerializeToString()
        self._add_value(self._tensor_value(tag, tensor, "text", content), step, wall_time)

    def add_pr_curve(
        self,
        tag: str,
        labels: np.ndarray,
        predictions: np.ndarray,
        step: int,
        *,
        num_thresholds: int = 201,
        wall_time: float | None = None,
    ) -> None:
        """``pr_curve_data`` as a float32 ``[6, T]`` tensor, plugin "pr_curves"."""
        tensor = _packed_tensor(pr_curve_data(labels, predictions, num_thresholds), types_pb2.DT_FLOAT)
        content = plugin_data_pb2.PrCurvePluginData(num_thresholds=num_thresholds).SerializeToString()
        self._add_value(self._tensor_value(tag, tensor, "pr_curves", content), step, wall_time)

    def add_session_start(self, step: int, *, wall_time: float | None = None) -> None:
        """``SessionLog.START`` at ``step``: what a restarted job writes (it triggers purging)."""
        log = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
        self.add_event(event_pb2.Event(wall_time=_now(wall_time), step=step, session_log=log))

    def add_graph_def(self, graph_def_bytes: bytes, *, wall_time: float | None = None) -> None:
        """A serialized ``GraphDef`` in ``Event.graph_def`` (shown as run graph ``__run_graph__``)."""
        self.add_event(event_pb2.Event(wall_time=_now(wall_time), graph_def=graph_def_bytes))

    # -- lifecycle ----------------------------------------------------------------------------
    def flush(self) -> None:
        """Make everything written so far visible to readers."""
        self._file.flush()

    def close(self) -> None:
        """Flush and close the file; later writes raise, as a closed file should."""
        self._file.close()

    def __enter__(self) -> EventWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------
# Fast scalar logdirs: events are hand-encoded by ``_media.scalar_records``, one numpy block per
# tag and run of equal-length records, then interleaved so that each step writes every tag.

def _scalar_run_data(run: int, tags: int, steps: int, seed: int) -> tuple[float, np.ndarray, np.ndarray]:
    """Deterministic (start_time, wall_times [steps, tags] float64, values [steps, tags] float32):
    decaying loss-like curves plus a seeded random walk, 50 ms per step, 1 ms between tags."""
    rng = np.random.default_rng([seed, run])
    start = 1_600_000_000.0 + 3600.0 * run
    step_axis = np.arange(steps, dtype=np.float64)[:, None]
    wall = start + 1.0 + 0.05 * step_axis + 0.001 * np.arange(tags, dtype=np.float64)[None, :]
    scale = 1.0 + 0.25 * np.arange(tags) + 0.1 * run
    trend = scale * np.exp(-step_axis / max(steps / 4.0, 1.0))
    walk = np.cumsum(rng.normal(0.0, 0.01, size=(steps, tags)), axis=0)
    return start, wall, (trend + walk).astype(np.float32)


def _scalar_tag(t: int) -> str:
    return f"group_{t // 4}/metric_{t}"


def write_scalar_logdir(
    logdir: str | os.PathLike[str],
    *,
    runs: int = 8,
    tags: int = 16,
    steps: int = 20000,
    tf2: bool = False,
    seed: int = 0,
) -> pathlib.Path:
    """The benchmark dataset: runs ``run_00``..., one event file each, tags
    ``group_{t//4}/metric_{t}``, steps ``0..steps-1`` with one scalar per event, round-robin over
    tags within each step as a training loop writes. Deterministic for a given ``seed``."""
    root = pathlib.Path(logdir)
    tag_names = [_scalar_tag(t) for t in range(tags)]
    step_array = np.arange(steps, dtype=np.int64)
    # Cut the steps where the record length changes: after step 0 (no step field, and the TF2
    # metadata) and wherever the varint of the step gets one byte longer.
    cuts = [0] + [b for b in (1, 1 << 7, 1 << 14, 1 << 21, 1 << 28, 1 << 35) if b < steps] + [steps]
    for run in range(runs):
        start, wall, values = _scalar_run_data(run, tags, steps, seed)
        run_dir = root / f"run_{run:02d}"
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / _event_file_name(start, "")
        with open(path, "wb") as out:
            first = event_pb2.Event(wall_time=start, file_version=FILE_VERSION)
            out.write(encode_record(first.SerializeToString()))
            for a, b in zip(cuts[:-1], cuts[1:]):
                if a == b:
                    continue  # steps == 0: an empty run
                blocks = [
                    scalar_records(
                        name, step_array[a:b], wall[a:b, t], values[a:b, t], tf2=tf2, metadata=a == 0
                    )
                    for t, name in enumerate(tag_names)
                ]
                out.write(np.concatenate(blocks, axis=1).tobytes())  # row = one step, all tags
    return root


def _tiny_graph_def() -> bytes:
    """A four-node GraphDef (x, W -> MatMul -> Relu) so the demo has a graph to show."""
    graph = graph_pb2.GraphDef(versions=graph_pb2.VersionDef(producer=27))
    nodes = [("x", "Placeholder", []), ("W", "VariableV2", []), ("MatMul", "MatMul", ["x", "W"])]
    for name, op, inputs in nodes + [("Relu", "Relu", ["MatMul"])]:
        node = graph.node.add(name=name, op=op, input=inputs)
        node.attr["T"].type = types_pb2.DT_FLOAT
    return graph.SerializeToString()


_DEMO_CONFIG = """# Hyperparameters

| name | value |
|------|-------|
| learning rate | {lr} |
| batch size | 64 |
| optimizer | {opt} |

*written by `tbnb.testing`*"""


def _demo_run(w: EventWriter, rng: np.random.Generator, lr: float, start: float, tf2: bool) -> None:
    """300 steps of a fake classifier: every plugin, at the cadences real training loops use."""
    w.add_graph_def(_tiny_graph_def(), wall_time=start)
    w.add_text("config", _DEMO_CONFIG.format(lr=lr, opt="adam" if tf2 else "sgd"), 0, wall_time=start)
    yy, xx = np.mgrid[0:28, 0:28]
    for step in range(300):
        t = start + 1.0 + 0.5 * step
        progress = 1.0 - np.exp(-step * lr / 3.0)
        loss = 2.3 * (1.0 - progress) + 0.05 + 0.05 * rng.standard_normal()
        accuracy = np.clip(0.1 + 0.88 * progress + 0.02 * rng.standard_normal(), 0.0, 1.0)
        w.add_scalar("loss/train", float(loss), step, wall_time=t, tf2=tf2)
        w.add_scalar("accuracy/train", float(accuracy), step, wall_time=t, tf2=tf2)
        w.add_scalar("learning_rate", lr * 0.99 ** (step // 10), step, wall_time=t, tf2=tf2)
        if step % 10 == 0:
            val_loss = loss + 0.1 + 0.03 * rng.standard_normal()
            w.add_scalar("loss/val", float(val_loss), step, wall_time=t, tf2=tf2)
            w.add_scalar("accuracy/val", float(0.08 + 0.85 * progress), step, wall_time=t, tf2=tf2)
        if step % 25 == 0:
            weights = rng.normal(0.1 * progress, 1.0 - 0.5 * progress, 1000)
            w.add_histogram("weights/dense_1", weights, step, wall_time=t, tf2=tf2)
            relu = np.maximum(rng.normal(progress, 1.0, 1000), 0.0)
            w.add_histogram("activations/relu", relu, step, wall_time=t, tf2=tf2)
        if step % 50 == 0:
            blob = 255 * np.exp(-((xx - 14) ** 2 + (yy - 14) ** 2) / (20.0 + step / 5))
            w.add_image("inputs/sample", blob.astype(np.uint8), step, wall_time=t, tf2=tf2)
            batch = rng.integers(0, 256, size=(4, 32, 32, 3), dtype=np.uint8)
            batch[:, :, :, step // 50 % 3] = np.linspace(0, 255, 32, dtype=np.uint8)[None, :, None]
            w.add_image("inputs/batch", batch, step, wall_time=t, tf2=tf2)
            labels = rng.random(200) < 0.4
            scores = np.clip(labels * progress * 0.6 + rng.random(200) * (1 - 0.5 * progress), 0, 1)
            w.add_pr_curve("pr/positive_class", labels, scores, step, wall_time=t)
        if step % 100 == 0:
            tone = 0.5 * np.sin(2 * np.pi * (220.0 + step) * np.arange(4000) / 8000.0)
            samples = np.stack([tone, tone[::-1]], axis=1) if tf2 else tone
            w.add_audio("audio/tone", samples, 8000, step, wall_time=t, tf2=tf2, label=f"{220 + step} Hz")
            notes = np.array([["step", str(step)], ["loss", f"{loss:.3f}"]])
            w.add_text("notes", notes, step, wall_time=t)


def write_demo_logdir(logdir: str | os.PathLike[str]) -> pathlib.Path:
    """A small logdir showing every plugin: TF1-style runs ``mnist/lr_0.1`` and ``mnist/lr_0.01``
    and a TF2-style run ``tf2/lr_0.05``, 300 steps each, deterministic apart from file names."""
    root = pathlib.Path(logdir)
    runs = [("mnist/lr_0.1", 0.1, False), ("mnist/lr_0.01", 0.01, False), ("tf2/lr_0.05", 0.05, True)]
    for index, (run, lr, tf2) in enumerate(runs):
        start = 1_700_000_000.0 + 10_000.0 * index
        with EventWriter(root / run, start_time=start) as writer:
            _demo_run(writer, np.random.default_rng(index), lr, start, tf2)
    return root
