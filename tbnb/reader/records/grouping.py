"""Grouping the rows of a batch: by record length, by tag bytes, by tag index.

The bulk paths work on groups of alike rows (records of one length share a byte layout, rows of
one tag form one series), and a batch holds a handful of distinct lengths and tags among
hundreds of thousands of rows. Each grouping here is a few numpy passes, never a Python step per
row.

Tags are told apart by comparing only the bytes where tags differ, as 64-bit keys
(``tag_ids``).
"""

from __future__ import annotations

import numpy as np

from tbnb.format.byte_columns import byte_extremes

#: Groups of equal length smaller than this get one ``crc32c`` call per record instead of the
#: bulk CRC (``crc.crc_rows``): below it, the bulk CRC's per-group numpy calls (one per byte
#: pair) cost more than the calls they save.
MIN_CRC_GROUP = 8
#: Length groups smaller than this are not decoded in bulk (``scalars_bulk``) but parsed by
#: protobuf. Larger than ``MIN_CRC_GROUP`` because a group's fixed cost is larger here: a
#: Python walk of a template record, a tag lookup, and a segment of its own when the bulk rows
#: are applied.
MIN_DECODE_GROUP = 16


def group_by_length(lengths: np.ndarray, limit: int = 1 << 16,
                    min_count: int = 1) -> list[tuple[int, np.ndarray]]:
    """``(length, indices)`` for each distinct length below ``limit`` held by at least
    ``min_count`` rows, in O(n) passes.

    Logs have few distinct record lengths, so a count and one comparison per length beats
    sorting; with many lengths a radix sort on 16-bit keys does it in one pass.
    """
    small = lengths < limit
    if not small.any():
        return []
    counts = np.bincount(lengths[small])
    distinct = np.flatnonzero(counts >= min_count)
    if min_count > 1:
        return [(int(n), np.flatnonzero(lengths == n)) for n in distinct.tolist()]
    if len(distinct) <= 32:
        return [(int(n), np.flatnonzero(lengths == n)) for n in distinct.tolist()]
    index = np.flatnonzero(small)
    order = index[np.argsort(lengths[index].astype(np.uint16), kind="stable")]
    cuts = np.flatnonzero(np.diff(lengths[order])) + 1
    return [(int(lengths[g[0]]), g) for g in np.split(order, cuts)]


def group_by_tag(rows: np.ndarray, tags: np.ndarray, lo: int, hi: int) -> list[np.ndarray]:
    """Positions of the rows whose record index (``rows``, ascending) is in [lo, hi), one array
    per tag (``tags``: each row's tag index), each in order."""
    if not len(rows):
        return []
    a, b = np.searchsorted(rows, [lo, hi]).tolist()
    if a == b:
        return []
    part = tags[a:b]
    # A stable sort of 16-bit keys is a radix sort in numpy: a log has far fewer tags than that.
    order = np.argsort(part.astype(np.uint16) if part.max(initial=0) < 1 << 16 else part, kind="stable")
    ranked = part[order]
    bounds = [0, *(np.flatnonzero(ranked[1:] != ranked[:-1]) + 1).tolist(), b - a]
    order += a
    return [order[i:j] for i, j in zip(bounds[:-1], bounds[1:])]


#: Rows whose distinct tags are looked up first: a log cycles through its tags within a few
#: steps, so these nearly always hold every tag of the batch.
TAG_SAMPLE = 4096


