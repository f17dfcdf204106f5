"""An independent reference for what a reader must find in a (possibly damaged) event file.

It shares no code with ``tbnb.reader`` beyond the generated protobuf classes. Its rule is
deliberately simple and conservative, so that it only ever claims points that are really there:

* Framing: walk the file from offset 0. A record whose length CRC fails, or that runs past the
  end of the file, ends the walk (what follows may still be read by a smarter reader, but is not
  claimed). A record whose length CRC holds but whose data CRC fails is skipped, and the walk
  goes on after it (the reader documents that policy).
* A file whose walk ended before its last byte may hold, past the damage, anything a resyncing
  reader finds: values of any tag, even the first value that fixes a tag's plugin. So no point is
  claimed from the files of a run after such a file (their tensors still count for the sizes
  they declare).
* An intact record counts only if protobuf parses it as an ``Event``.
* Scalar points: a tag (of one run, files in name order) counts only when every intact value of
  that tag is scalar-like: ``simple_value`` or a rank-0 one-element ``DT_FLOAT``/``DT_DOUBLE``
  tensor, with any metadata naming the "scalars" plugin, and, when the tag's first value is a
  tensor, that first value carries such metadata (TF2 writers put it on the first value only,
  and without it no reader can know the tensor is a scalar). Every value of a counted tag is a
  point (step, wall time, value) that must be read with ``purge_orphaned_data=False`` (nothing
  is legitimately dropped). With purging on, a tag is still checked when no purge can happen:
  every file of the run was walked to its end, the run has no ``SessionLog.START`` and the tag's
  steps strictly increase in file order.

It also reports facts the classifier uses to tell known failure classes apart (mixed TF1/TF2
forms of a tag, tensors that declare more elements than they hold).
"""

from __future__ import annotations

import struct
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import crc32c
from google.protobuf.message import DecodeError

from tbnb.format.proto import event_pb2, types_pb2

_U32 = 0xFFFFFFFF
_FLOAT_KINDS = {types_pb2.DT_FLOAT: ("float_val", 4), types_pb2.DT_DOUBLE: ("double_val", 8)}
#: Bytes per element when a tensor's declared size is compared with what it holds.
_ITEMSIZE = {types_pb2.DT_FLOAT: 4, types_pb2.DT_DOUBLE: 8, types_pb2.DT_INT32: 4, types_pb2.DT_INT64: 8,
             types_pb2.DT_UINT8: 1, types_pb2.DT_INT8: 1, types_pb2.DT_INT16: 2, types_pb2.DT_HALF: 2,
             types_pb2.DT_BOOL: 1, types_pb2.DT_STRING: 8}


def masked_crc(data: bytes) -> int:
    crc = crc32c.crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & _U32) + 0xA282EAD8) & _U32


