"""``EventWriter``: TensorBoard event files written without TensorFlow or torch.

tbnb reads event files itself, so its tests, its demo and its benchmark need a writer that is
small, deterministic when asked (explicit wall times, seeded data) and able to write what TF1
(``simple_value``, ``histo``, ``image``, ``audio``) and TF2 (plugin tensors, metadata on the first
value of a tag only) writers produce, including damaged records for the reader's error paths.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import threading
import time
from types import TracebackType

import numpy as np

from tbnb.format.framing import encode_record
from tbnb.format.proto import event_pb2, plugin_data_pb2, summary_pb2, tensor_pb2, types_pb2
from tbnb.writer.payloads import encode_png, encode_wav, histogram_buckets, pr_curve_data

#: The first event of every file: version 2, under which TensorBoard purges data on a restart
#: (``SessionLog.START``) rather than whenever a step goes backwards.
FILE_VERSION = "brain.Event:2"
#: Process-global, so that two writers in one directory get distinct files that sort by creation.
_FILE_COUNTER = itertools.count()
_COUNTER_LOCK = threading.Lock()


def event_file_name(start_time: float, suffix: str) -> str:
    """TensorBoard's naming scheme with host ``tbnb-testing``; the counter is zero-padded so that
    name order is creation order within a process (``...9`` would sort after ``...10``)."""
    with _COUNTER_LOCK:
        n = next(_FILE_COUNTER)
    return f"events.out.tfevents.{int(start_time):010d}.tbnb-testing.{os.getpid()}.{n:06d}{suffix}"


def _now(wall_time: float | None) -> float:
    """The caller's wall time, or now: tests pass one so that files are reproducible."""
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
        self.path: pathlib.Path = directory / event_file_name(t, filename_suffix)
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
