"""Proposals for the bulk framer where a log repeats itself: no scan of every byte.

A scalar log written step by step repeats one pattern of record lengths: every step writes the
same tags, each Event the same size (a fixed-width ``wall_time`` and value, a step whose varint
grows a byte at 128 and 16,384 steps). Where the lengths repeat with period P records (B bytes),
the record heads are ``start + k*B + offset_j``: they can be *computed*, and then checked where
they are (a stored length and its CRC, gathered at once as words), instead of searching all the
buffer's bytes for plausible heads (``frame_bulk._propose``, a comparison and a gather over every
byte, most of the framer's time on such a log).

What this returns is a chain of headers each holding the length the pattern expects, that
length's right CRC and a complete record: the same checks ``_propose``'s proposals pass, so the
bulk framer accepts and verifies them (data CRCs included) exactly as before. It stops at the
first header that does not fit the pattern (a new step width, another kind of record, damage)
and tries a new pattern from there; where no pattern shows, the rest of the buffer goes back to
``_propose``. A wrong guess costs time, never a different result: the framer only follows
proposals from a position it has verified, and frames sequentially where none fits.
"""

from __future__ import annotations

import numpy as np

from tbnb.format.byte_columns import byte_extremes, gather_rows

from .records import follow_lengths

#: Records followed (lengths only) to find a pattern: a log of up to MAX_PERIOD tags a step
#: shows two whole steps in them, with room for a first step that differs.
SAMPLE_RECORDS = 96
#: The longest pattern looked for, in records (tags written each step).
MAX_PERIOD = 32
#: A pattern must explain at least this many of the sample's last records.
MIN_EXPLAINED = 32
#: Patterns tried per buffer: each new step width (or a run restarting) begins a new one.
MAX_ATTEMPTS = 16
#: An attempt that covers fewer bytes than this costs more than searching them would (~0.2 ms
#: for a sample and its checks against ~1 ms a MB searched): after one (many small files framed
#: together, a pattern broken every few steps) the rest of the buffer is searched instead.
SHORT_ATTEMPT_BYTES = 64 << 10
#: Periods checked in the first window of an attempt; each next window is twice as long, so a
#: pattern that breaks early costs little and checking never costs more than twice the records.
FIRST_WINDOW = 256
_MAX_PROPOSED_LENGTH = 1 << 16  # (as ``frame_bulk._propose``)
#: Windows of at least this many periods are first checked whole (``_first_misfit``).
WHOLE_WINDOW_MIN_PERIODS = 64


