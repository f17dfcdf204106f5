"""The mutation engine: damaged and unusual event files made from real seed files.

Two levels of mutation, stacked at random:

* record level: the file is split into its records, one record's Event is changed (negative
  step, NaN/inf, damaged tensor shape, mixed TF1/TF2 forms, garbage graphs, changed field tags,
  huge varints, truncated nested fields) or records are duplicated, reordered, dropped or spliced
  in from another seed; the records are then framed again with valid CRCs, so that the damage
  reaches the decoder instead of being stopped by the framing;
* byte level (``damage``): bit flips, truncation, record length fields set to 0 / 2^31 / 2^63
  (with the length CRC fixed or not), CRC damage, inserted byte runs.

Every mutation is a pure function of the input bytes and a ``random.Random``, so an input is
reproduced from its seed name and integer seed alone (and is saved anyway when it fails).
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from tbnb.format.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2

from .damage import BYTE_MUTATIONS, Records, frame, split
from .oracle import declared

# -- record level -------------------------------------------------------------------------------

def _event(payload: bytes) -> event_pb2.Event | None:
    try:
        return event_pb2.Event.FromString(payload)
    except (DecodeError, RuntimeError, ValueError):
        return None


def _pick_value(recs: Records, rng: random.Random, want: Callable[[summary_pb2.Summary.Value], bool]
                ) -> tuple[int, event_pb2.Event, summary_pb2.Summary.Value] | None:
    cands = []
    for i, p in enumerate(recs):
        ev = _event(p)
        if ev is not None and ev.HasField("summary"):
            cands.extend((i, j) for j, v in enumerate(ev.summary.value) if want(v))
    if not cands:
        return None
    i, j = rng.choice(cands)
    ev = _event(recs[i])
    return i, ev, ev.summary.value[j]


def _special(rng: random.Random) -> float:
    return rng.choice([float("nan"), float("inf"), float("-inf"), -0.0, 3.4e38, 5e-324])


def m_duplicate(recs: Records, rng: random.Random, other: Records) -> Records:
    if recs:
        recs.insert(rng.randrange(len(recs) + 1), rng.choice(recs))
    return recs


def m_reorder(recs: Records, rng: random.Random, other: Records) -> Records:
    if len(recs) > 1:
        i, j = rng.randrange(len(recs)), rng.randrange(len(recs))
        recs[i], recs[j] = recs[j], recs[i]
    return recs


def m_drop(recs: Records, rng: random.Random, other: Records) -> Records:
    if recs:
        del recs[rng.randrange(len(recs))]
    return recs


def m_splice(recs: Records, rng: random.Random, other: Records) -> Records:
    """Records of another seed in the middle: another writer resuming the run."""
    if other:
        a = rng.randrange(len(other))
        recs[rng.randrange(len(recs) + 1):0] = other[a:a + rng.randint(1, 20)]
    return recs


def m_negative_step(recs: Records, rng: random.Random, other: Records) -> Records:
    if recs:
        i = rng.randrange(len(recs))
        ev = _event(recs[i])
        if ev is not None:
            ev.step = rng.choice([-1, -(2**63), -rng.randrange(1, 1000), 2**63 - 1])
            recs[i] = ev.SerializeToString()
    return recs


def m_nan_inf(recs: Records, rng: random.Random, other: Records) -> Records:
    hit = _pick_value(recs, rng, lambda v: v.WhichOneof("value") in ("simple_value", "tensor"))
    if hit is None:
        return recs
    i, ev, v = hit
    if rng.random() < 0.2:
        ev.wall_time = _special(rng)
    elif v.WhichOneof("value") == "simple_value":
        v.simple_value = _special(rng)
    elif v.tensor.float_val:
        v.tensor.float_val[rng.randrange(len(v.tensor.float_val))] = _special(rng)
    elif v.tensor.double_val:
        v.tensor.double_val[rng.randrange(len(v.tensor.double_val))] = _special(rng)
    elif v.tensor.dtype == types_pb2.DT_DOUBLE and len(v.tensor.tensor_content) >= 8:
        c = bytearray(v.tensor.tensor_content)
        k = 8 * rng.randrange(len(c) // 8)
        c[k:k + 8] = struct.pack("<d", _special(rng))
        v.tensor.tensor_content = bytes(c)
    recs[i] = ev.SerializeToString()
    return recs


#: Shapes that do not match what a tensor holds: the broadcast bombs of issue 16 among them.
_BAD_SHAPES = [[2**28], [2**31], [2**40, 2**40], [-1], [3], [0], [1, 1, 1, 1, 1, 1, 1, 1], [2**62, 4], [7, -3]]


def m_shape(recs: Records, rng: random.Random, other: Records) -> Records:
    hit = _pick_value(recs, rng, lambda v: v.WhichOneof("value") == "tensor")
    if hit is None:
        return recs
    i, ev, v = hit
    t = v.tensor
    if rng.random() < 0.3 and t.dtype in (types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE):
        t.ClearField("tensor_content")
        t.ClearField("float_val")
        t.ClearField("double_val")
        (t.float_val if t.dtype == types_pb2.DT_FLOAT else t.double_val).extend([1.0] * rng.choice([1, 2]))
    t.tensor_shape.ClearField("dim")
    for d in rng.choice(_BAD_SHAPES):
        t.tensor_shape.dim.add(size=d)
    recs[i] = ev.SerializeToString()
    return recs


def m_dtype(recs: Records, rng: random.Random, other: Records) -> Records:
    hit = _pick_value(recs, rng, lambda v: v.WhichOneof("value") == "tensor")
    if hit is not None:
        i, ev, v = hit
        v.tensor.dtype = rng.choice([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 14, 17, 18, 19, 20, 21, 23, 101, 999])
        recs[i] = ev.SerializeToString()
    return recs


def m_mix_forms(recs: Records, rng: random.Random, other: Records) -> Records:
    """A TF1 scalar turned into a TF2 tensor (with or without metadata) or the other way round."""
    hit = _pick_value(recs, rng, lambda v: v.WhichOneof("value") in ("simple_value", "tensor"))
    if hit is None:
        return recs
    i, ev, v = hit
    if v.WhichOneof("value") == "simple_value":
        x = v.simple_value
        v.tensor.CopyFrom(tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[x]))
        if rng.random() < 0.5:
            v.metadata.plugin_data.plugin_name = "scalars"
    elif v.tensor.float_val[:1]:
        x = v.tensor.float_val[0]
        v.ClearField("metadata")
        v.simple_value = x
    recs[i] = ev.SerializeToString()
    return recs


def m_mix_tail(recs: Records, rng: random.Random, other: Records) -> Records:
    """Every value of one scalar tag from some record on switches form (a run resumed by another
    writer, or torch's ``new_style=True`` beside default calls)."""
    hit = _pick_value(recs, rng, lambda v: v.WhichOneof("value") in ("simple_value", "tensor"))
    if hit is None:
        return recs
    start, _, picked = hit
    every_tag = rng.random() < 0.5  # the whole writer switched, not one tag
    first: set[str] = set()
    for i in range(start, len(recs)):
        ev = _event(recs[i])
        if ev is None or not ev.HasField("summary"):
            continue
        for v in ev.summary.value:
            if v.tag != picked.tag and not every_tag:
                continue
            if v.WhichOneof("value") == "simple_value":
                x = v.simple_value
                v.tensor.CopyFrom(tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[x]))
                if v.tag not in first:
                    first.add(v.tag)
                    v.metadata.plugin_data.plugin_name = "scalars"
            elif v.WhichOneof("value") == "tensor" and len(v.tensor.float_val) == 1 and not v.tensor.tensor_shape.dim:
                x = v.tensor.float_val[0]
                v.ClearField("metadata")
                v.simple_value = x
        recs[i] = ev.SerializeToString()
    return recs


