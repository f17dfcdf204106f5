"""Columnar scalar series: preemption as if point by point, every point kept."""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.reader.runs import columns as columns_module
from tbnb.reader.runs import columns_pack
from tbnb.reader.runs.columns import COMPACT_MIN, ScalarColumns


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


def test_cold_fill_of_a_regular_float32_series_holds_12_bytes_a_point() -> None:
    """Steps by a stride (no bytes), wall times float64, values float32 (what simple_value holds)."""
    cols = ScalarColumns()
    values = np.random.default_rng(0).normal(size=1000).astype(np.float32).astype(np.float64)
    cols.extend(np.arange(5, 5 + 10 * 1000, 10), np.arange(1000) * 0.5, values)
    assert cols.nbytes == 12 * 1000
    step, wall, value = cols.columns()
    assert step.dtype == np.int64 and value.dtype == np.float64
    assert step.tolist() == list(range(5, 10005, 10)) and np.array_equal(value, values)


def test_a_short_series_stays_plain_until_it_grows_past_compact_min() -> None:
    """Live appends: 24 bytes a point while short (no checks for a sweep's many short series),
    12 once COMPACT_MIN points are held, and appends keep it so."""
    cols = ScalarColumns()
    values = np.random.default_rng(1).normal(size=4 * COMPACT_MIN).astype(np.float32).astype(np.float64)
    cols.extend(np.arange(10), np.zeros(10), values[:10])
    assert cols.nbytes == 24 * 10
    for lo in range(10, 4 * COMPACT_MIN, 50):
        hi = min(lo + 50, 4 * COMPACT_MIN)
        cols.extend(np.arange(lo, hi), np.zeros(hi - lo), values[lo:hi])
    assert cols.n == 4 * COMPACT_MIN
    assert cols.nbytes <= 12 * int(cols.n * 1.5)  # capacity grows by half at most
    assert cols._step is None and cols._value.dtype == np.float32
    step, _, value = cols.columns()
    assert step.tolist() == list(range(4 * COMPACT_MIN)) and np.array_equal(value, values)


@pytest.mark.parametrize("n", [1, 2, 50])
def test_a_short_series_of_float32_values_is_compact_from_its_first_fill(n: int) -> None:
    """A sweep's short series, decoded from float32s on the wire: 12 bytes a point at once, and
    20 with irregular steps; later appends (float32 or not) keep every value exactly."""
    values = np.random.default_rng(2).normal(size=n).astype(np.float32)
    cols = ScalarColumns()
    cols.extend(np.arange(3, 3 + 5 * n, 5), np.arange(n) * 0.5, values)
    assert cols.nbytes == 12 * n
    irregular = ScalarColumns()
    irregular.extend(np.arange(n) ** 2 + np.arange(n), np.zeros(n), values)
    assert irregular.nbytes == (12 if n <= 2 else 20) * n  # (two points are always a progression)
    cols.extend(np.array([3 + 5 * n]), np.array([1.0]), np.array([0.1]))  # a double: the column widens
    step, _, value = cols.columns()
    assert step.tolist() == list(range(3, 3 + 5 * (n + 1), 5))
    assert value.tolist() == values.astype(np.float64).tolist() + [0.1]


def test_a_progression_of_its_own_is_one_only_without_wrap_around() -> None:
    from tbnb.reader.runs.columns import _own_stride

    assert _own_stride(np.array([7])) == 0
    assert _own_stride(np.array([5, 15, 25])) == 10
    assert _own_stride(np.array([5, 15, 26])) is None and _own_stride(np.array([5, 5, 5])) is None
    big = 2**62 - 10
    wraps = (big + 2**61 * np.arange(4, dtype=np.uint64).astype(np.int64)).astype(np.int64)  # the last wraps
    assert (np.diff(wraps) == 2**61).all() and wraps[-1] < 0
    assert _own_stride(wraps) is None
    cols = ScalarColumns()
    cols.extend(wraps, np.zeros(4), np.zeros(4, dtype=np.float32), preempt=False)
    assert cols.columns()[0].tolist() == sorted(wraps.tolist())  # (points come out in step order)


def test_irregular_steps_and_double_values_take_24_bytes_a_point_and_lose_nothing() -> None:
    cols = ScalarColumns()
    steps = np.array([0, 1, 3, 4, 9] * 200) + np.repeat(np.arange(200) * 10, 5)
    values = np.full(1000, 0.1)  # not a float32
    cols.extend(steps, np.zeros(1000), values)
    assert cols.nbytes == 24 * 1000
    step, _, value = cols.columns()
    assert step.tolist() == steps.tolist() and value.tolist() == [0.1] * 1000


