"""Scalar records that repeat their metadata (torch's ``new_style`` scalars) stay on the bulk
path, and the bulk path still answers exactly as the general path does: a differential test
over real torch logs and generated ones (metadata valid or not, naming scalars or another
plugin, on every value, the first only or none, TF1 and TF2 forms, damaged or not).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tbnb
from tbnb.format.proto import event_pb2, summary_pb2, types_pb2
from tbnb.reader.events.scalars_bulk import decode_scalars, template
from tbnb.reader.records.frame_bulk import frame_bulk
from tbnb.writer import encode_record

from .test_bulk import assert_same_logdir, damage, protobuf_rows, small_bulk  # noqa: F401 - a fixture

SCALARS_MD = summary_pb2.SummaryMetadata(
    plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")).SerializeToString()

#: Metadata bytes a value may carry: what writers write, and what protobuf refuses.
METADATA = {
    "none": None,
    "scalars": SCALARS_MD,
    "scalars+display": summary_pb2.SummaryMetadata(
        display_name="shown", summary_description="said",
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")).SerializeToString(),
    "scalars+content": summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars", content=b"\x00\x01"),
        data_class=summary_pb2.DATA_CLASS_SCALAR).SerializeToString(),
    "scalarz": SCALARS_MD.replace(b"scalars", b"scalarz"),  # same length, another plugin
    "text": summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")).SerializeToString(),
    "empty": b"",
    "bad-utf8": SCALARS_MD.replace(b"scalars", b"scal\xffrs"),
    "truncated": SCALARS_MD[:-3],
    "unknown-field": SCALARS_MD + b"\x78\x01",  # field 15 varint: kept as unknown, parses
}


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _event(tag: str, step: int, wall: float, value: float, form: str, md: bytes | None) -> bytes:
    """An Event with one value, its metadata spliced in as raw bytes (so that protobuf's
    serializer cannot refuse or repair what a damaged writer could write)."""
    v = summary_pb2.Summary.Value(tag=tag)
    if form == "tf1":
        v.simple_value = value
    elif form == "float":
        v.tensor.dtype, v.tensor.float_val[:] = types_pb2.DT_FLOAT, [value]
    else:
        v.tensor.dtype, v.tensor.double_val[:] = types_pb2.DT_DOUBLE, [value]
    vb = v.SerializeToString()
    if md is not None:
        vb += b"\x4a" + _varint(len(md)) + md
    summary = b"\x0a" + _varint(len(vb)) + vb
    head = event_pb2.Event(wall_time=wall, step=step).SerializeToString()
    return head + b"\x2a" + _varint(len(summary)) + summary


def test_template_accepts_parsed_scalars_metadata_only() -> None:
    ok = template(_event("loss", 3, 1.5, 2.0, "float", SCALARS_MD))
    assert ok is not None and ok.metadata and ok.tf2
    assert template(_event("loss", 3, 1.5, 2.0, "tf1", SCALARS_MD)) is not None
    for name in ("scalarz", "text", "empty", "bad-utf8", "truncated"):
        assert template(_event("loss", 3, 1.5, 2.0, "float", METADATA[name])) is None, name


def test_first_metadata_row_of_a_tag_is_left_to_protobuf(small_bulk: None) -> None:
    """Its metadata names the tag (and is kept): the general path applies it; the rest are rows."""
    records = [_event("loss", s, 1.0 + s, float(s), "float", SCALARS_MD) for s in range(1, 11)]
    buf = b"".join(encode_record(r) for r in records)
    framed = frame_bulk(buf)
    decoded = decode_scalars(buf, framed.starts, framed.lengths)
    assert decoded.rows.tolist() == list(range(1, 10))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@pytest.mark.parametrize("double", [False, True])
def test_torch_new_style_scalars_are_read_in_bulk(tmp_path: Path, double: bool) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(tmp_path / "run"))
    for step in range(3000):
        w.add_scalar("loss", 1.0 / (step + 1), step, new_style=True, double_precision=double)
        w.add_scalar("acc", step / 3000, step, new_style=True, double_precision=double)
        if step % 1000 == 0:
            w.add_scalar("old", float(step), step)  # the default form beside it
    w.close()
    with protobuf_rows() as calls:
        lg = tbnb.load(tmp_path)
    assert len(lg.scalars("run", "loss")) == 3000
    assert lg.metadata("run", "loss").plugin_data.plugin_name == "scalars"
    assert sum(calls) < 20  # the first record of each tag, and the odd ones
    assert_same_logdir(tmp_path)
    assert_same_logdir(tmp_path, purge_orphaned_data=False)


_ROW = st.tuples(st.sampled_from(["loss", "acc", "é"]), st.sampled_from(["tf1", "float", "double"]),
                 st.sampled_from(sorted(METADATA)), st.integers(-3, 12), st.sampled_from([0.0, -0.0, 1.5, np.nan]))


@settings(deadline=None, max_examples=60, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(_ROW, min_size=1, max_size=12), st.integers(1, 40), st.integers(0, 2**32 - 1), st.booleans())
def test_generated_logs_bulk_equals_general(tmp_path: Path, small_bulk: None, rows: list, repeat: int,
                                            seed: int, damaged: bool) -> None:
    """Each generated row is repeated (records of one layout, steps going on) so that the bulk
    decoder has groups to take; metadata of every kind, on any value."""
    records = [encode_record(event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())]
    step = 0
    for k in range(repeat):
        for tag, form, md, jump, value in rows:
            step += jump
            records.append(encode_record(_event(tag, step, 1.6e9 + k, value + k, form, METADATA[md])))
    buf = b"".join(records)
    if damaged:
        buf = damage(np.random.default_rng(seed), buf)
    root = tmp_path / f"case-{seed}-{repeat}"
    shutil.rmtree(root, ignore_errors=True)
    (root / "run").mkdir(parents=True)
    (root / "run" / "events.out.tfevents.1.test").write_bytes(buf)
    assert_same_logdir(root)
    assert_same_logdir(root, purge_orphaned_data=False)
