"""Tests for ``tbnb.writer.scalar_events``: hand-encoded scalar events equal protobuf's bytes."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.format.proto import event_pb2, types_pb2
from tbnb.writer import encode_record, scalar_records

from .readback import T0


@pytest.mark.parametrize("tf2", [False, True])
@pytest.mark.parametrize(
    "steps",
    [[0], [1, 5, 127], [128, 300, 16383], [16384, 2**21 - 1], [2**21, 2**28 - 1], [2**40, 2**41]],
)
def test_scalar_records_equal_protobuf_serialization(tf2: bool, steps: list[int]) -> None:
    n = len(steps)
    walls = np.array([T0 + 0.125 * i for i in range(n)])
    values = np.array([0.0, -0.0, np.inf, -3.25e-7, 1e30][:n] + [0.5] * max(0, n - 5), dtype=np.float32)
    for metadata in ([False, True] if tf2 else [False]):
        got = scalar_records("group_0/metric_3", np.array(steps), walls, values, tf2=tf2, metadata=metadata)
        for i, step in enumerate(steps):
            event = event_pb2.Event(wall_time=float(walls[i]), step=step)
            value = event.summary.value.add(tag="group_0/metric_3")
            if tf2:
                value.tensor.dtype = types_pb2.DT_FLOAT
                value.tensor.tensor_shape.SetInParent()
                value.tensor.float_val.append(float(values[i]))
                if metadata:
                    value.metadata.plugin_data.plugin_name = "scalars"
            else:
                value.simple_value = float(values[i])
            assert got[i].tobytes() == encode_record(event.SerializeToString())