def _period(lengths: list[int]) -> tuple[int, int] | None:
    """(P, s): the shortest period P explaining the sample's last records, and the first sample
    record from which the lengths repeat with it; None if there is none."""
    m = len(lengths)
    for p in range(1, min(MAX_PERIOD, m // 2) + 1):
        window = max(2 * p, MIN_EXPLAINED)
        if window > m:
            return None
        if all(lengths[i] == lengths[i - p] for i in range(m - window + p, m)):
            s = m - window
            while s > 0 and lengths[s - 1] == lengths[s - 1 + p]:
                s -= 1
            return p, s
    return None


def _first_misfit(a: np.ndarray, first: int, offsets: np.ndarray, lengths: np.ndarray, expected_crc: np.ndarray,
                  period_bytes: int, periods: int) -> int:
    """Index (in record order) of the first of ``periods`` repetitions' headers that does not hold
    its expected length and length CRC; ``periods * P`` if all do.

    The window is whole periods of a contiguous buffer: laid as rows of one period each, a
    record's header is the same 12 columns in every row, and a pattern that holds throughout
    makes each of those columns one value, the header's (their ``byte_extremes`` show it, reading
    the window's bytes once). Otherwise every header is gathered as three u32 words (the length's
    low and high halves, the length's CRC) and compared with the pattern's, the first misfit
    taken in record order.
    """
    p = len(offsets)
    if periods <= 0 or p == 0:
        return 0
    expected = np.zeros((p, 3), dtype="<u4")  # (the high half 0: lengths are below 2**16)
    expected[:, 0], expected[:, 2] = lengths, expected_crc
    if periods >= WHOLE_WINDOW_MIN_PERIODS:
        low, high = byte_extremes(np.ndarray((periods, period_bytes), np.uint8, a, first))
        columns = offsets[:, None] + np.arange(12)
        header = expected.view(np.uint8).reshape(p, 12)
        if np.array_equal(low[columns], header) and np.array_equal(high[columns], header):
            return periods * p
    heads = (first + np.arange(periods, dtype=np.int64)[:, None] * period_bytes + offsets).reshape(-1)
    words = gather_rows(a, heads, 12).view("<u4").reshape(periods, p, 3)
    bad = np.flatnonzero(words != expected)
    return int(bad[0]) // 3 if len(bad) else periods * p


def _repeat(a: np.ndarray, first: int, lengths: np.ndarray, length_crc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Heads and lengths of the records from ``first`` that follow the pattern ``lengths``, as far
    as every header fits it and every record is complete."""
    n = len(a)
    p = len(lengths)
    sizes = lengths + 16
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    period_bytes = int(sizes.sum())
    expected_crc = length_crc[lengths]
    heads: list[np.ndarray] = []
    done = 0  # whole periods accepted
    window = FIRST_WINDOW
    while True:
        start = first + done * period_bytes
        whole = (n - start) // period_bytes  # periods wholly inside the buffer
        periods = min(window, whole)
        misfit = _first_misfit(a, start, offsets, lengths, expected_crc, period_bytes, periods) if periods else 0
        heads.append((start + np.arange(periods, dtype=np.int64)[:, None] * period_bytes + offsets).reshape(-1)[:misfit])
        if misfit < periods * p:
            break
        done += periods
        if periods < window:  # the buffer ends within the next period: its complete records
            tail_start = first + done * period_bytes
            k = int(np.searchsorted(tail_start + offsets + sizes, n, side="right"))
            tail_fit = _first_misfit(a, tail_start, offsets[:k], lengths[:k], expected_crc[:k], period_bytes, 1) if k else 0
            heads.append(tail_start + offsets[:tail_fit])
            break
        window *= 2
    out = np.concatenate(heads)
    reps = -(-len(out) // p)
    return out, np.tile(lengths, reps)[: len(out)]


def _headers_fit(a: np.ndarray, heads: list[int], lengths: list[int], length_crc: np.ndarray) -> int:
    """How many of the sampled headers, from the first, hold their length's right CRC (their
    lengths, below 65,536 and of complete records, were checked by ``follow_lengths``)."""
    if not heads:
        return 0
    at = np.asarray(heads, dtype=np.int64)[:, None] + np.arange(8, 12)
    stored = np.ascontiguousarray(a[at]).view("<u4").reshape(-1)
    bad = np.flatnonzero(stored != length_crc[np.asarray(lengths, dtype=np.int64)])
    return int(bad[0]) if len(bad) else len(heads)


def periodic_chain(a: np.ndarray, view: memoryview, length_crc: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(heads, lengths, end): a chain of sound headers from position 0 wherever the log repeats
    a pattern of lengths, and where it ends (0: no pattern at the start).

    ``length_crc[L]`` is the masked CRC of the 8-byte length L, for every L below 65,536.
    """
    heads: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    pos = 0
    for _ in range(MAX_ATTEMPTS):
        began = pos
        sample_heads, sample_lengths = follow_lengths(view, pos, SAMPLE_RECORDS, _MAX_PROPOSED_LENGTH)
        found = _period(sample_lengths)
        if found is None:
            break
        p, s = found
        lead = _headers_fit(a, sample_heads[:s], sample_lengths[:s], length_crc)
        heads.append(np.asarray(sample_heads[:lead], dtype=np.int64))
        lengths.append(np.asarray(sample_lengths[:lead], dtype=np.int64))
        if lead < s:
            pos = sample_heads[lead]
            break
        more, more_lengths = _repeat(a, sample_heads[s], np.asarray(sample_lengths[s : s + p], dtype=np.int64), length_crc)
        heads.append(more)
        lengths.append(more_lengths)
        if not len(more):
            pos = sample_heads[s]
            break
        pos = int(more[-1] + 16 + more_lengths[-1])
        if pos - began < SHORT_ATTEMPT_BYTES:
            break
    if not heads:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), 0
    return np.concatenate(heads), np.concatenate(lengths), pos
