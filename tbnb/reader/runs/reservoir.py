"""TensorBoard's reservoir sampling, with step preemption, for every non-scalar series.

A reservoir keeps a uniform sample of a series plus its latest item, with TensorBoard's
algorithm and defaults (``size_guidance`` says how many per plugin), deterministically: each
series draws as its own ``Random(0)`` would. Preemption as for scalar columns: an item at step
``s`` drops the items held at steps ``>= s``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from itertools import repeat
from typing import Any

import numpy as np

from .items import Item, new_tuple


def _randbelow_draws(rng: random.Random, first: int, stop: int) -> list[int]:
    """``rng.randint(0, s)`` for s in [first, stop), the same numbers ``random.randint`` gives.

    Inlines CPython's ``_randbelow_with_getrandbits`` (draw bit_length(n) bits, retry while
    >= n), without the calls ``randint`` makes per number.
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
        made = map(new_tuple, repeat(Item), zip(steps[new].tolist(), walls[new].tolist(), payloads_of(new)))
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
