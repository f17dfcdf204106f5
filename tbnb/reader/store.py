"""Columnar series with step preemption.

Scalars keep every point in three numpy columns (step int64, wall_time float64, value float64):
24 bytes a point, millions of points in tens of MB, never sampled away. Everything else (tensors,
blob references) goes into a reservoir that keeps a uniform sample plus the latest item, with
TensorBoard's algorithm and defaults.

Preemption (TensorBoard's Rust loader, always on unless purging is turned off): a point at step
``s`` drops the points already held at steps ``>= s``, so restarts and re-written steps look
right with no special cases.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from itertools import repeat
from typing import Any, NamedTuple

import numpy as np

_GROWTH = 1.5


class ScalarColumns:
    """One scalar series: step, wall_time and value columns with amortised appends."""

    __slots__ = ("_step", "_wall", "_value", "n")

    def __init__(self) -> None:
        self._step = np.empty(0, dtype=np.int64)
        self._wall = np.empty(0, dtype=np.float64)
        self._value = np.empty(0, dtype=np.float64)
        self.n = 0

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns, spare capacity included."""
        return self._step.nbytes + self._wall.nbytes + self._value.nbytes

    def _reserve(self, extra: int) -> None:
        need = self.n + extra
        cap = len(self._step)
        if need <= cap:
            return
        # Exact on the first fill (a cold load appends a whole file at once: 24 bytes a point),
        # geometric afterwards so that live appends stay amortised.
        new_cap = need if cap == 0 else max(need, int(cap * _GROWTH))
        for name in ("_step", "_wall", "_value"):
            try:  # realloc where it lies (often without a copy); numpy refuses if it is viewed
                getattr(self, name).resize(new_cap)
            except ValueError:
                old = getattr(self, name)
                new = np.empty(new_cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)

    def purge(self, step: int) -> int:
        """Drop the points at steps ``>= step``; return how many were dropped."""
        keep = int(np.count_nonzero(self._step[: self.n] < step))
        if keep == self.n:
            return 0
        if np.all(np.diff(self._step[: self.n]) > 0):  # sorted (the usual case): a cut
            dropped, self.n = self.n - keep, keep
            return dropped
        mask = self._step[: self.n] < step
        for name in ("_step", "_wall", "_value"):
            col = getattr(self, name)
            col[:keep] = col[: self.n][mask]
        dropped, self.n = self.n - keep, keep
        return dropped

    def extend(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray, preempt: bool = True) -> None:
        """Append points in arrival order, applying preemption as if they came one by one.

        Point ``i`` of the batch survives iff every later point of the batch has a greater step;
        held points survive iff their step is below the batch's smallest step.
        """
        m = len(steps)
        if m == 0:
            return
        steps = np.asarray(steps, dtype=np.int64)
        if preempt:
            suffix_min = np.minimum.accumulate(steps[::-1])[::-1]
            keep = np.ones(m, dtype=bool)
            keep[:-1] = steps[:-1] < suffix_min[1:]
            # Preempted series hold increasing steps: only a batch reaching back below the last
            # held step purges (a check of one value, not of every held point, on each poll).
            if self.n and self._step[self.n - 1] >= suffix_min[0]:
                self.purge(int(suffix_min[0]))
            if not keep.all():
                steps, walls, values = steps[keep], np.asarray(walls)[keep], np.asarray(values)[keep]
                m = len(steps)
        self._reserve(m)
        end = self.n + m
        self._step[self.n : end] = steps
        self._wall[self.n : end] = walls
        self._value[self.n : end] = values
        self.n = end

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the three columns, in step order (stable, so equal steps keep arrival order)."""
        step, wall, value = self._step[: self.n], self._wall[: self.n], self._value[: self.n]
        if self.n > 1 and not np.all(step[1:] >= step[:-1]):
            order = np.argsort(step, kind="stable")
            return step[order], wall[order], value[order]
        return step.copy(), wall.copy(), value.copy()


#: ``tuple.__new__(Item, (step, wall, payload))``: a named tuple made without a Python-level
#: ``__new__`` call, for the thousands a batch keeps.
_tuple_new = tuple.__new__


class BlobRef(NamedTuple):
    """Where a blob (image, audio) lives: the record's data in an event file and the value's index.

    Blobs are read when shown, so a logdir of many large images costs little memory. (Named
    tuples, not frozen dataclasses: a load makes tens of thousands of these, and a frozen
    dataclass costs several times more to construct.)
    """

    path: str
    offset: int
    length: int
    index: int


class Record(NamedTuple):
    """An event record's bytes, kept in memory and decoded when read.

    Sampled tensors (histograms, text, PR curves...) are kept this way: a reload only decides
    which steps to keep, and decoding the few hundred survivors waits until someone looks.
    """

    data: bytes
    index: int


class Item(NamedTuple):
    """One sampled step of a tensor series: the payload is a Record or a BlobRef."""

    step: int
    wall_time: float
    payload: Any


def _randbelow_draws(rng: random.Random, first: int, stop: int) -> list[int]:
    """``rng.randint(0, s)`` for s in [first, stop), the same numbers ``random.randint`` gives.

    Inlines CPython's ``_randbelow_with_getrandbits`` (draw bit_length(n) bits, retry while
    >= n): a third of the cost of calling ``randint``.
    """
    getrandbits = rng.getrandbits
    out = []
    append = out.append
    for n in range(first + 1, stop + 1):
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        append(r)
    return out


class _SharedDraws:
    """The draws of a fresh ``Random(0)`` reservoir that fills up and then only grows.

    Every reservoir starts from ``Random(0)`` and, until a purge, draws ``randint(0, s)`` for
    s = capacity, capacity + 1, ... in that order: the same numbers for every series of one
    capacity. They are drawn once per capacity and shared (a logdir of 32 histogram tags drew
    the same 1,500 numbers 32 times), extended as far as the longest series needs.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.rng = random.Random(0)
        self.draws = np.empty(0, dtype=np.int64)

    def take(self, start: int, count: int) -> np.ndarray:
        """Draws ``start .. start + count - 1`` of the sequence (draw i is for s = capacity + i)."""
        need = start + count - len(self.draws)
        if need > 0:
            have = self.capacity + len(self.draws)
            more = _randbelow_draws(self.rng, have, have + max(need, len(self.draws)))  # doubling
            self.draws = np.concatenate([self.draws, np.asarray(more, dtype=np.int64)])
        return self.draws[start : start + count]


