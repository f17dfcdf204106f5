"""Scalar series as columns, with step preemption, in 12 bytes a point where the log allows.

Scalars keep every point, never sampled away, in three columns:

- steps as a start and a stride while they are regular (most logs write a step counter that
  moves by one, or by the logging interval: no bytes a point), an int64 column from the first
  point that breaks the progression;
- wall times as written (float64);
- values in float32 while every value is one exactly (a TF1 ``simple_value`` is a float32 on
  the wire, and so are TF2 scalars of dtype float), float64 from the first that is not: no value
  is ever rounded.

So a regular float32 series holds 12 bytes a point (24 with a plain int64/float64 layout);
``columns()`` hands out int64 steps and float64 values whatever is held. A series starts plain
and is compacted when it reaches COMPACT_MIN points (once; from then on each append keeps it
compact as far as its points allow): the checks cost a few microseconds a series, which a
logdir of tens of thousands of short series (a sweep) would pay on every one for little. A
series whose first points come as float32 values (the bulk decoder hands them so when each was
a float32 on the wire) is compact from its first fill, whatever its length: its values need no
check, and its steps one cheap pass (``_own_stride``).

Preemption (TensorBoard's Rust loader, always on unless purging is turned off): a point at step
``s`` drops the points already held at steps ``>= s``, so restarts and re-written steps look
right with no special cases.
"""

from __future__ import annotations

import numpy as np

_GROWTH = 1.5
#: Points at which a series is made compact (see the module docstring).
COMPACT_MIN = 256


def float32_exact(values: np.ndarray) -> np.ndarray | None:
    """``values`` as float32 if that loses nothing (NaN stays NaN; infinities and signed zeros
    are float32s), else None."""
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = values.astype(np.float32)
        same = narrow.astype(np.float64) == values
    if same.all() or (same | np.isnan(values)).all():
        return narrow
    return None


def _progression(steps: np.ndarray, first: int, stride: int, offset: int) -> int | None:
    """``stride`` if ``steps`` are points ``offset``, ``offset + 1``, ... of ``first + stride * i``,
    else None (int64 arithmetic wraps alike here and in ``ScalarColumns._steps``, so whatever
    matches is exact)."""
    if stride <= 0 or stride >= 1 << 62 or abs(first) >= 1 << 62:
        return None
    expect = first + stride * np.arange(offset, offset + len(steps), dtype=np.int64)
    return stride if np.array_equal(expect, steps) else None


def _own_stride(steps: np.ndarray, d: np.ndarray | None = None) -> int | None:
    """The stride of ``steps`` as a progression of their own: 0 for one point (no stride yet),
    None if they are not one; in one pass over their differences (``d``, if the caller has them).
    Equal differences are a progression only without int64 wrap-around, checked at the end."""
    if len(steps) == 1:
        return 0
    if d is None:
        d = steps[1:] - steps[:-1]
    first = int(steps[0])
    stride = int(d[0])
    if stride <= 0 or stride >= 1 << 62 or abs(first) >= 1 << 62 or not bool((d == stride).all()):
        return None
    return stride if int(steps[-1]) == first + stride * (len(steps) - 1) else None


