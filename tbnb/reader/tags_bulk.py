"""Telling tags apart in bulk: which rows of a batch share a tag, without a Python step per row.

The bulk decoders read each record's tag bytes at a fixed place; a batch holds a handful of
distinct tags among hundreds of thousands of rows. Rows are grouped by comparing only the bytes
where tags differ, as 64-bit keys.
"""

from __future__ import annotations

import numpy as np

#: Rows whose distinct tags are looked up first: a log cycles through its tags within a few
#: steps, so these nearly always hold every tag of the batch.
TAG_SAMPLE = 4096


def tag_ids(rows: np.ndarray, tag: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(representative row of each distinct tag, tag index of every row), tags numbered in the
    order they first appear.

    The tags are copied as rows of uint64 words, whose XOR with the first row, OR-ed over all
    rows, shows where some tag differs. Tags that differ in at most eight bytes become one
    uint64 key of those bytes, and the distinct keys of the first rows are looked up for every
    row by binary search; otherwise the words that differ are compared, one pass per tag (a log
    has few tags).
    """
    col, n = tag
    full = np.zeros((len(rows), -(-n // 8) * 8), dtype=np.uint8)
    full[:, :n] = rows[:, col : col + n]
    words = full.view("<u8")
    differ = np.array([np.bitwise_or.reduce(w ^ w[0]) for w in words.T], dtype=np.uint64)  # bits where tags differ
    varying = np.flatnonzero(differ.view(np.uint8))
    if varying.size == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(len(rows), dtype=np.int64)
    if varying.size <= 8:
        packed = np.zeros((len(rows), 8), dtype=np.uint8)
        packed[:, : varying.size] = full[:, varying]
        return _ids_of_keys(packed.view("<u8")[:, 0])
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
        if len(set(slots.tolist())) == len(distinct):  # (a plain np.unique imports numpy.ma: ~15 ms once)
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