_SHARED: dict[int, _SharedDraws] = {}
_SHARED_LOCK = threading.Lock()  # runs reload on threads; their reservoirs share the sequences


def _evolve(held: int, direct: int, n: int, draws: np.ndarray, cap: int) -> tuple[list[int], np.ndarray]:
    """TensorBoard's reservoir steps for ``n`` offered items, on positions only.

    ``held`` items are held, the first ``direct`` offered ones are appended without a draw and
    ``draws[j]`` decides offered item ``direct + j``: below ``cap`` it evicts the slot it names
    and is appended, otherwise it replaces the last slot. New items only ever go to the end, so
    the result is a prefix of the held positions that stay plus the offered indices kept (both
    ascending); only the draws that evict (about ``cap * log(n / cap)``) cost list operations.
    """
    slots = list(range(held + direct))  # held positions, then held + offered index
    old = held  # the leading slots that are still held items
    last_written = direct - 1
    evicting = np.flatnonzero(draws < cap)
    for offset, r in zip(evicting.tolist(), draws[evicting].tolist()):
        i = direct + offset
        if i - 1 > last_written:
            old -= len(slots) == old
            slots[-1] = held + i - 1  # the items between evictions each replaced the last slot
        old -= r < old
        del slots[r]
        slots.append(held + i)
        last_written = i
    if n - 1 > last_written:
        old -= len(slots) == old
        slots[-1] = held + n - 1
    return slots[:old], np.asarray(slots[old:], dtype=np.int64) - held


#: Plans of reservoirs on the shared sequence, by (capacity, seen, held, offered).
_PLANS: dict[tuple[int, int, int, int], tuple[list[int], np.ndarray]] = {}
_MAX_PLANS = 4096


