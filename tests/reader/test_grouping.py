"""Grouping rows: tag ids by the bytes where tags differ, and the hashed lookup of tag keys."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.format.byte_columns import byte_extremes
from tbnb.reader.records import grouping

_TAG_POOLS = {
    "one": [b"loss"],
    "last byte": [b"w/layer_0/abc", b"w/layer_0/abd"],
    "late": [b"w/layer_0/abc", b"w/layer_0/abd", b"w/layer_0/abe"],  # the third after the sample
    "two bytes": [b"metric_00", b"metric_01", b"metric_10", b"metric_99"],  # alike in either byte
    "past the first key": [b"a" * 19, b"b" * 9 + b"a" * 10, b"b" * 9 + b"a" * 9 + b"b"],
}


@pytest.mark.parametrize("pool", ["one", "last byte", "late", "two bytes", "past the first key", 7, 300])
def test_tag_ids_group_rows_by_their_exact_tag(pool: str | int) -> None:
    """Tags of one length that differ in many columns (more than one 64-bit key holds: two tags
    alike in the first eight differing columns), or in one byte only (also one first seen past
    the rows looked at first); past 256 distinct tags the sorting fallback: every row gets the
    index of exactly its own tag, each representative row holds that tag and is its first row,
    tags numbered in order of appearance."""
    rng = np.random.default_rng(5)
    if isinstance(pool, int):
        names: set[bytes] = set()
        while len(names) < pool:
            names.add(bytes(rng.integers(97, 123, 19, dtype=np.uint8)))
        tags = sorted(names)
    else:
        tags = [t.ljust(19, b"_") for t in _TAG_POOLS[pool]]
    chosen = rng.integers(0, len(tags), 5000)
    if pool == "late":
        chosen[: grouping.TAG_SAMPLE + 100] %= 2
    rows = np.zeros((5000, 25), dtype=np.uint8)
    rows[:, 3:22] = np.frombuffer(b"".join(tags[i] for i in chosen.tolist()), dtype=np.uint8).reshape(-1, 19)
    rows[:, :3] = rng.integers(0, 256, (5000, 3))  # other columns vary freely
    _assert_tag_ids(rows, grouping.tag_ids(rows, (3, 19)))
    # with the byte extremes of more rows than these (a caller's, over a superset): the same
    others = np.zeros((50, 25), dtype=np.uint8)
    others[:, 3:22] = rng.integers(0, 256, (50, 19))
    superset = np.concatenate((rows, others))
    _assert_tag_ids(rows, grouping.tag_ids(rows, (3, 19), byte_extremes(superset)))
    alone = rows[chosen == chosen[0]]  # one tag, where the superset's differ in most bytes
    _assert_tag_ids(alone, grouping.tag_ids(alone, (3, 19), byte_extremes(superset)))


def _assert_tag_ids(rows: np.ndarray, found: tuple[np.ndarray, np.ndarray]) -> None:
    """Every row gets the index of exactly its own tag (columns 3 to 21), each representative
    row holds that tag and is its first row, tags numbered in order of appearance."""
    reps, inverse = found
    tags = [bytes(r[3:22]) for r in rows]
    tag_of_rep = [tags[r] for r in reps.tolist()]
    assert len(set(tag_of_rep)) == len(tag_of_rep) == len(set(tags))
    assert [tag_of_rep[i] for i in inverse.tolist()] == tags
    assert reps.tolist() == sorted(reps.tolist()) == [inverse.tolist().index(i) for i in range(len(reps))]


@pytest.mark.parametrize("multipliers", [None, (0,)])
def test_key_lookup_finds_every_key_or_says_one_is_missing(monkeypatch: pytest.MonkeyPatch,
                                                           multipliers: tuple[int, ...] | None) -> None:
    """The hashed lookup of tag keys (and the binary search when no multiplier keeps the keys
    apart: multiplier 0 puts them all in one slot) gives each key's index, or None when a key
    is not among those looked up."""
    if multipliers is not None:
        monkeypatch.setattr(grouping, "_MULTIPLIERS", multipliers)
    rng = np.random.default_rng(9)
    distinct = np.unique(rng.integers(0, 1 << 63, 40, dtype=np.uint64) * np.uint64(2))
    key = distinct[rng.integers(0, len(distinct), 10000)]
    at = grouping._lookup(distinct, key)
    assert at is not None and np.array_equal(distinct[at], key)
    stray = key.copy()
    stray[7777] += np.uint64(1)  # odd: not among the distinct keys
    assert grouping._lookup(distinct, stray) is None