def m_shape_tag(recs: Records, rng: random.Random, other: Records) -> Records:
    """Every value of one tensor tag gets a shape its values cannot fill: the whole series is bad."""
    hit = _pick_value(recs, rng, lambda v: v.WhichOneof("value") == "tensor")
    if hit is None:
        return recs
    tag, dims = hit[2].tag, rng.choice([[2], [3], [-1], [0, 5]])
    for i, p in enumerate(recs):
        ev = _event(p)
        if ev is None or not ev.HasField("summary"):
            continue
        for v in ev.summary.value:
            if v.tag == tag and v.WhichOneof("value") == "tensor":
                v.tensor.tensor_shape.ClearField("dim")
                for d in dims:
                    v.tensor.tensor_shape.dim.add(size=d)
        recs[i] = ev.SerializeToString()
    return recs


def m_plugin(recs: Records, rng: random.Random, other: Records) -> Records:
    hit = _pick_value(recs, rng, lambda v: True)
    if hit is not None:
        i, ev, v = hit
        v.metadata.plugin_data.plugin_name = rng.choice(
            ["scalars", "images", "audio", "histograms", "text", "pr_curves", "hparams", "custom_scalars",
             "mesh", "graph_run_metadata", "", "\u202e\x00"])
        if rng.random() < 0.5:
            v.metadata.plugin_data.content = bytes(rng.getrandbits(8) for _ in range(rng.randrange(8)))
        recs[i] = ev.SerializeToString()
    return recs


