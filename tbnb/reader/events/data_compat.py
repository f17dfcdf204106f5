"""TF1 summaries -> TensorBoard's tensor forms, and each value's plugin.

Everything downstream sees one shape of data per plugin, whichever writer produced it
(TensorBoard's ``data_compat``):

* ``simple_value`` -> a scalar (plugin ``scalars``);
* ``histo`` -> float64 ``[k, 3]`` of (left, right, count), empty end buckets trimmed;
* ``image`` -> ``[b"W", b"H", png]`` (plugin ``images``);
* ``audio`` -> ``[[wav, b""]]`` (plugin ``audio``), read by ``Logdir.tensors`` as TensorBoard's
  loader gives every audio tensor: the clips only, ``[k]`` (``audio_clips``);
* ``tensor`` -> its array, plugin named by its SummaryMetadata.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tbnb.format.proto import plugin_data_pb2, summary_pb2

from .tensors import to_ndarray

#: Plugins whose payloads are large and read on demand from the file.
BLOB_PLUGINS = frozenset({"images", "audio"})
#: The audio plugin's name: its tensors are read as TensorBoard reads them (``audio_clips``).
AUDIO_PLUGIN = "audio"
#: The plugin name used for tensors whose metadata names no plugin.
UNKNOWN_PLUGIN = "tensors"
#: hparams summaries carry everything in their metadata and no value (TensorBoard's NULL_TENSOR).
HPARAMS_PLUGIN = "hparams"

_TF1_PLUGINS = {
    "simple_value": ("scalars", plugin_data_pb2.ScalarPluginData()),
    "histo": ("histograms", plugin_data_pb2.HistogramPluginData()),
    "image": ("images", plugin_data_pb2.ImagePluginData(converted_to_tensor=True)),
    "audio": ("audio", plugin_data_pb2.AudioPluginData(
        encoding=plugin_data_pb2.AudioPluginData.WAV, converted_to_tensor=True)),
}
_DATA_CLASS = {
    "scalars": summary_pb2.DATA_CLASS_SCALAR,
    "images": summary_pb2.DATA_CLASS_BLOB_SEQUENCE,
    "audio": summary_pb2.DATA_CLASS_BLOB_SEQUENCE,
    "graph_run_metadata": summary_pb2.DATA_CLASS_BLOB_SEQUENCE,
    "graph_run_metadata_graph": summary_pb2.DATA_CLASS_BLOB_SEQUENCE,
    "graph_keras_model": summary_pb2.DATA_CLASS_BLOB_SEQUENCE,
}


def value_tag(value: summary_pb2.Summary.Value) -> str:
    """The value's tag; very old writers left it empty and used ``node_name``."""
    return value.tag or value.node_name


def metadata_of(value: summary_pb2.Summary.Value) -> summary_pb2.SummaryMetadata | None:
    """The value's SummaryMetadata, synthesised for TF1 kinds; None for values we cannot use.

    The plugin of a tag is fixed by the first metadata seen for it (TensorBoard's rule).
    """
    kind = value.WhichOneof("value")
    if kind in _TF1_PLUGINS:
        plugin, content = _TF1_PLUGINS[kind]
        md = summary_pb2.SummaryMetadata()
        md.CopyFrom(value.metadata)
        md.plugin_data.plugin_name = plugin
        md.plugin_data.content = content.SerializeToString()
        if not md.display_name:
            md.display_name = value_tag(value)
        md.data_class = _DATA_CLASS.get(plugin, summary_pb2.DATA_CLASS_TENSOR)
        return md
    if kind == "tensor" or (kind is None and value.metadata.plugin_data.plugin_name == HPARAMS_PLUGIN):
        md = summary_pb2.SummaryMetadata()
        md.CopyFrom(value.metadata)
        if not md.plugin_data.plugin_name:
            md.plugin_data.plugin_name = UNKNOWN_PLUGIN
        if md.data_class == summary_pb2.DATA_CLASS_UNKNOWN and md.plugin_data.plugin_name != UNKNOWN_PLUGIN:
            md.data_class = _DATA_CLASS.get(md.plugin_data.plugin_name, summary_pb2.DATA_CLASS_TENSOR)
        return md
    return None  # obsolete_old_style_histogram, or nothing at all