def test_nan_and_inf_are_kept() -> None:
    cols = ScalarColumns()
    cols.extend(np.arange(3), np.zeros(3), np.array([np.nan, np.inf, -np.inf]))
    v = cols.columns()[2]
    assert np.isnan(v[0]) and v[1] == np.inf and v[2] == -np.inf


def test_columns_grow_in_place_or_by_copy_and_keep_every_point() -> None:
    """Appends after an exact cold fill grow the columns (in place when nothing views them, by a
    copy when something does); every point stays, and an outstanding view keeps its values."""
    cols = ScalarColumns()
    cols.extend(np.arange(1000), np.arange(1000) * 0.5, -np.arange(1000.0))
    assert cols.nbytes == 12 * 1000  # the cold fill is exact (regular steps, float32 values)
    held = cols._wall[:10]  # something viewing the wall time column: its growth must copy
    for lo in range(1000, 5000, 700):
        n = min(700, 5000 - lo)
        cols.extend(np.arange(lo, lo + n), np.arange(lo, lo + n) * 0.5, -np.arange(lo, lo + n, dtype=float))
    step, wall, value = cols.columns()
    assert step.tolist() == list(range(5000))
    assert wall.tolist() == (np.arange(5000) * 0.5).tolist() and value.tolist() == (-np.arange(5000.0)).tolist()
    assert held.tolist() == (np.arange(10) * 0.5).tolist()


class Reference:
    """Every rule one point at a time, in plain lists: what ScalarColumns must hold."""

    def __init__(self) -> None:
        self.points: list[tuple[int, float, float]] = []

    def extend(self, steps, walls, values, preempt: bool = True) -> None:
        for s, w, v in zip(steps.tolist(), walls.tolist(), values.tolist()):
            if preempt:
                self.points = [p for p in self.points if p[0] < s]
            self.points.append((s, w, v))

    def purge(self, step: int) -> int:
        before = len(self.points)
        self.points = [p for p in self.points if p[0] < step]
        return before - len(self.points)

    def columns(self):
        ordered = sorted(self.points, key=lambda p: p[0])  # stable: equal steps keep arrival order
        return [p[0] for p in ordered], [p[1] for p in ordered], [p[2] for p in ordered]


def _batch(rng: np.random.Generator, next_step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = int(rng.integers(0, 40))
    kind = rng.integers(0, 4)
    if kind == 0:  # the progression goes on (most polls)
        steps = next_step + np.arange(m) * int(rng.choice([1, 1, 10]))
    elif kind == 1:  # a restart below, or a gap
        steps = int(rng.integers(next_step - 30, next_step + 30)) + np.arange(m)
    else:  # anything, duplicates and huge steps included
        steps = rng.choice([rng.integers(0, 60, m), rng.integers(-2**62, 2**62, m)]).astype(np.int64)
    values = rng.normal(size=m)
    if rng.random() < 0.6:
        values = values.astype(np.float32).astype(np.float64)  # as simple_value writes them
    if m and rng.random() < 0.3:
        values[rng.integers(0, m)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 1e300, 1e-310])
    if rng.random() < 0.4:
        with np.errstate(over="ignore"):  # (1e300 becomes inf, as it would on the wire)
            values = values.astype(np.float32)  # as the bulk decoder hands float32s on the wire
    return steps.astype(np.int64), rng.normal(size=m) * 1e9, values


_EXTREMES = [-(1 << 63), -(1 << 63) + 1, -(1 << 62), -1, 0, 1, 14, 1 << 62, (1 << 63) - 1]


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_steps_at_the_ends_of_int64_preempt_as_point_by_point(seed: int, dtype: type) -> None:
    """Steps whose differences pass int64's range (a step of -2**63 after step 14: the fuzz run
    found one such series held whole on a first fill of float32 values, the difference wrapping
    to a step up) preempt as one point at a time does, whatever the values' type."""
    rng = np.random.default_rng(seed)
    batches = [[0, *range(1, 15), -(1 << 63)]] if seed == 0 else [
        [int(rng.choice(_EXTREMES)) if rng.random() < 0.5 else int(rng.integers(-20, 20))
         for _ in range(int(rng.integers(1, 12)))] for _ in range(3)]
    cols = ScalarColumns()
    for b in batches:
        arr = np.asarray(b, dtype=np.int64)
        cols.extend(arr, np.arange(len(arr), dtype=np.float64), np.ones(len(arr), dtype=dtype))
    assert cols.columns()[0].tolist() == sorted(one_by_one(batches))
    if len(one_by_one(batches)) > 1:
        assert cols.purge(int(one_by_one(batches)[1])) == len(one_by_one(batches)) - 1