class Reservoir:
    """TensorBoard's reservoir: a uniform sample of the stream that always keeps the latest item.

    ``capacity`` None keeps everything. Deterministic: each series draws as its own
    ``Random(0)`` would; until it leaves the shared sequence (a purge moved its count), it
    reads the numbers from ``_SharedDraws`` instead of drawing them again.
    """

    __slots__ = ("_rng", "_shared_used", "capacity", "items", "seen")

    def __init__(self, capacity: int | None) -> None:
        self.capacity = capacity
        self.items: list[Item] = []
        self.seen = 0
        self._rng: random.Random | None = None  # its own generator, once off the shared sequence
        self._shared_used = 0  # draws taken from the shared sequence so far

    def add(self, item: Item, preempt: bool = True) -> None:
        """Offer one item (after preempting held items at steps >= its step)."""
        if preempt and self.items and self.items[-1].step >= item.step:
            self.purge(item.step)
        cap = self.capacity
        if cap is None or len(self.items) < cap:
            self.items.append(item)
        else:
            # TensorBoard draws from [0, seen] before counting this item.
            r = int(self._draws(self.seen, self.seen + 1)[0])
            if r < cap:
                self.items.pop(r)
                self.items.append(item)
            else:
                self.items[-1] = item
        self.seen += 1

    def add_many(self, steps: np.ndarray, walls: np.ndarray, payloads_of: Callable[[np.ndarray], list[Any]],
                 preempt: bool = True) -> None:
        """Offer many items in order; only the survivors' payloads are made, by one call of
        ``payloads_of(indices)`` (an index array; a list of payloads, one per index).

        The random draws depend only on how many items have been seen, not on the items, so
        they are made up front, and only the draws that evict an item (about ``capacity *
        log(n / capacity)`` of them) cost list operations. Steps that could preempt fall back to
        one-by-one ``add``.
        """
        n = len(steps)
        if n == 0:
            return
        increasing = n == 1 or bool(np.all(steps[1:] > steps[:-1]))
        if preempt and (not increasing or (self.items and self.items[-1].step >= int(steps[0]))):
            for i in range(n):
                self.add(Item(int(steps[i]), float(walls[i]), payloads_of(np.array([i]))[0]), preempt)
            return
        cap = self.capacity
        held = len(self.items)
        direct = n if cap is None else max(0, min(n, cap - held))
        if direct == n:
            kept, new = list(range(held)), np.arange(n)
        else:
            assert cap is not None
            kept, new = self._plan(cap, held, direct, n)
        self.seen += n
        made = map(_tuple_new, repeat(Item), zip(steps[new].tolist(), walls[new].tolist(), payloads_of(new)))
        items = self.items
        self.items = (items if len(kept) == held else [items[k] for k in kept]) + list(made)

    def _plan(self, cap: int, held: int, direct: int, n: int) -> tuple[list[int], np.ndarray]:
        """Which held items stay and which of ``n`` offered ones are kept, as ``_evolve`` says.

        While on the shared sequence the draws, and so the plan, depend only on the capacity,
        the count seen, the items held and the items offered: series logged together (every
        layer's histogram at the same steps) get the same plan, made once (``_PLANS``).
        """
        seen = self.seen + direct
        shared = self._rng is None and seen == cap + self._shared_used
        key = (cap, seen, held, n)
        plan = _PLANS.get(key) if shared else None
        if plan is not None:
            self._shared_used += n - direct
            return plan
        plan = _evolve(held, direct, n, self._draws(seen, seen + n - direct), cap)
        if shared:
            if len(_PLANS) >= _MAX_PLANS:
                _PLANS.clear()
            _PLANS[key] = plan
        return plan

    def _draws(self, first: int, stop: int) -> np.ndarray:
        """``randint(0, s)`` for s in [first, stop), as this series' ``Random(0)`` gives them."""
        cap = self.capacity
        assert cap is not None
        if self._rng is None:
            if first == cap + self._shared_used:  # still on the shared sequence
                with _SHARED_LOCK:
                    shared = _SHARED.get(cap)
                    if shared is None:
                        shared = _SHARED[cap] = _SharedDraws(cap)
                    out = shared.take(self._shared_used, stop - first)
                self._shared_used += stop - first
                return out
            # Off it (a purge moved ``seen``): a generator of its own, in the state the shared
            # draws left it in.
            self._rng = random.Random(0)
            _randbelow_draws(self._rng, cap, cap + self._shared_used)
        return np.asarray(_randbelow_draws(self._rng, first, stop), dtype=np.int64)

    def purge(self, step: int) -> int:
        """Drop items at steps >= ``step``, scaling the seen count by the fraction kept."""
        before = len(self.items)
        if not before:
            return 0
        self.items = [it for it in self.items if it.step < step]
        kept = len(self.items)
        if kept != before:
            self.seen = int(round(self.seen * kept / before))
        return before - kept