def histogram_from_histo(histo: summary_pb2.HistogramProto) -> np.ndarray:
    """A TF1 HistogramProto as TensorBoard's ``[k, 3]`` (left, right, count), end buckets trimmed."""
    counts = np.asarray(histo.bucket, dtype=np.float64)
    nonzero = np.flatnonzero(counts > 0)
    if nonzero.size == 0:
        return np.zeros((0, 3), dtype=np.float64)
    start, end = int(nonzero[0]), int(nonzero[-1])
    limits = np.asarray(histo.bucket_limit, dtype=np.float64)
    inner = limits[start:end]
    lefts = np.concatenate(([histo.min], inner))
    rights = np.concatenate((inner, [histo.max]))
    return np.stack([lefts, rights, counts[start : end + 1]], axis=1)


def scalar_of(value: summary_pb2.Summary.Value) -> float:
    """The float of a scalar value: ``simple_value`` or a one-element numeric tensor."""
    if value.WhichOneof("value") == "simple_value":
        return value.simple_value
    arr = to_ndarray(value.tensor)
    if arr.size != 1 or arr.dtype == object:
        raise ValueError(f"scalar summary holds a tensor of shape {arr.shape} and dtype {arr.dtype}")
    return float(arr.reshape(())[()].real if np.iscomplexobj(arr) else arr.reshape(())[()])


def tensor_of(value: summary_pb2.Summary.Value) -> np.ndarray:
    """The value in its plugin's tensor form (every kind but scalars)."""
    kind = value.WhichOneof("value")
    if kind == "tensor":
        return to_ndarray(value.tensor)
    if kind == "histo":
        return histogram_from_histo(value.histo)
    if kind == "image":
        img = value.image
        out = np.empty(3, dtype=object)
        out[:] = [str(img.width).encode(), str(img.height).encode(), img.encoded_image_string]
        return out
    if kind == "audio":
        out = np.empty((1, 2), dtype=object)
        out[0, 0], out[0, 1] = value.audio.encoded_audio_string, b""
        return out
    if kind == "simple_value":
        return np.array(value.simple_value, dtype=np.float32)
    if kind is None and value.metadata.plugin_data.plugin_name == HPARAMS_PLUGIN:
        return np.zeros(0, dtype=np.float32)
    raise ValueError(f"value of kind {kind!r} has no tensor form")


def audio_clips(arr: np.ndarray) -> np.ndarray:
    """An audio tensor as TensorBoard 2.21's loader gives it (``dataclass_compat``'s audio
    migration): the first axis only, each entry's first element, so ``[k, 2]`` of (clip,
    label), TF1's ``[[wav, b""]]`` and TF2's ``[k]`` all read as ``[k]`` encoded clips.

    Why: ``Logdir.tensors`` answers what TensorBoard's ``EventAccumulator.Tensors`` answers for
    the same file; the labels stay reachable as written (``Logdir.tensors(..., as_written=True)``,
    which the audio dashboard reads).
    """
    if arr.ndim <= 1:
        return arr
    if 0 in arr.shape[1:]:  # no element to keep (TensorBoard itself fails on such a tensor)
        return np.empty(0, dtype=arr.dtype)
    return np.ascontiguousarray(arr[(slice(None),) + (0,) * (arr.ndim - 1)])


def read_as_tensorboard(plugin: str, decode: Callable[[Any], np.ndarray]) -> Callable[[Any], np.ndarray]:
    """``decode`` followed by TensorBoard's reading of the plugin's tensors (audio: the clips)."""
    if plugin != AUDIO_PLUGIN:
        return decode
    return lambda payload: audio_clips(decode(payload))