def intact_records(data: bytes) -> tuple[list[bytes], bool]:
    """(payloads of the records that the framing rule above calls intact, in file order,
    whether the walk reached the end of the file)."""
    out, pos, n = [], 0, len(data)
    while pos + 12 <= n:
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if masked_crc(header) != hcrc or pos + 16 + length > n:
            break
        payload = data[pos + 12:pos + 12 + length]
        (dcrc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if masked_crc(payload) == dcrc:
            out.append(payload)
        pos += 16 + length
    return out, pos == n


def parse_events(data: bytes) -> tuple[list[event_pb2.Event], bool]:
    events = []
    payloads, complete = intact_records(data)
    for payload in payloads:
        try:
            events.append(event_pb2.Event.FromString(payload))
        except (DecodeError, RuntimeError, ValueError):
            continue
    return events, complete


def _scalar_like(value) -> tuple[bool, float | None]:
    """(is scalar-like, value) for one Summary.Value, per the rule in the module docstring."""
    kind = value.WhichOneof("value")
    has_md = value.HasField("metadata")
    plugin = value.metadata.plugin_data.plugin_name if has_md else ""
    if has_md and plugin not in ("", "scalars"):
        return False, None
    if has_md and plugin == "" and kind != "simple_value":
        return False, None
    if kind == "simple_value":
        return True, float(value.simple_value)
    if kind != "tensor":
        return False, None
    t = value.tensor
    if t.dtype not in _FLOAT_KINDS or len(t.tensor_shape.dim) or t.tensor_shape.unknown_rank:
        return False, None
    field_name, size = _FLOAT_KINDS[t.dtype]
    vals = list(getattr(t, field_name))
    if t.tensor_content:
        if vals or len(t.tensor_content) != size:
            return False, None
        fmt = "<f" if size == 4 else "<d"
        return True, float(struct.unpack(fmt, t.tensor_content)[0])
    others = [f for f, _ in t.ListFields() if f.name not in ("dtype", "tensor_shape", field_name)]
    if len(vals) != 1 or others:
        return False, None
    return True, float(vals[0])


#: The one key every NaN gets (the bits of the quiet NaN): the checks compare NaNs as equal,
#: whatever their payload, and every other float by its exact bits (so ``-0.0 != 0.0``).
NAN_BITS = 0x7FF8000000000000
_DOUBLE = struct.Struct("<d")
_INT64 = struct.Struct("<q")


def float_bits(x: float) -> int:
    x = float(x)
    return NAN_BITS if x != x else _INT64.unpack(_DOUBLE.pack(x))[0]


def point_key(step: int, wall: float, value: float) -> tuple[int, int, int]:
    """A hashable, NaN-aware key of one scalar point (floats by their exact bits)."""
    return (int(step), float_bits(wall), float_bits(value))


@dataclass
class Expected:
    """What the oracle claims about one run."""

    #: {tag: Counter of point keys} that must all be read.
    points: dict[str, Counter] = field(default_factory=dict)
    #: Tags written in both TF1 (simple_value) and TF2 (tensor) form.
    mixed_tags: set[str] = field(default_factory=set)
    #: Largest element count * item size that an intact tensor declares beyond what it holds.
    declared_excess: int = 0
    #: Tags of intact values whose tensor declares a shape that its values cannot fill.
    bad_shape_tags: set[str] = field(default_factory=set)
    #: Tags whose points must all be read even with purging on (see the module docstring).
    purge_safe: set[str] = field(default_factory=set)


def declared(t) -> tuple[int, int]:
    """(declared bytes, bytes held) of a TensorProto."""
    n = 1
    for d in t.tensor_shape.dim:
        n *= max(d.size, 0)
    item = _ITEMSIZE.get(t.dtype, 16)
    held = len(t.tensor_content)
    for f, v in t.ListFields():
        if f.name.endswith("_val"):
            held += len(v) * item
    return n * item, held


#: Facts of one parsed record, per value: (tag, kind, scalar-like, value, first carries scalars
#: metadata, declares more than it holds, declares a bad shape).
_ValueFacts = tuple[str, str, bool, "float | None", bool, int, bool]
#: (is a SessionLog.START, step, wall time, value facts) of one record, None when not an Event.
_RecordFacts = "tuple[bool, int, float, tuple[_ValueFacts, ...]] | None"
#: Facts by payload bytes: mutated files keep most of their seed's records, so most records of
#: an input were parsed before. Only a pure function of the bytes is kept, so the cache changes
#: no answer; it is emptied when it grows past ``_CACHE_MAX`` entries.
_FACTS: dict[bytes, _RecordFacts] = {}
_CACHE_MAX = 200_000


def record_facts(payload: bytes) -> _RecordFacts:
    """What the rule needs from one intact record (computed once per distinct payload)."""
    got = _FACTS.get(payload, _FACTS)
    if got is not _FACTS:
        return got  # type: ignore[return-value]
    try:
        ev = event_pb2.Event.FromString(payload)
    except (DecodeError, RuntimeError, ValueError):
        facts = None
    else:
        vals = []
        if ev.HasField("summary"):
            for v in ev.summary.value:
                tag = v.tag or v.node_name
                kind = v.WhichOneof("value")
                excess, bad = 0, False
                if kind == "tensor":
                    want, held = declared(v.tensor)
                    if want > max(held, 8):
                        excess, bad = want - held, True
                    elif any(d.size < 0 for d in v.tensor.tensor_shape.dim) or want != held:
                        bad = True
                ok, x = _scalar_like(v)
                first_md = v.HasField("metadata") and v.metadata.plugin_data.plugin_name == "scalars"
                vals.append((tag, kind or "", ok, x, first_md, excess, bad))
        facts = (ev.session_log.status == event_pb2.SessionLog.START, ev.step, ev.wall_time, tuple(vals))
    if len(_FACTS) >= _CACHE_MAX:
        _FACTS.clear()
    _FACTS[payload] = facts
    return facts


def expect_run(files: list[bytes]) -> Expected:
    """Apply the rule to one run's files (already in the reader's order: by name)."""
    exp = Expected()
    values: dict[str, list[tuple[bool, float | None, int, float, str]]] = defaultdict(list)
    claiming = True
    restarts = False
    for data in files:
        payloads, complete = intact_records(data)
        for payload in payloads:
            facts = record_facts(payload)
            if facts is None:
                continue
            start, step, wall, vals = facts
            restarts |= start
            for tag, kind, ok, x, first_md, excess, bad in vals:
                if excess:
                    exp.declared_excess = max(exp.declared_excess, excess)
                if bad:
                    exp.bad_shape_tags.add(tag)
                if not tag or not claiming:
                    continue
                values[tag].append((ok, x, step, wall, kind, first_md))
        claiming = claiming and complete
    for tag, vals in values.items():
        kinds = {k for _, _, _, _, k, _ in vals}
        if {"simple_value", "tensor"} <= kinds:
            exp.mixed_tags.add(tag)
        if not all(ok for ok, *_ in vals):
            continue
        if vals[0][4] == "tensor" and not vals[0][5]:
            continue
        exp.points[tag] = Counter(point_key(s, w, x) for _, x, s, w, _, _ in vals)
        steps = [s for _, _, s, _, _, _ in vals]
        if claiming and not restarts and all(a < b for a, b in zip(steps, steps[1:])):
            exp.purge_safe.add(tag)
    return exp


def resync_events(data: bytes) -> list[event_pb2.Event]:
    """Every Event a resynchronising reader could find: after a bad header, try each next byte.

    Slow (one CRC per byte of damage), so only used to label a failure, never to claim points.
    """
    events, pos, n = [], 0, len(data)
    while pos + 16 <= n:
        (length,) = struct.unpack_from("<Q", data, pos)
        ok = masked_crc(data[pos:pos + 8]) == struct.unpack_from("<I", data, pos + 8)[0] and pos + 16 + length <= n
        if not ok:
            pos += 1
            continue
        payload = data[pos + 12:pos + 12 + length]
        if masked_crc(payload) == struct.unpack_from("<I", data, pos + 12 + length)[0]:
            try:
                events.append(event_pb2.Event.FromString(payload))
            except (DecodeError, RuntimeError, ValueError):
                pass
        pos += 16 + length
    return events


def mixed_form_tags(files: list[bytes]) -> set[str]:
    """Tags that appear both as ``simple_value`` and as a tensor anywhere a reader could look."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for data in files:
        for ev in resync_events(data):
            for v in ev.summary.value:
                kinds[v.tag or v.node_name].add(v.WhichOneof("value") or "")
    return {tag for tag, k in kinds.items() if {"simple_value", "tensor"} <= k}
