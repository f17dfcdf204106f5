"""Bulk framing: the same records and problems as ``records.frame``, without a Python loop per record.

Record boundaries form a chain (each record says where the next begins), so they cannot be
found independently. Instead they are *proposed* in bulk and then *verified* in bulk:

1. propose record heads: where the log repeats a pattern of record lengths, compute them
   (``frame_periodic``); elsewhere, every position whose would-be data starts with ``0x09`` (an
   Event's ``wall_time`` key, how TensorFlow, torch and tensorboardX all begin an event), whose
   length is below 64 KiB and whose stored length CRC matches (a table lookup by length);
2. keep the maximal runs where each proposal ends exactly where the next begins, starting from
   the current position: those are verified chains;
3. bridge every gap (another writer's layout, a big record, damage) with the sequential framer,
   which resynchronises exactly as it would on its own;
4. check every record's data CRC, grouped by length, with ``crc.crc_rows``.

The result is identical to ``records.frame`` on the same bytes (a differential test checks it).
"""

from __future__ import annotations

import struct

import crc32c as _crc32c
import numpy as np

from tbnb.format.byte_columns import gather_rows
from tbnb.format.crc import MAX_WIDTH, crc_rows, mask, mask_array

from ..files.problems import Problem
from . import frame_periodic, grouping
from .grouping import group_by_length
from .records import MAX_RECORD_LENGTH, Framed, follow_lengths, frame

#: Below this many bytes the sequential framer is faster: the bulk path's fixed cost (some forty
#: numpy calls) outweighs a step per record up to about 16 KiB of scalar records, and only
#: clearly pays from 32 KiB. (Many small files are framed in bulk together: ``batch_reload``.)
MIN_BULK_BYTES = 1 << 15
#: Records whose lengths the sample reads (following the chain of lengths, no checks: the
#: sample only chooses between two framings that give the same result).
SAMPLE_RECORDS = 16
#: Bytes at most that a caller need read for the sample (a few large records).
SAMPLE_SPAN = 1 << 15
#: Records this long (the sample's median: one large graph or image at the start of a scalar
#: log does not count) are framed by following the chain of lengths: scanning every byte for
#: proposals would cost more than one loop step per record.
SEQUENTIAL_MEDIAN_LENGTH = 512
_WALL_TIME_KEY = 0x09
_U64 = struct.Struct("<Q")


def _length_crc_table() -> np.ndarray:
    """Masked CRC of the 8-byte little-endian length, for every length below 65,536."""
    lengths = np.arange(1 << 16, dtype="<u8")
    rows = lengths.view(np.uint8).reshape(-1, 8)
    return mask_array(crc_rows(rows, 8))


_LENGTH_CRC = _length_crc_table()


