"""Columnar scalar store and reservoir: preemption as if point by point, TensorBoard's sampling."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tbnb.reader import store
from tbnb.reader.store import Item, Reservoir, ScalarColumns


def one_by_one(batches: list[list[int]]) -> list[int]:
    """Reference: apply preemption one point at a time (steps only)."""
    held: list[int] = []
    for batch in batches:
        for s in batch:
            held = [h for h in held if h < s] + [s]
    return held


@pytest.mark.parametrize("seed", range(20))
def test_bulk_preemption_equals_point_by_point(seed: int) -> None:
    rng = np.random.default_rng(seed)
    batches = [rng.integers(0, 50, int(rng.integers(0, 30))).tolist() for _ in range(4)]
    cols = ScalarColumns()
    for b in batches:
        arr = np.asarray(b, dtype=np.int64)
        cols.extend(arr, arr * 10.0, arr * 0.5)
    step, wall, value = cols.columns()
    assert step.tolist() == one_by_one(batches)
    assert np.array_equal(wall, step * 10.0) and np.array_equal(value, step * 0.5)


def test_restart_keeps_older_session_below_restart_step() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(100), np.zeros(100), np.zeros(100))
    cols.extend(np.arange(60, 120), np.ones(60), np.ones(60))
    step, wall, value = cols.columns()
    assert step.tolist() == list(range(120))
    assert value[:60].sum() == 0 and value[60:].sum() == 60


def test_no_preemption_keeps_everything_in_step_order() -> None:
    cols = ScalarColumns()
    cols.extend(np.array([0, 1, 2, 3]), np.zeros(4), np.array([0.0, 1, 2, 3]), preempt=False)
    cols.extend(np.array([2, 3]), np.zeros(2), np.array([20.0, 30]), preempt=False)
    step, _, value = cols.columns()
    assert step.tolist() == [0, 1, 2, 2, 3, 3]
    assert value.tolist() == [0, 1, 2, 20, 3, 30]


def test_purge_drops_steps_at_and_after() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(10), np.zeros(10), np.arange(10.0))
    assert cols.purge(4) == 6
    assert cols.columns()[0].tolist() == [0, 1, 2, 3]
    assert cols.purge(100) == 0


def test_cold_fill_holds_24_bytes_a_point() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(1000), np.zeros(1000), np.zeros(1000))
    assert cols.nbytes == 24 * 1000


def test_nan_and_inf_are_kept() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(3), np.zeros(3), np.array([np.nan, np.inf, -np.inf]))
    v = cols.columns()[2]
    assert np.isnan(v[0]) and v[1] == np.inf and v[2] == -np.inf


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
    store._PLANS.clear()
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
    assert 0 < len(store._PLANS) <= len(batches)


def test_columns_grow_in_place_or_by_copy_and_keep_every_point() -> None:
    """Appends after an exact cold fill grow the columns (in place when nothing views them, by a
    copy when something does); every point stays, and an outstanding view keeps its values."""
    cols = ScalarColumns()
    cols.extend(np.arange(1000), np.arange(1000) * 0.5, -np.arange(1000.0))
    assert cols.nbytes == 24 * 1000  # the cold fill is exact
    held = cols._step[:10]  # something viewing the step column: its growth must copy
    for lo in range(1000, 5000, 700):
        n = min(700, 5000 - lo)
        cols.extend(np.arange(lo, lo + n), np.arange(lo, lo + n) * 0.5, -np.arange(lo, lo + n, dtype=float))
    step, wall, value = cols.columns()
    assert step.tolist() == list(range(5000))
    assert wall.tolist() == (np.arange(5000) * 0.5).tolist() and value.tolist() == (-np.arange(5000.0)).tolist()
    assert held.tolist() == list(range(10))
