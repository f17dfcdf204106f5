"""The reservoir: TensorBoard's sampling, deterministic, with preemption."""

from __future__ import annotations

import random

import numpy as np

from tbnb.reader.runs import reservoir
from tbnb.reader.runs.items import Item
from tbnb.reader.runs.reservoir import Reservoir


def test_reservoir_keeps_capacity_and_latest_deterministically() -> None:
    def run() -> list[int]:
        r = Reservoir(10)
        for i in range(1000):
            r.add(Item(i, 0.0, None))
        return [it.step for it in r.items]

    steps = run()
    assert len(steps) == 10 and steps[-1] == 999
    assert steps == sorted(steps) and steps == run()
    # roughly uniform: the sample is not just the tail
    assert steps[0] < 500


def test_reservoir_unbounded_and_preempting() -> None:
    r = Reservoir(None)
    for i in range(100):
        r.add(Item(i, 0.0, i))
    r.add(Item(50, 1.0, "restart"))
    assert [it.step for it in r.items] == list(range(51))
    assert r.items[-1].payload == "restart"


class _TensorBoardReservoir:
    """TensorBoard's ``_ReservoirBucket`` (always_keep_last) with step preemption, as reference."""

    def __init__(self, capacity: int) -> None:
        self.capacity, self.items, self.seen = capacity, [], 0
        self.random = random.Random(0)

    def add(self, step: int) -> None:
        if self.items and self.items[-1] >= step:  # preemption: FilterItems(step < s)
            before = len(self.items)
            self.items = [s for s in self.items if s < step]
            self.seen = round(self.seen * len(self.items) / before)
        if len(self.items) < self.capacity:
            self.items.append(step)
        else:
            r = self.random.randint(0, self.seen)
            if r < self.capacity:
                self.items.pop(r)
                self.items.append(step)
            else:
                self.items[-1] = step
        self.seen += 1


def test_reservoirs_draw_as_their_own_random_0_while_sharing_draws() -> None:
    """Series of one capacity share one sequence of draws; each must still keep exactly the
    steps its own Random(0) would, also after a restart takes it off the shared sequence, and
    whether its items come one by one or in batches."""
    rng = np.random.default_rng(11)
    caps = [5, 5, 7, 5, 300]
    ours = [Reservoir(c) for c in caps]
    refs = [_TensorBoardReservoir(c) for c in caps]
    next_step = [0] * len(caps)
    for round_ in range(60):
        for k in rng.permutation(len(caps)).tolist():
            if round_ in (25, 40) and k in (1, 4):  # a restart: steps go back, held ones preempted
                next_step[k] = max(0, next_step[k] - int(rng.integers(5, 80)))
            n = int(rng.integers(1, 90))
            steps = np.arange(next_step[k], next_step[k] + n)
            next_step[k] += n
            if n % 3:  # payloads are made for the survivors only, each of its own item
                ours[k].add_many(steps, np.zeros(n), lambda index, steps=steps: [f"p{steps[i]}" for i in index])
            else:
                for s in steps.tolist():
                    ours[k].add(Item(s, 0.0, f"p{s}"))
            for s in steps.tolist():
                refs[k].add(s)
            assert [it.step for it in ours[k].items] == refs[k].items, (round_, k)
            assert all(it.payload == f"p{it.step}" for it in ours[k].items)
            assert ours[k].seen == refs[k].seen


def test_series_offered_alike_share_one_plan_and_keep_their_own_items() -> None:
    """Tags logged together (every layer's histogram at the same steps) get the same survivor
    plan, made once; each series still keeps what its own Random(0) would, with its own payloads,
    also one that a restart took off the shared sequence."""
    reservoir._PLANS.clear()
    batches = [700, 300, 1, 250]
    ours = {name: Reservoir(50) for name in ("a", "b", "c", "restarted")}
    refs = {name: _TensorBoardReservoir(50) for name in ours}
    start = 0
    for round_, n in enumerate(batches):
        for name in ours:
            first = start
            if name == "restarted" and round_ == 2:
                first = start - 400  # steps go back: held items preempted, the count rescaled
            steps = np.arange(first, first + n)
            if name == "restarted" and round_ == 3:
                steps = np.arange(start - 400 + 1, start - 400 + 1 + n)
            ours[name].add_many(steps, steps * 0.5, lambda index, steps=steps, name=name:
                                [f"{name}{steps[i]}" for i in index])
            for s in steps.tolist():
                refs[name].add(s)
        start += n
    for name, ours_ in ours.items():
        assert [it.step for it in ours_.items] == refs[name].items, name
        assert [it.payload for it in ours_.items] == [f"{name}{it.step}" for it in ours_.items]
        assert [it.wall_time for it in ours_.items] == [it.step * 0.5 for it in ours_.items]
    # one plan per batch shape on the shared sequence, not one per series
    assert 0 < len(reservoir._PLANS) <= len(batches)