@pytest.mark.parametrize("compact_min", [1, 2, 16, columns_module.COMPACT_MIN])
@pytest.mark.parametrize("seed", range(60))
def test_compact_columns_hold_what_plain_lists_hold(seed: int, compact_min: int, monkeypatch) -> None:
    """Generated polls (progressions, restarts, gaps, duplicates, purges, float32 and double
    values, NaN and infinities) give the same points as the one-by-one reference, bit for bit,
    whenever the series is made compact."""
    monkeypatch.setattr(columns_module, "COMPACT_MIN", compact_min)
    rng = np.random.default_rng(seed)
    preempt = bool(rng.random() < 0.8)
    cols, ref = ScalarColumns(), Reference()
    next_step = int(rng.integers(-5, 5))
    for _ in range(int(rng.integers(1, 8))):
        if rng.random() < 0.15:
            at = int(rng.integers(-10, 80))
            assert cols.purge(at) == ref.purge(at)
            continue
        steps, walls, values = _batch(rng, next_step)
        cols.extend(steps, walls, values, preempt)
        ref.extend(steps, walls, values, preempt)
        if len(steps):
            next_step = min(max(int(steps[-1]) + 1, -100), 10**6)
        assert cols.n == len(ref.points)
    step, wall, value = cols.columns()
    want_step, want_wall, want_value = ref.columns()
    assert step.dtype == np.int64 and wall.dtype == np.float64 and value.dtype == np.float64
    assert step.tolist() == want_step
    assert wall.tolist() == want_wall
    want = np.array(want_value, dtype=np.float64)
    assert np.array_equal(value, want, equal_nan=True)
    assert np.array_equal(np.signbit(value), np.signbit(want))  # -0.0 stays -0.0


def _grown(rng: np.random.Generator, cols: ScalarColumns, polls: int, preempt: bool) -> None:
    next_step = cols._last_step() + 1 if cols.n else int(rng.integers(-5, 5))
    for _ in range(polls):
        if rng.random() < 0.15:
            cols.purge(int(rng.integers(-10, 80)))
            continue
        steps, walls, values = _batch(rng, next_step)
        cols.extend(steps, walls, values, preempt)
        if len(steps):
            next_step = min(max(int(steps[-1]) + 1, -100), 10**6)


def _form(cols: ScalarColumns) -> tuple[object, ...]:
    return (cols.n, cols._step is None, cols._start if cols._step is None else None, cols._stride,
            cols._value.dtype.str, cols._compact)


def _assert_same_series(a: ScalarColumns, b: ScalarColumns, form: bool = True) -> None:
    assert not form or _form(a) == _form(b)
    for x, y in zip(a.columns(), b.columns()):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()  # bit for bit (NaN, -0.0)


@pytest.mark.parametrize("seed", range(12))
def test_series_packed_and_unpacked_or_pickled_are_the_same_and_grow_alike(seed: int) -> None:
    """``pack``/``unpack`` (a forked reload's way back) and pickling keep every series as it was
    (its points and how they are stored); each series taken back then grows, purges and narrows
    as the original does, and writing to one never touches its neighbours in the packed arrays."""
    import pickle

    rng = np.random.default_rng(500 + seed)
    series = []
    for _ in range(30):
        cols = ScalarColumns()
        _grown(rng, cols, int(rng.integers(0, 6)), bool(rng.random() < 0.8))
        series.append(cols)
    unpacked = columns_pack.unpack(columns_pack.pack(series))
    pickled = pickle.loads(pickle.dumps(series, protocol=pickle.HIGHEST_PROTOCOL))
    for a, b, c in zip(series, unpacked, pickled):
        _assert_same_series(a, b)
        _assert_same_series(a, c)
        assert b.nbytes == c.nbytes <= a.nbytes  # the held points only, no spare capacity
    state = rng.bit_generator.state
    for cols in series:
        _grown(rng, cols, 4, True)
    for copies in (unpacked, pickled):
        rng.bit_generator.state = state  # the same polls again
        for cols in copies:
            _grown(rng, cols, 4, True)
        for a, b in zip(series, copies):
            # (the same points; how they are then stored may differ: a series emptied by a purge
            # refills compact only when it holds no spare capacity, which a packed one never does)
            _assert_same_series(a, b, form=False)


def test_nothing_packed_unpacks_to_nothing() -> None:
    assert columns_pack.unpack(columns_pack.pack([])) == []
    one = columns_pack.unpack(columns_pack.pack([ScalarColumns()]))[0]
    one.extend(np.array([3, 4]), np.array([1.0, 2.0]), np.array([0.5, 0.25], dtype=np.float32))
    assert one.columns()[0].tolist() == [3, 4]
