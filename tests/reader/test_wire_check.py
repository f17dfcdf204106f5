"""The bulk check of payload messages against protobuf: what it accepts, protobuf parses.

``wire_check.messages_ok`` decides which records the value walker keeps without protobuf. It may
hand a parseable message over (protobuf then reads it, as the general path does), never keep a
broken one: every message it accepts here, writers' own and thousands of damaged ones, protobuf
parses; every message writers make, it accepts (else the walker would be no faster).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from google.protobuf.message import DecodeError, Message

from tbnb.format.proto import event_pb2, summary_pb2, tensor_pb2
from tbnb.reader.events import wire_check
from tbnb.reader.events.values_bulk import walk_values
from tbnb.reader.events.wire_check import (
    AUDIO,
    HISTOGRAM,
    IMAGE,
    MAX_FIELDS,
    METADATA,
    TENSOR,
    message_shape,
    messages_ok,
)
from tbnb.reader.logdir.logdir import Logdir
from tbnb.reader.records.frame_bulk import frame_bulk
from tbnb.testing import EventWriter

from .conftest import WRITERS, make_writer

PAD = b"\x00" * 16  # after the messages: no varint of theirs is read near the buffer's end


def _written(rng: np.random.Generator) -> list[tuple[int, Message]]:
    """Messages of every payload kind and metadata as writers fill them, with random contents."""
    out: list[tuple[int, Message]] = []
    for _ in range(20):
        out.append((IMAGE, summary_pb2.Summary.Image(height=int(rng.integers(1, 5000)), width=int(rng.integers(1, 5000)),
                                                     colorspace=int(rng.integers(1, 5)),
                                                     encoded_image_string=rng.bytes(int(rng.integers(0, 3000))))))
        n = int(rng.integers(0, 200))
        out.append((HISTOGRAM, summary_pb2.HistogramProto(min=rng.normal(), max=rng.normal(), num=float(n),
                                                          sum=rng.normal(), sum_squares=rng.random(),
                                                          bucket_limit=rng.normal(size=n).tolist(),
                                                          bucket=rng.random(n).tolist())))
        out.append((AUDIO, summary_pb2.Summary.Audio(sample_rate=44100.0, num_channels=int(rng.integers(1, 3)),
                                                     length_frames=int(rng.integers(0, 1 << 20)),
                                                     encoded_audio_string=rng.bytes(int(rng.integers(0, 2000))),
                                                     content_type="audio/wav")))
        dims = [tensor_pb2.TensorShapeProto.Dim(size=int(d)) for d in rng.integers(0, 300, int(rng.integers(0, 4)))]
        shape = tensor_pb2.TensorShapeProto(dim=dims)
        out.append((TENSOR, tensor_pb2.TensorProto(dtype=1, tensor_shape=shape, tensor_content=rng.bytes(64))))
        out.append((TENSOR, tensor_pb2.TensorProto(dtype=7, tensor_shape=shape,
                                                   string_val=[rng.bytes(int(k)) for k in rng.integers(0, 900, 3)])))
        out.append((TENSOR, tensor_pb2.TensorProto(dtype=2, float_val=rng.random(int(rng.integers(1, 30))).tolist(),
                                                   double_val=rng.random(3).tolist())))
        out.append((METADATA, summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="images", content=rng.bytes(12)),
            display_name="a name", summary_description="what it is", data_class=3)))
    return out


def _judge(messages: list[tuple[int, bytes]]) -> np.ndarray:
    """``messages_ok`` of each (kind, bytes), all in one buffer."""
    buf = b"".join(body for _, body in messages) + PAD
    lengths = np.array([len(body) for _, body in messages], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    kinds = np.array([kind for kind, _ in messages], dtype=np.int64)
    return messages_ok(np.frombuffer(buf, dtype=np.uint8), starts, starts + lengths, kinds)


_CLASSES = {IMAGE: summary_pb2.Summary.Image, HISTOGRAM: summary_pb2.HistogramProto, AUDIO: summary_pb2.Summary.Audio,
            TENSOR: tensor_pb2.TensorProto, METADATA: summary_pb2.SummaryMetadata}


def _parses(kind: int, body: bytes) -> bool:
    try:
        _CLASSES[kind].FromString(body)
    except DecodeError:
        return False
    return True


def test_every_message_writers_make_is_accepted() -> None:
    written = [(kind, message.SerializeToString()) for kind, message in _written(np.random.default_rng(0))]
    assert _judge(written).all()


@pytest.mark.parametrize("seed", range(3))
def test_what_it_accepts_of_damaged_messages_protobuf_parses(seed: int) -> None:
    """Bytes flipped, cut, inserted or set to a key, thousands of times over: whatever is
    accepted parses, and the damage leaves both outcomes (the comparison is not vacuous)."""
    rng = np.random.default_rng(seed)
    written = [(kind, message.SerializeToString()) for kind, message in _written(rng)]
    damaged: list[tuple[int, bytes]] = []
    for _ in range(30):
        for kind, body in written:
            b = bytearray(body)
            what = int(rng.integers(0, 4))
            at = int(rng.integers(0, max(1, len(b))))
            if what == 0 and b:
                b[at] ^= 1 << int(rng.integers(0, 8))
            elif what == 1:
                del b[at:]
            elif what == 2:
                b[at:at] = rng.bytes(int(rng.integers(1, 4)))
            elif b:
                b[at] = int(rng.choice([0x00, 0x03, 0x04, 0x06, 0x07, 0x0B, 0x0F, 0x80, 0xFF, 0x12, 0x1A]))
            damaged.append((kind, bytes(b)))
    judged = _judge(damaged)
    parses = np.array([_parses(kind, body) for kind, body in damaged])
    accepted_broken = [(kind, body.hex()) for (kind, body), ok, p in zip(damaged, judged, parses) if ok and not p]
    assert accepted_broken == []
    assert 0 < judged.sum() < len(damaged)
    assert (~parses).sum() > 100  # plenty of broken ones among them
    # a template's one-message walk judges each as the bulk walk does
    shaped = [message_shape(body + PAD, 0, len(body), kind) is not None for kind, body in damaged]
    assert shaped == judged.tolist()


def test_the_unusual_is_handed_over() -> None:
    """Encodings protobuf may or may not take, judged by protobuf itself (False here)."""
    cases = [
        (IMAGE, b"\x00\x01"),  # field number 0
        (IMAGE, b"\x0b\x0c"),  # a group (wire types 3, 4)
        (IMAGE, b"\x08" + b"\xff" * 9 + b"\x01"),  # a 10-byte varint
        (IMAGE, b"\x0a\x01x"),  # field 1 (height) as bytes: another wire type than its own
        (AUDIO, b"\x2a\x02\xc3\xa9"),  # content_type "é": not ASCII
        (TENSOR, b"\x3a\x02\x01\x02"),  # int_val packed: varints inside, not judged here
        (TENSOR, b"\x72\x00"),  # a resource handle
        (HISTOGRAM, b"\x32\x04" + b"\x00" * 4),  # bucket_limit of half a double
        (IMAGE, b"\x80\x80\x80\x80\x10\x01"),  # field number 2**29: beyond protobuf's
        (IMAGE, b"\x08\x01" * (MAX_FIELDS + 1)),  # more fields than judged here
    ]
    assert _judge(cases).tolist() == [False] * len(cases)
    assert _judge([(IMAGE, b"\x08\x01" * MAX_FIELDS)]).tolist() == [True]
    assert _judge([(IMAGE, b"\xf8\xff\xff\xff\x0f\x01")]).tolist() == [True]  # the largest field number


def test_nesting_is_bounded() -> None:
    """A metadata whose plugin data is a message is two deep; a tensor's dims three; past
    ``MAX_DEPTH`` a row is handed over, however deep the bytes nest."""
    dim = b"\x08\x05"
    shape = b"\x12" + bytes([len(dim)]) + dim
    tensor = b"\x12" + bytes([len(shape)]) + shape
    assert _judge([(TENSOR, tensor)]).tolist() == [True]
    assert wire_check.MAX_DEPTH >= 3


def test_a_broken_payload_among_many_records_reads_as_the_general_path_reads_it(tmp_path: Path) -> None:
    """One image record of a file of many (the bulk path walks them: more than
    ``BULK_MIN_RECORDS`` that are not scalars) has a payload whose length runs short and leaves
    a group open: both paths report it and keep the others."""
    writer = EventWriter(tmp_path / "run")
    png = b"\x89PNG\r\n\x1a\n" + bytes(40)
    for step in range(100):
        writer.add_scalar("loss", 1.0 / (step + 1), step)  # (images of every step: samples_per_plugin)
        if True:
            image = summary_pb2.Summary.Image(height=4, width=4, colorspace=3, encoded_image_string=png)
            if step == 50:  # broken: field 4 declares 20 bytes of the 48, the rest start a group
                body = image.SerializeToString()
                cut = body.index(b"\x22") + 1
                image_bytes = body[:cut] + bytes([20]) + png[:20] + b"\x0b" + png[21:]
                value = b"\x0a\x03img" + b"\x22" + bytes([len(image_bytes)]) + image_bytes
                summary = b"\x0a" + bytes([len(value)]) + value
                event = event_pb2.Event(wall_time=1.0, step=step).SerializeToString() + b"\x2a" + bytes([len(summary)]) + summary
                writer.add_record_bytes(event)
            else:
                writer.add_event(event_pb2.Event(wall_time=1.0, step=step, summary=summary_pb2.Summary(
                    value=[summary_pb2.Summary.Value(tag="img", image=image)])))
    writer.close()
    read = {}
    for bulk in (True, False):
        lg = Logdir(tmp_path, bulk=bulk, processes=0, samples_per_plugin={"images": 0})
        lg.reload()
        read[bulk] = (lg.tensors("run", "img").step.tolist(), [(p.offset, p.reason) for p in lg.problems])
    assert read[True] == read[False]
    steps, problems = read[True]
    assert steps == [s for s in range(100) if s != 50]
    assert len(problems) == 1


@pytest.mark.parametrize("kind", WRITERS)
def test_real_writers_records_keep_the_fast_path(tmp_path: Path, kind: str) -> None:
    """Histograms, images, audio and text as torch's and tensorboardX's writers log them: the
    walker keeps every one of their value records (none handed to protobuf by the check)."""
    writer = make_writer(kind, tmp_path)
    rng = np.random.default_rng(1)
    for step in range(30):
        writer.add_histogram("h", rng.normal(size=500), step)
        writer.add_image("img", rng.random((3, 8, 8)), step)
        clip = rng.random(400) * 2 - 1
        writer.add_audio("snd", clip[None] if kind == "torch" else clip, step, sample_rate=8000)  # (their shapes)
        writer.add_text("t", f"step **{step}**", step)
    writer.close()
    (path,) = tmp_path.glob("*tfevents*")
    buf = path.read_bytes()
    framed = frame_bulk(memoryview(buf))
    values = walk_values(buf, framed.starts, framed.lengths)
    assert len(values.rows) == 4 * 30
    assert sorted(values.tags) == ["h", "img", "snd", "t/text_summary"]