def m_graph(recs: Records, rng: random.Random, other: Records) -> Records:
    garbage = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 40)))
    kind = rng.choice(["graph_def", "meta_graph_def", "tagged_run_metadata"])
    ev = event_pb2.Event(wall_time=1.0, step=rng.randrange(5))
    if kind == "tagged_run_metadata":
        ev.tagged_run_metadata.tag, ev.tagged_run_metadata.run_metadata = "t", garbage
    else:
        setattr(ev, kind, garbage)
    recs.insert(rng.randrange(len(recs) + 1), ev.SerializeToString())
    return recs


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 70) - 1
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def m_field_tag(recs: Records, rng: random.Random, other: Records) -> Records:
    """One byte of a payload replaced by a protobuf key (field 1..15, any wire type)."""
    if recs:
        i = rng.randrange(len(recs))
        p = bytearray(recs[i])
        if p:
            p[rng.randrange(len(p))] = (rng.randint(1, 15) << 3) | rng.randrange(8)
            recs[i] = bytes(p)
    return recs


def m_huge_varint(recs: Records, rng: random.Random, other: Records) -> Records:
    """A field with a 10-byte varint value, or a length-delimited field claiming a huge length."""
    if recs:
        i = rng.randrange(len(recs))
        p = recs[i]
        at = rng.randrange(len(p) + 1)
        fno = rng.randint(1, 12)
        if rng.random() < 0.5:
            ins = _varint(fno << 3) + b"\xff" * 9 + b"\x01"
        else:
            ins = _varint((fno << 3) | 2) + _varint(rng.choice([2**31, 2**63, 2**32 - 1, 10**6]))
        recs[i] = p[:at] + ins + p[at:]
    return recs


def m_cut_payload(recs: Records, rng: random.Random, other: Records) -> Records:
    """A record whose payload is cut short, framed with valid CRCs: a truncated nested field."""
    if recs:
        i = rng.randrange(len(recs))
        if len(recs[i]) > 1:
            recs[i] = recs[i][:rng.randrange(1, len(recs[i]))]
    return recs


RECORD_MUTATIONS: dict[str, Callable[[Records, random.Random, Records], Records]] = {
    "duplicate": m_duplicate, "reorder": m_reorder, "drop": m_drop, "splice": m_splice,
    "negative_step": m_negative_step, "nan_inf": m_nan_inf, "shape": m_shape, "dtype": m_dtype,
    "mix_forms": m_mix_forms, "mix_tail": m_mix_tail, "shape_tag": m_shape_tag, "plugin": m_plugin, "graph": m_graph, "field_tag": m_field_tag,
    "huge_varint": m_huge_varint, "cut_payload": m_cut_payload,
}


@dataclass
class Mutated:
    """One mutated file and the names of the mutations that made it."""

    data: bytes
    steps: list[str] = field(default_factory=list)
    #: Largest (declared - held) bytes of a tensor in the mutated records, wherever they end up
    #: (a damaged framing can hide a record from the oracle's walk but not from a resyncing reader).
    declared_excess: int = 0


#: Seeds split into records, and records framed, once: every input starts from a seed and keeps
#: most of its records. Pure functions of the bytes, so caching changes no input.
_SPLIT: dict[bytes, tuple[tuple[bytes, ...], bytes]] = {}
_FRAMED: dict[bytes, bytes] = {}
_CACHE_MAX = 100_000


def _split(data: bytes) -> tuple[Records, bytes]:
    got = _SPLIT.get(data)
    if got is None:
        if len(_SPLIT) >= 1000:
            _SPLIT.clear()
        recs, tail = split(data)
        got = _SPLIT[data] = (tuple(recs), tail)
    return list(got[0]), got[1]


def _frame(payload: bytes) -> bytes:
    got = _FRAMED.get(payload)
    if got is None:
        if len(_FRAMED) >= _CACHE_MAX:
            _FRAMED.clear()
        got = _FRAMED[payload] = frame(payload)
    return got


def mutate(seed: bytes, other: bytes, rng: random.Random, n: int | None = None) -> Mutated:
    """Apply ``n`` (default 1-3) random mutations to ``seed``; ``other`` feeds splices."""
    recs, tail = _split(seed)
    other_recs = _split(other)[0]
    steps: list[str] = []
    n = n if n is not None else rng.choice([1, 1, 2, 3])
    names = [rng.choice(list(RECORD_MUTATIONS) + list(BYTE_MUTATIONS)) for _ in range(n)]
    record_names = [x for x in names if x in RECORD_MUTATIONS]
    for name in record_names:
        recs = RECORD_MUTATIONS[name](recs, rng, other_recs)
        steps.append(name)
    excess = 0
    if {"shape", "shape_tag", "dtype", "splice", "huge_varint", "field_tag"} & set(record_names):
        excess = max((_excess(p) for p in recs), default=0)
    data = bytearray(b"".join(_frame(p) for p in recs) + tail)
    for name in names:
        if name in BYTE_MUTATIONS:
            data = BYTE_MUTATIONS[name](data, rng)
            steps.append(name)
    return Mutated(bytes(data), steps, excess)


def _excess(payload: bytes) -> int:
    ev = _event(payload)
    if ev is None or not ev.HasField("summary"):
        return 0
    out = 0
    for v in ev.summary.value:
        if v.WhichOneof("value") == "tensor":
            want, held = declared(v.tensor)
            out = max(out, want - held)
    return out