def _propose(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Header positions and lengths of plausible, complete records (see the module doc)."""
    n = len(a)
    heads = np.flatnonzero(a[12 : n - 4] == _WALL_TIME_KEY)
    words = gather_rows(a, heads, 16).view("<u4")  # length lo, length hi, length CRC, data
    lengths = words[:, 0].astype(np.int64)
    ok = (words[:, 1] == 0) & (lengths < 1 << 16)
    ok[ok] = words[ok, 2] == _LENGTH_CRC[lengths[ok]]
    ok &= heads + 16 + lengths <= n
    return heads[ok], lengths[ok]


def _proposals(a: np.ndarray, view: memoryview) -> tuple[np.ndarray, np.ndarray]:
    """Proposals for the whole buffer: computed where the log repeats a pattern of lengths
    (``frame_periodic``), searched for (``_propose``) from where it stops."""
    heads, lengths, end = frame_periodic.periodic_chain(a, view, _LENGTH_CRC)
    if end < frame_periodic.SHORT_ATTEMPT_BYTES:  # little of it: joining the two would cost more than it saved
        return _propose(a)
    if end + 16 > len(a):
        return heads, lengths
    rest_heads, rest_lengths = _propose(a[end:])
    return np.concatenate((heads, rest_heads + end)), np.concatenate((lengths, rest_lengths))


def _check_data(a: np.ndarray, buf: memoryview, starts: np.ndarray, lengths: np.ndarray,
                rows_out: dict[int, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Whether each record's data CRC is right (exact, per record).

    The rows gathered for groups checked in bulk go to ``rows_out`` (good records only).
    """
    good = np.zeros(len(starts), dtype=bool)
    crc = _crc32c.crc32c
    for length, group in group_by_length(lengths):
        s = starts[group]
        pad = length & 1
        width = length + pad
        if width <= MAX_WIDTH and len(group) >= grouping.MIN_CRC_GROUP and length > 0:
            rows = gather_rows(a, s - pad, width + 4)  # the record and its stored CRC
            if pad:
                rows[:, 0] = 0
            stored = rows[:, width:].view("<u4")[:, 0]  # (a strided view: copying [m, 4] goes row by row)
            ok = mask_array(crc_rows(rows, length, width)) == stored
            good[group] = ok
            rows_out[length] = (s, rows[:, pad:width]) if ok.all() else (s[ok], rows[ok, pad:width])
        else:
            stored = gather_rows(a, s + length, 4).view("<u4").reshape(-1)
            raw = np.fromiter((crc(buf[i : i + length]) for i in s.tolist()), np.uint32, len(s))
            good[group] = mask_array(raw) == stored
    return good


def a_of(view: memoryview) -> np.ndarray:
    return np.frombuffer(view, dtype=np.uint8)


def _frame_chain(view: memoryview, a: np.ndarray) -> Framed | None:
    """Follow the length chain, one Python step per record that also takes the record's data
    CRC (one crc32c call: the step is paid anyway, a second pass would cost another), then check
    every header's CRC in bulk and compare the data CRCs.

    Returns None when anything is off (a bad CRC, an impossible length): the caller then frames
    sequentially, which reports and resynchronises exactly.
    """
    n = len(view)
    heads: list[int] = []
    crcs: list[int] = []
    add_head, add_crc = heads.append, crcs.append
    unpack = _U64.unpack_from
    crc = _crc32c.crc32c
    pos = 0
    while pos + 12 <= n:
        (length,) = unpack(view, pos)
        end = pos + 16 + length
        if end > n:
            break
        add_head(pos)
        add_crc(crc(view[pos + 12 : end - 4]))
        pos = end
    tail_header = pos + 12 <= n  # an incomplete record whose header is there: it must be sound
    if tail_header:
        heads.append(pos)
    starts = np.asarray(heads, dtype=np.int64)
    if not len(starts):
        return Framed(starts, starts.copy(), pos, [])
    words = gather_rows(a, starts, 12).view("<u4")  # length lo, length hi, length CRC
    lengths = words[:, 0].astype(np.int64) | (words[:, 1].astype(np.int64) << 32)
    small = (lengths >= 0) & (lengths < 1 << 16)
    if not np.array_equal(words[small, 2], _LENGTH_CRC[lengths[small]]):
        return None
    if not small.all() and not _headers_ok(view, starts[~small], words[~small, 2]):
        return None
    if tail_header:
        starts, lengths = starts[:-1], lengths[:-1]
    data = starts + 12
    stored = gather_rows(a, data + lengths, 4).view("<u4").reshape(-1)
    if not np.array_equal(mask_array(np.asarray(crcs, dtype=np.uint32)), stored):
        return None
    return Framed(data, lengths, pos, [])


def _headers_ok(view: memoryview, heads: np.ndarray, stored: np.ndarray) -> bool:
    """Length CRCs of headers whose length is 64 KiB or more (one crc32c call each)."""
    crc = _crc32c.crc32c
    return all(mask(crc(view[h : h + 8])) == int(c) and _U64.unpack_from(view, h)[0] < MAX_RECORD_LENGTH
               for h, c in zip(heads.tolist(), stored.tolist()))


def _typical_length(view: memoryview) -> float:
    """Median length of the first SAMPLE_RECORDS records (fewer if the buffer ends first, or
    if a length cannot be real: damage is the framers' to report, not the sample's)."""
    _, lengths = follow_lengths(view, 0, SAMPLE_RECORDS)
    return float(np.median(lengths)) if lengths else 0.0


def large_records(view: memoryview) -> bool:
    """Whether the records at the start of ``view`` are large (images, histograms): they are
    framed by following the chain, one step per record."""
    return _typical_length(view) >= SEQUENTIAL_MEDIAN_LENGTH


def frame_bulk(buf: bytes | memoryview, path: str = "", base: int = 0) -> Framed:
    """``records.frame`` in bulk: proposal and verification, sequential bridging."""
    view = memoryview(buf)
    n = len(view)
    if n < max(MIN_BULK_BYTES, 32):
        return frame(view, path, base)
    if large_records(view):
        # Few, large records: follow the chain of lengths one step per record, check in bulk.
        chained = _frame_chain(view, a_of(view))
        return chained if chained is not None else frame(view, path, base)
    a = np.frombuffer(view, dtype=np.uint8)
    heads, lengths = _proposals(a, view)
    ends = heads + 16 + lengths
    breaks = np.flatnonzero(ends[:-1] != heads[1:])
    runs: list[tuple[int, int]] = []
    pieces: list[Framed] = []
    pos = 0
    while pos + 12 <= n:
        j = int(np.searchsorted(heads, pos))
        if j < len(heads) and heads[j] == pos:
            b = int(np.searchsorted(breaks, j))
            last = int(breaks[b]) if b < len(breaks) else len(heads) - 1
            runs.append((j, last + 1))
            pos = int(ends[last])
            continue
        nxt = int(heads[j]) if j < len(heads) else n
        piece = frame(view, path, base, start=pos, until=nxt)
        pieces.append(piece)
        if piece.consumed == pos:
            break  # an incomplete record: wait for the writer
        pos = piece.consumed
    index = np.concatenate([np.arange(i, k) for i, k in runs]) if runs else np.empty(0, dtype=np.int64)
    rows_by_length: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    starts, lens = heads[index] + 12, lengths[index]
    problems = [p for piece in pieces for p in piece.problems]
    if len(starts):
        good = _check_data(a, view, starts, lens, rows_by_length)
        problems += [Problem(path, base + int(s) - 12, "data CRC mismatch; record skipped")
                     for s in starts[~good].tolist()]
        starts, lens = starts[good], lens[good]
    if pieces:
        starts = np.concatenate([starts] + [p.starts for p in pieces])
        lens = np.concatenate([lens] + [p.lengths for p in pieces])
        order = np.argsort(starts, kind="stable")
        starts, lens = starts[order], lens[order]
    problems.sort(key=lambda p: p.offset)
    return Framed(starts.astype(np.int64), lens.astype(np.int64), pos, problems, rows_by_length)