def tag_ids(rows: np.ndarray, tag: tuple[int, int],
            extremes: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(representative row of each distinct tag, tag index of every row), tags numbered in the
    order they first appear.

    The bytes where some tag differs are those whose least and greatest values over the rows
    differ (``extremes``, from ``byte_extremes(rows)``: given by a caller that has them). Tags
    that differ in one or two bytes are told apart by those bytes as one small key
    (``_ids_of_small_keys``); in at most eight bytes, by one uint64 key of those bytes, the distinct keys of the
    first rows looked up for every row by hash (``_lookup``); otherwise the tags
    are copied as rows of uint64 words and the words that differ are compared, one pass per tag
    (a log has few tags).
    """
    col, n = tag
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if extremes is None:
        low, high = byte_extremes(np.ascontiguousarray(rows[:, col : col + n]))
    else:
        low, high = extremes[0][col : col + n], extremes[1][col : col + n]
    varying = np.flatnonzero(low != high)
    if varying.size == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(len(rows), dtype=np.int64)
    if varying.size <= 2:  # (tags that differ in a byte or two: "metric_0" ... "metric_15")
        if varying.size == 1:
            return _ids_of_small_keys(rows[:, col + int(varying[0])], 8)
        key = rows[:, col + int(varying[0])].astype(np.uint16)
        key |= rows[:, col + int(varying[1])].astype(np.uint16) << np.uint16(8)
        return _ids_of_small_keys(key, 16)
    if varying.size <= 8:
        packed = np.zeros((len(rows), 8), dtype=np.uint8)
        packed[:, : varying.size] = rows[:, col + varying]
        return _ids_of_keys(packed.view("<u8")[:, 0])
    full = np.zeros((len(rows), -(-n // 8) * 8), dtype=np.uint8)
    full[:, :n] = rows[:, col : col + n]
    words = full.view("<u8")
    differ = np.array([np.bitwise_or.reduce(w ^ w[0]) for w in words.T], dtype=np.uint64)  # bits where tags differ
    if not differ.any():  # (``extremes`` of more rows than these: theirs are all one tag)
        return np.zeros(1, dtype=np.int64), np.zeros(len(rows), dtype=np.int64)
    keys = np.ascontiguousarray(words[:, differ != 0])
    inverse = np.full(len(rows), -1, dtype=np.int64)
    reps: list[int] = []
    while len(reps) < 256:
        unassigned = np.flatnonzero(inverse < 0)
        if not unassigned.size:
            return np.array(reps, dtype=np.int64), inverse
        first = int(unassigned[0])
        same = keys[:, 0] == keys[first, 0]
        for k in range(1, keys.shape[1]):
            same &= keys[:, k] == keys[first, k]
        inverse[same] = len(reps)
        reps.append(first)
    _, first, inverse = np.unique(full.view(f"V{full.shape[1]}").reshape(-1), return_index=True,
                                  return_inverse=True)
    return _by_appearance(first, inverse.reshape(-1))


def _ids_of_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``tag_ids`` for one uint64 key per row: the distinct keys of the first rows (of all
    rows, if a key first shows up later) looked up for every row."""
    for sample in (key[:TAG_SAMPLE], key):
        distinct, first = np.unique(sample, return_index=True)
        at = _lookup(distinct, key)
        if at is not None:
            return _by_appearance(first, at)
    raise AssertionError("every key is among the distinct keys of all keys")


def _ids_of_small_keys(key: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """``tag_ids`` for one key of ``bits`` (8 or 16) per row: the distinct keys of the first rows
    (of all rows, if a key first shows up later) looked up for every row, in a table of every
    key for one byte, by binary search among the few distinct keys for two (a table of 65,536
    filled for each group cost more than the search)."""
    for sample in (key[:TAG_SAMPLE], key):
        distinct, first = np.unique(sample, return_index=True)
        if bits == 8:
            table = np.full(256, len(distinct), dtype=np.intp)
            table[distinct] = np.arange(len(distinct))
            at = table[key]
            found = bool(at.max() < len(distinct))
        else:
            at = np.minimum(np.searchsorted(distinct, key), len(distinct) - 1)
            found = bool(np.array_equal(distinct[at], key))
        if found:
            return _by_appearance(first, at)
    raise AssertionError("every key is among the distinct keys of all keys")


#: Odd 64-bit multipliers for the lookup's hash (golden ratio and xxhash primes).
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5)


def _lookup(distinct: np.ndarray, key: np.ndarray) -> np.ndarray | None:
    """Each key's index in the sorted ``distinct`` keys, None if some key is not among them.

    A multiplicative hash into a table of about 4k² slots (k distinct keys) that keeps them
    apart costs a multiply, a shift and a gather per row; the result is checked against the
    keys themselves, so a key missing from ``distinct`` is always caught. Binary search when
    no multiplier keeps the keys apart.
    """
    bits = min(16, 2 * len(distinct).bit_length() + 2)
    shift = np.uint64(64 - bits)
    at: np.ndarray | None = None
    for multiplier in map(np.uint64, _MULTIPLIERS):
        slots = (distinct * multiplier) >> shift
        if len(set(slots.tolist())) == len(distinct):  # (a plain np.unique imports numpy.ma, slow on first use)
            table = np.zeros(1 << bits, dtype=np.int64)
            table[slots] = np.arange(len(distinct))
            at = table[(key * multiplier) >> shift]
            break
    if at is None:
        at = np.minimum(np.searchsorted(distinct, key), len(distinct) - 1)
    return at if np.array_equal(distinct[at], key) else None


def _by_appearance(first: np.ndarray, inverse: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Renumber distinct values (``first`` row of each, each row's ``inverse``) in the order
    they first appear."""
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse]
