"""TFRecord framing with masked CRC-32C: resumable, corruption-tolerant reading of event files.

An event file is a sequence of records ``u64 length | u32 masked_crc(length) | data | u32
masked_crc(data)``, all little-endian. This module turns a byte range of such a file into the
positions of its records and nothing more: decoding the data is ``events.py``'s job, checksums
``tbnb.format.crc``'s, the layout's sizes ``tbnb.format.framing``'s.

Policy (TensorBoard's readers stall or give up on damage; we skip and report instead):

* a record whose *data* CRC fails is skipped and reported; the rest of the file is still read;
* a *length* CRC that fails means the framing itself is lost: we report it and resynchronise on
  the next position that carries a valid header;
* a length that cannot be real (larger than ``MAX_RECORD_LENGTH``) is never allocated;
* a record that is not complete yet (a writer mid-flush) is left for the next read, which
  resumes from the same offset.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import crc32c as _crc32c
import numpy as np

from tbnb.format.crc import header_crc_ok, mask
from tbnb.format.framing import FOOTER_SIZE, HEADER_SIZE, MAX_RECORD_LENGTH

from ..files.problems import Problem

_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_LENGTH = struct.Struct("<Q")




@dataclass
class Framed:
    """The records found in a buffer.

    ``starts`` and ``lengths`` give each good record's data position within the buffer;
    ``consumed`` is how many bytes of the buffer are settled (good, skipped or garbage) so the
    next read resumes from ``base + consumed``.
    """

    starts: np.ndarray
    lengths: np.ndarray
    consumed: int
    problems: list[Problem] = field(default_factory=list)
    #: From the bulk framer: {length: (data starts, [m, length] rows of record bytes)} for the
    #: records it gathered to check their CRCs, so the decoder need not gather them again.
    rows: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def follow_lengths(buf: bytes | memoryview, pos: int, count: int,
                   limit: int = MAX_RECORD_LENGTH) -> tuple[list[int], list[int]]:
    """Heads and lengths of up to ``count`` complete records chained from ``pos`` by their length
    fields alone, no CRC checked (a sample for a choice or a guess; whatever is used from it is
    checked afterwards), stopping at a length of ``limit`` or more or a record not complete."""
    n = len(buf)
    unpack = _LENGTH.unpack_from
    heads: list[int] = []
    lengths: list[int] = []
    while len(heads) < count and pos + HEADER_SIZE <= n:
        (length,) = unpack(buf, pos)
        if length >= limit or pos + HEADER_SIZE + length + FOOTER_SIZE > n:
            break
        heads.append(pos)
        lengths.append(length)
        pos += HEADER_SIZE + length + FOOTER_SIZE
    return heads, lengths


def find_next_header(buf: bytes | memoryview, start: int, chunk: int = 1 << 20) -> int | None:
    """Return the first position >= ``start`` that holds a plausible record header, or None.

    Plausible: a valid length CRC and a length below ``MAX_RECORD_LENGTH``. Scans in chunks so
    that a large damaged region costs numpy time, not a Python loop per byte.
    """
    arr = np.frombuffer(buf, dtype=np.uint8)
    last = len(arr) - HEADER_SIZE  # last position with a whole header after it
    pos = start
    while pos <= last:
        stop = min(last + 1, pos + chunk)
        cand = np.arange(pos, stop, dtype=np.int64)
        # Lengths below 2**31: the top four bytes of the little-endian u64 are zero, bit 31 clear.
        small = (arr[cand + 4] == 0) & (arr[cand + 5] == 0) & (arr[cand + 6] == 0) & (arr[cand + 7] == 0)
        small &= arr[cand + 3] < 0x80
        cand = cand[small]
        if cand.size:
            ok = np.flatnonzero(header_crc_ok(arr, cand))
            if ok.size:
                return int(cand[ok[0]])
        pos = stop
    return None


def frame(buf: bytes | memoryview, path: str = "", base: int = 0, *, start: int = 0,
          until: int | None = None) -> Framed:
    """Find every complete record in ``buf`` (which starts at file offset ``base``).

    This is the general, sequential path; it checks both CRCs of every record. Framing begins at
    ``start`` and, if ``until`` is given, stops at the first record boundary at or past it (the
    bulk framer uses this to bridge the places its proposal does not cover).
    """
    view = memoryview(buf)
    n = len(view)
    stop = n if until is None else until
    starts: list[int] = []
    lengths: list[int] = []
    problems: list[Problem] = []
    pos = start
    unpack_header = _HEADER.unpack_from
    unpack_footer = _FOOTER.unpack_from
    crc, masked = _crc32c.crc32c, mask
    header_crcs: dict[int, int] = {}  # a log has few distinct lengths: their CRCs, once each
    while pos + HEADER_SIZE <= n and pos < stop:
        length, length_crc = unpack_header(view, pos)
        expected = header_crcs.get(length)
        if expected is None:
            expected = mask(crc(view[pos : pos + 8]))
            if expected == length_crc:
                header_crcs[length] = expected
        if expected != length_crc or length >= MAX_RECORD_LENGTH:
            header_ok = expected == length_crc
            reason = f"impossible record length {length}" if header_ok else "bad length CRC"
            nxt = find_next_header(view, pos + 1)
            if nxt is None:
                # Keep the last bytes: a valid header may still be completed by the writer.
                nxt = max(pos + 1, n - HEADER_SIZE + 1)
                problems.append(Problem(path, base + pos, f"{reason}; skipped {nxt - pos} bytes so far"))
                pos = nxt
                break
            problems.append(Problem(path, base + pos, f"{reason}; resynchronised after {nxt - pos} bytes"))
            pos = nxt
            continue
        data_start = pos + HEADER_SIZE
        end = data_start + length + FOOTER_SIZE
        if end > n:
            break  # incomplete record: wait for the writer
        (data_crc,) = unpack_footer(view, end - FOOTER_SIZE)
        if masked(crc(view[data_start : end - FOOTER_SIZE])) != data_crc:
            problems.append(Problem(path, base + pos, "data CRC mismatch; record skipped"))
        else:
            starts.append(data_start)
            lengths.append(length)
        pos = end
    return Framed(
        np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64), pos, problems
    )
