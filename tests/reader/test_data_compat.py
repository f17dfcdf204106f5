"""TF1 -> tensor migration agrees with TensorBoard's data_compat."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.format.proto import summary_pb2
from tbnb.reader.events import data_compat


def histo_value(limits: list[float], counts: list[float], lo: float, hi: float) -> summary_pb2.Summary.Value:
    v = summary_pb2.Summary.Value(tag="h")
    v.histo.min, v.histo.max = lo, hi
    v.histo.num = sum(counts)
    v.histo.bucket_limit.extend(limits)
    v.histo.bucket.extend(counts)
    return v


def tensorboard_migrate(value: summary_pb2.Summary.Value) -> np.ndarray:
    from tensorboard import data_compat as tb_data_compat
    from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
    from tensorboard.util import tensor_util

    tb_value = tb_summary_pb2.Summary.Value.FromString(value.SerializeToString())
    return tensor_util.make_ndarray(tb_data_compat.migrate_value(tb_value).tensor)


@pytest.mark.parametrize(
    "limits,counts,lo,hi",
    [
        ([0.0, 1.0, 2.0, 3.0], [0.0, 4.0, 5.0, 0.0], 0.5, 2.5),  # empty end buckets trimmed
        ([-1e308, 0.0, 1.0, 1e308], [1.0, 0.0, 2.0, 3.0], -0.5, 3.0),
        ([1.0, 2.0], [0.0, 0.0], 0.0, 0.0),  # all empty
        ([5.0], [7.0], 5.0, 5.0),  # one bucket
    ],
)
def test_histo_matches_tensorboard(limits: list[float], counts: list[float], lo: float, hi: float) -> None:
    v = histo_value(limits, counts, lo, hi)
    ours = data_compat.tensor_of(v)
    theirs = tensorboard_migrate(v)
    assert ours.shape == theirs.shape
    # TensorBoard narrows to float32 (±1e308 edges become ±inf); we keep float64.
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(ours.astype(np.float32), theirs, rtol=1e-6)


def test_trimmed_histo_by_hand() -> None:
    v = histo_value([0.0, 1.0, 2.0, 3.0], [0.0, 4.0, 5.0, 0.0], 0.5, 2.5)
    assert data_compat.tensor_of(v).tolist() == [[0.5, 1.0, 4.0], [1.0, 2.5, 5.0]]


def test_image_and_audio_forms() -> None:
    v = summary_pb2.Summary.Value(tag="i")
    v.image.width, v.image.height, v.image.encoded_image_string = 4, 3, b"\x89PNG..."
    assert data_compat.tensor_of(v).tolist() == [b"4", b"3", b"\x89PNG..."]
    a = summary_pb2.Summary.Value(tag="a")
    a.audio.encoded_audio_string = b"RIFF..."
    assert data_compat.tensor_of(a).tolist() == [[b"RIFF...", b""]]


def test_metadata_names_the_plugin() -> None:
    assert data_compat.metadata_of(summary_pb2.Summary.Value(tag="s", simple_value=1)).plugin_data.plugin_name == "scalars"
    t = summary_pb2.Summary.Value(tag="t")
    t.tensor.dtype = 1
    assert data_compat.metadata_of(t).plugin_data.plugin_name == data_compat.UNKNOWN_PLUGIN
    t.metadata.plugin_data.plugin_name = "text"
    assert data_compat.metadata_of(t).plugin_data.plugin_name == "text"
    assert data_compat.metadata_of(summary_pb2.Summary.Value(tag="empty")) is None


def test_scalar_from_tensor_and_rejects_non_scalars() -> None:
    t = summary_pb2.Summary.Value(tag="s")
    t.tensor.dtype = 2
    t.tensor.double_val.append(0.1)
    assert data_compat.scalar_of(t) == 0.1
    t.tensor.tensor_shape.dim.add(size=2)
    t.tensor.double_val.append(0.2)
    with pytest.raises(ValueError, match="shape"):
        data_compat.scalar_of(t)