class ScalarColumns:
    """One scalar series: step, wall_time and value columns with amortised appends.

    Plain (int64 steps, float64 values) until ``_compact``; from then on ``_step`` is None while
    the steps are regular (point i is at ``_start + _stride * i``; ``_stride`` is None until a
    second point fixes it, and always positive) and ``_value`` is float32 while every value is one.
    """

    __slots__ = ("_compact", "_start", "_step", "_stride", "_value", "_wall", "n")

    def __init__(self) -> None:
        self._step: np.ndarray | None = np.empty(0, dtype=np.int64)
        self._start = 0
        self._stride: int | None = None
        self._wall = np.empty(0, dtype=np.float64)
        self._value = np.empty(0, dtype=np.float64)
        self.n = 0
        self._compact = False

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickled as the held points' bytes (no spare capacity): an executor's tasks send their
        runs back pickled (``tasks``), and the slots' and arrays' own pickling cost ~30 µs a
        series to dump and ~10 µs to load (~7 and ~5 µs this way). A forked reload packs its
        series instead (``pack``)."""
        n, start, stride, compact, step, wall, value = self.parts()
        return (_unpickled, (n, start, stride, compact, None if step is None else (step.dtype.str, step.tobytes()),
                             (wall.dtype.str, wall.tobytes()), (value.dtype.str, value.tobytes())))

    def parts(self) -> tuple[int, int, int | None, bool, np.ndarray | None, np.ndarray, np.ndarray]:
        """What the columns hold, as held (no spare capacity, no copy): ``n``, the progression's
        start and stride, compact or not, the step column (None for a progression), wall times
        and values. ``from_parts`` makes columns of them again (``__reduce__``, ``columns_pack``)."""
        n, step = self.n, self._step
        return (n, self._start, self._stride, self._compact, None if step is None else step[:n],
                self._wall[:n], self._value[:n])

    @classmethod
    def from_parts(cls, n: int, start: int, stride: int | None, compact: bool, step: np.ndarray | None,
                   wall: np.ndarray, value: np.ndarray) -> ScalarColumns:
        """Columns holding exactly these arrays (``parts``): views are fine, as a view has no
        spare capacity and the first append copies it (``_reserve``)."""
        cols = cls.__new__(cls)
        cols.n, cols._start, cols._stride, cols._compact = n, start, stride, compact
        cols._step, cols._wall, cols._value = step, wall, value
        return cols

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns, spare capacity included."""
        return (0 if self._step is None else self._step.nbytes) + self._wall.nbytes + self._value.nbytes

    # -- steps -------------------------------------------------------------------------------------

    def _steps(self) -> np.ndarray:
        """The held steps (a view of the column, or the progression written out)."""
        if self._step is not None:
            return self._step[: self.n]
        return self._start + (self._stride or 1) * np.arange(self.n, dtype=np.int64)

    def _last_step(self) -> int:
        if self._step is not None:
            return int(self._step[self.n - 1])
        return self._start + (self._stride or 1) * (self.n - 1)

    def _continues(self, steps: np.ndarray) -> int | None:
        """The stride with which ``steps`` continue the held progression (start one when none
        is held), or None if they do not."""
        if self.n == 0:
            return _own_stride(steps)
        stride = self._stride if self._stride is not None else int(steps[0]) - self._start
        return _progression(steps, self._start, stride, self.n)

    def _write_steps(self, steps: np.ndarray) -> None:
        """Steps of the points about to be appended at ``n`` (the columns have room for them)."""
        if self._step is None:
            stride = self._continues(steps)
            if stride is not None:
                if self.n == 0:  # a new progression (the first fill, or after a purge of all)
                    self._start, self._stride = int(steps[0]), None
                if stride:
                    self._stride = stride
                return
            held = self._steps()
            self._step = np.empty(max(len(self._wall), self.n + len(steps)), dtype=np.int64)
            self._step[: self.n] = held
        self._step[self.n : self.n + len(steps)] = steps

    # -- values ------------------------------------------------------------------------------------

    def _narrowed(self, values: np.ndarray) -> np.ndarray:
        """``values`` in the value column's dtype, widening the column first if float32 would
        round one of them."""
        if isinstance(values, np.ndarray) and values.dtype == np.float32:
            return values  # float32s: exact in either column
        values = np.asarray(values, dtype=np.float64)
        if self._value.dtype == np.float32:
            narrow = float32_exact(values)
            if narrow is not None:
                return narrow
            wide = np.empty(len(self._value), dtype=np.float64)
            wide[: self.n] = self._value[: self.n]
            self._value = wide
        return values

    # -- growth ------------------------------------------------------------------------------------

    def _reserve(self, extra: int) -> None:
        need = self.n + extra
        cap = len(self._wall)
        if need <= cap:
            return
        # Exact on the first fill (a cold load appends a whole file at once), geometric
        # afterwards so that live appends stay amortised.
        new_cap = need if cap == 0 else max(need, int(cap * _GROWTH))
        for name in ("_step", "_wall", "_value"):
            old = getattr(self, name)
            if old is None:
                continue
            try:  # realloc where it lies (often without a copy); numpy refuses if it is viewed
                old.resize(new_cap)
            except ValueError:
                new = np.empty(new_cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)

    def purge(self, step: int) -> int:
        """Drop the points at steps ``>= step``; return how many were dropped."""
        if self.n == 0:
            return 0
        if self._step is None:  # increasing: a cut
            keep = 0 if step <= self._start else min(self.n, -(-(step - self._start) // (self._stride or 1)))
            dropped, self.n = self.n - keep, keep
            return dropped
        held = self._step[: self.n]
        keep = int(np.count_nonzero(held < step))
        if keep == self.n:
            return 0
        if bool((held[1:] > held[:-1]).all()):  # sorted (the usual case): a cut
            dropped, self.n = self.n - keep, keep
            return dropped
        mask = held < step
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
        first_float32 = self.n == 0 and len(self._wall) == 0 and getattr(values, "dtype", None) == np.float32
        if first_float32 and self._fill_compact(steps, walls, values):  # increasing: nothing to drop
            return
        if preempt and (m == 1 or bool((steps[1:] > steps[:-1]).all())) and not (
                self.n and self._last_step() >= steps[0]):
            preempt = False  # increasing steps after the held ones (the usual case): nothing to drop
        if preempt:
            suffix_min = np.minimum.accumulate(steps[::-1])[::-1]
            keep = np.ones(m, dtype=bool)
            keep[:-1] = steps[:-1] < suffix_min[1:]
            # Preempted series hold increasing steps: only a batch reaching back below the last
            # held step purges (a check of one value, not of every held point, on each poll).
            if self.n and self._last_step() >= suffix_min[0]:
                self.purge(int(suffix_min[0]))
            if not keep.all():
                steps, walls, values = steps[keep], np.asarray(walls)[keep], np.asarray(values)[keep]
                m = len(steps)
        if not self._compact:
            if first_float32:  # (preempted: still no point held)
                self._fill_compact(steps, walls, values, increasing=False)
                return
            self._append_plain(steps, walls, values)
            if self.n >= COMPACT_MIN:
                self._make_compact()
            return
        values = self._narrowed(values)
        self._reserve(m)
        self._write_steps(steps)
        end = self.n + m
        self._wall[self.n : end] = walls
        self._value[self.n : end] = values
        self.n = end

    def _append_plain(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray) -> None:
        m = len(steps)
        if self.n == 0 and len(self._wall) == 0:
            # The first fill (a cold load appends each series once): copies of the batch's
            # columns (so as not to keep the batch's arrays alive) become the series'.
            self._step = np.array(steps, dtype=np.int64)
            self._wall = np.array(walls, dtype=np.float64)
            self._value = np.array(values, dtype=np.float64)
            self.n = m
            return
        self._reserve(m)
        end = self.n + m
        self._step[self.n : end] = steps
        self._wall[self.n : end] = walls
        self._value[self.n : end] = values
        self.n = end

    def _fill_compact(self, steps: np.ndarray, walls: np.ndarray, values: np.ndarray, increasing: bool = True) -> bool:
        """The first fill with float32 values, compact at once (in copies of the batch's
        columns); with ``increasing``, only if its steps increase (else False: nothing done, the
        caller preempts first)."""
        stride = 0 if len(steps) == 1 else None
        if stride is None:
            d = steps[1:] - steps[:-1]
            stride = _own_stride(steps, d)  # (a stride is positive: increasing)
            # (compared, not by the sign of ``d``: a difference past int64 wraps around, and a
            # step of -2**63 after step 14 would look like a step up)
            if stride is None and increasing and not bool((steps[1:] > steps[:-1]).all()):
                return False
        self.set_compact_first(steps, stride, walls, values)
        return True

    def set_compact_first(self, steps: np.ndarray, stride: int | None, walls: np.ndarray, values: np.ndarray,
                          copy: bool = True) -> None:
        """Hold a first fill of increasing steps and float32 values, compact: steps as the
        progression ``stride`` (0 for one point) when they are one (``_own_stride``), else
        copied. The one place the compact first fill is written (``_fill_compact``, and the
        many-run reload, which finds the strides of all its series at once).

        ``copy=False`` holds ``walls`` and ``values`` themselves when they are float64 and
        float32 already: the many-run reload's are slices of arrays made for its series alone
        (a view has no spare capacity, so the first append copies it, ``_reserve``)."""
        self._compact = True
        if stride is not None:
            self._start, self._stride, self._step = int(steps[0]), stride or None, None
        else:
            self._start, self._stride, self._step = 0, None, np.array(steps, dtype=np.int64)
        held = np.array if copy else np.asarray
        self._wall = held(walls, dtype=np.float64)
        self._value = held(values, dtype=np.float32)
        self.n = len(steps)

    @classmethod
    def compact_first(cls, steps: np.ndarray, stride: int | None, walls: np.ndarray,
                      values: np.ndarray) -> ScalarColumns:
        """New columns holding ``set_compact_first(..., copy=False)`` (without the empty columns
        ``__init__`` makes: the many-run reload makes a hundred thousand of these)."""
        cols = cls.__new__(cls)
        cols.set_compact_first(steps, stride, walls, values, copy=False)
        return cols

    def _make_compact(self) -> None:
        """Steps as a progression if they are one, values as float32 if each is one (once)."""
        self._compact = True
        held, n = self._step[: self.n], self.n
        stride = _own_stride(held)
        if stride is not None:
            self._start, self._stride, self._step = int(held[0]), stride or None, None
        narrow = float32_exact(self._value[:n])
        if narrow is not None:
            self._value = np.empty(len(self._wall), dtype=np.float32)
            self._value[:n] = narrow

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the three columns (int64 steps, float64 wall times and values), in step
        order (stable, so equal steps keep arrival order)."""
        step, wall = self._steps(), self._wall[: self.n]
        value = self._value[: self.n].astype(np.float64)  # a copy in any dtype
        if self._step is not None and self.n > 1 and not np.all(step[1:] >= step[:-1]):
            order = np.argsort(step, kind="stable")
            return step[order], wall[order], value[order]
        return step.copy() if self._step is not None else step, wall.copy(), value


def _unpickled(n: int, start: int, stride: int | None, compact: bool, step: tuple[str, bytes] | None,
               wall: tuple[str, bytes], value: tuple[str, bytes]) -> ScalarColumns:
    """A ``ScalarColumns`` from what ``__reduce__`` made (writable copies of the bytes)."""
    return ScalarColumns.from_parts(n, start, stride, compact,
                                    None if step is None else np.frombuffer(step[1], dtype=step[0]).copy(),
                                    np.frombuffer(wall[1], dtype=wall[0]).copy(),
                                    np.frombuffer(value[1], dtype=value[0]).copy())
