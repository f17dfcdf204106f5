"""Each rule on curves placed just inside and just outside its threshold.

The curves are piecewise linear through chosen knots and read with one chunk per point
(``bins = len(curve)``), so the quantities a rule compares are exactly the knots' values; a
margin of a few percent either side of a threshold is then a margin in the curve itself, not in
how the curve was summarised. The default chunking is covered by the diagnose tests.
"""

from __future__ import annotations

import numpy as np
import pytest

from tbnb.reader.plugins.diagnostics.rules import Settings, is_range_test, lr_finding, pair_finding

N = 101  # points 0..100: the first half ends at 50, the last fifth starts at 80


def knots(*points: tuple[int, float]) -> np.ndarray:
    """A curve of N points, linear between ``(index, value)`` knots."""
    xs, ys = zip(*points)
    return np.interp(np.arange(N), xs, ys)


def lr(curve: np.ndarray, **changes: object) -> str | None:
    s = Settings.of(bins=len(curve), **changes)
    found = lr_finding("r", "loss", np.arange(len(curve)) * 10, curve, s)
    return None if found is None else found["finding"]


def lr_step(curve: np.ndarray, **changes: object) -> int:
    found = lr_finding("r", "loss", np.arange(len(curve)) * 10, curve, Settings.of(bins=len(curve), **changes))
    assert found is not None
    return found["step"]


def test_healthy_loss_gets_nothing() -> None:
    t = np.arange(N)
    assert lr(2.3 * np.exp(-t / 8) + 0.02) is None


# -- lr_too_high ---------------------------------------------------------------------------------

def test_non_finite_point() -> None:
    curve = 2.3 * np.exp(-np.arange(N) / 8) + 0.02
    curve[40] = np.nan
    assert lr(curve) == "lr_too_high" and lr_step(curve) == 400
    curve[40], curve[60] = 1.0, np.inf
    assert lr_step(curve) == 600


@pytest.mark.parametrize(("factor", "expected"), [(3.03, "lr_too_high"), (2.97, None)])
def test_explode_factor(factor: float, expected: str | None) -> None:
    curve = 2.0 * np.exp(-np.arange(N) / 8) + 0.02
    curve[30] = factor * curve[0]  # one point; then back to a healthy fall
    assert lr(curve, rise=10.0) == expected  # the rise rule would also see the lone point here


@pytest.mark.parametrize(("level", "expected"), [(1.12, "lr_too_high"), (1.08, None)])
def test_rise_above_start(level: float, expected: str | None) -> None:
    curve = knots((0, 1.0), (9, 1.0), (10, level), (29, level), (30, 1.0), (40, 0.05), (100, 0.02))
    assert lr(curve) == expected
    if expected:
        assert lr_step(curve) == 100


@pytest.mark.parametrize(("end", "expected"), [(0.96, "lr_too_high"), (0.94, "lr_high")])
def test_stuck_at_start_after_spikes(end: float, expected: str) -> None:
    curve = knots((0, 1.0), (2, 1.0), (3, 1.6), (4, end), (100, end))
    assert lr(curve, rise=1.0) == expected  # below ``stuck``: a fall and a plateau, not stuck
    if expected == "lr_too_high":
        assert lr_step(curve, rise=1.0) == 30  # the spike


def test_spike_size() -> None:
    curve = knots((0, 1.0), (2, 1.0), (3, 1.52), (4, 0.97), (100, 0.97))
    assert lr(curve, rise=1.0) == "lr_too_high"
    curve[3] = 1.48
    assert lr(curve, rise=1.0) == "lr_low"  # no spike: it barely moved


# -- lr_low --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("end", "expected"), [(0.952, "lr_low"), (0.948, None)])
def test_barely_moves(end: float, expected: str | None) -> None:
    # a drop at once, then flat: only ``barely`` can call it (lr_high switched off)
    curve = knots((0, 1.0), (1, end), (100, end))
    assert lr(curve, high_level=2.0) == expected


@pytest.mark.parametrize(("half", "expected"), [(0.73, "lr_low"), (0.77, None)])
def test_linear_fall_first_half(half: float, expected: str | None) -> None:
    # fall 0.5 in all: ``half`` of it by point 50, then linear; last fifth gives 0.4 * (1 - half)
    curve = knots((0, 1.0), (50, 1.0 - 0.5 * half), (100, 0.5))
    assert lr(curve, low_last_fifth=0.05) == expected


@pytest.mark.parametrize(("fifth", "expected"), [(0.11, "lr_low"), (0.09, None)])
def test_still_falling_at_the_end(fifth: float, expected: str | None) -> None:
    curve = knots((0, 1.0), (50, 0.75), (80, 0.5 + 0.5 * fifth), (100, 0.5))
    assert lr(curve) == expected
    if expected:
        assert lr_step(curve) == 1000  # the last step: it is still falling there


# -- lr_high -------------------------------------------------------------------------------------

def high(drop_end: int = 20, level: float = 0.4, tail: float = 0.0) -> np.ndarray:
    """A fall from 1 to ``level`` by point ``drop_end`` (half of it by ``drop_end / 2``), then a
    plateau whose second half falls ``tail`` of the whole fall."""
    fall = 1.0 - level
    return knots((0, 1.0), (drop_end, level + tail * fall), (50, level + tail * fall), (100, level))


def test_lr_high_fires_where_the_plateau_starts() -> None:
    assert lr(high()) == "lr_high"
    assert lr_step(high()) == 200


@pytest.mark.parametrize(("drop_end", "expected"), [(20, "lr_high"), (22, None)])
def test_fast_fall(drop_end: int, expected: str | None) -> None:
    assert lr(high(drop_end=drop_end)) == expected  # half of the fall by point 10 = 10% of the run


@pytest.mark.parametrize(("level", "expected"), [(0.31, "lr_high"), (0.29, None)])
def test_plateau_level(level: float, expected: str | None) -> None:
    assert lr(high(level=level)) == expected


@pytest.mark.parametrize(("tail", "expected"), [(0.028, "lr_high"), (0.032, None)])
def test_plateau_flat(tail: float, expected: str | None) -> None:
    assert lr(high(drop_end=19, tail=tail)) == expected  # 19: halfway by point 10 in both


def test_few_points_or_non_positive_losses_are_not_judged() -> None:
    assert lr(np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])) is None  # under min_points
    assert lr(np.linspace(0.0, -5.0, N)) is None  # a negative "loss" (an ELBO)


def test_range_test() -> None:
    s = Settings()
    assert is_range_test(np.geomspace(1e-6, 1.0, 50), s)
    assert not is_range_test(np.full(50, 0.1), s)
    assert not is_range_test(np.geomspace(1e-3, 5e-2, 50), s)  # x50: a warm-up, not a range test
    # a warm-up from 1e-6 to 1, then a decay to 1e-3: grew 1000x but not steadily
    assert not is_range_test(np.r_[np.geomspace(1e-6, 1.0, 25), np.geomspace(0.5, 1e-3, 25)], s)


# -- pair rules ----------------------------------------------------------------------------------

def pair(metric: str, train: np.ndarray, val: np.ndarray, **changes: object) -> dict | None:
    steps = np.arange(len(val)) * 100
    return pair_finding("r", metric, (steps, train), (steps, val), Settings.of(**changes),
                        (f"{metric}/train", f"{metric}/val"))


def overfit(worse: float = 0.12, after: int = 5, train_gain: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Validation falling to 0.5 at point 10 - after... then rising to 0.5 * (1 + worse) over its
    last ``after`` points; training 0.3 at the best point, then ``train_gain`` lower at the end."""
    n = 15
    best = n - 1 - after
    val = np.r_[np.linspace(2.0, 0.5, best + 1), np.full(after, 0.5 * (1 + worse))]
    train = np.r_[np.linspace(2.0, 0.3, best + 1), np.full(after, 0.3 * (1 - train_gain))]
    return train, val


def test_overfitting_names_the_best_step() -> None:
    found = pair("loss", *overfit())
    assert found is not None and found["finding"] == "overfitting" and found["step"] == 900
    assert "best at step 900 (0.5)" in found["evidence"] and "0.56" in found["evidence"]
    assert "step 900" in found["advice"]


@pytest.mark.parametrize(("worse", "expected"), [(0.105, "overfitting"), (0.095, None)])
def test_overfit_worse(worse: float, expected: str | None) -> None:
    found = pair("loss", *overfit(worse=worse))
    assert (found and found["finding"]) == expected


@pytest.mark.parametrize(("after", "expected"), [(3, "overfitting"), (2, None)])
def test_overfit_after(after: int, expected: str | None) -> None:
    found = pair("loss", *overfit(after=after))
    assert (found and found["finding"]) == expected


@pytest.mark.parametrize(("gain", "expected"), [(0.055, "overfitting"), (0.045, None)])
def test_overfit_needs_training_to_improve(gain: float, expected: str | None) -> None:
    found = pair("loss", *overfit(train_gain=gain))
    assert (found and found["finding"]) == expected


def test_overfitting_of_an_accuracy() -> None:
    train, val = overfit(worse=0.12, train_gain=0.5)
    found = pair("Accuracy", 1.0 / train, 1.0 / val)  # higher is better; the same shape mirrored
    assert found is not None and found["finding"] == "overfitting" and found["step"] == 900
    assert pair("widgets", train, val) is None  # a name that says no direction: not judged


@pytest.mark.parametrize(("gap", "expected"), [(0.023, "no_gap"), (0.025, None)])
def test_no_gap(gap: float, expected: str | None) -> None:
    train = np.linspace(1.0, 0.2, 20)  # improvement 0.8; the threshold is 3% of it: 0.024
    found = pair("loss", train, train + gap)
    assert (found and found["finding"]) == expected
    if expected:
        assert found["step"] == 1900 and found["severity"] == "info"


def test_no_gap_needs_the_curves_together_to_the_end() -> None:
    train = np.linspace(1.0, 0.2, 20)
    val = train + np.r_[np.zeros(19), 0.1]  # apart at the last point only
    assert pair("loss", train, val) is None
    val = train + np.r_[np.zeros(12), 0.1, np.zeros(7)]  # apart once, within the last half
    assert pair("loss", train, val) is None
    val = train + np.r_[np.zeros(8), 0.1, np.zeros(11)]  # apart before the last half only
    assert (pair("loss", train, val) or {}).get("finding") == "no_gap"


def test_unknown_setting() -> None:
    with pytest.raises(TypeError, match="unknown diagnostic setting 'riser'"):
        Settings.of(riser=0.2)


def test_training_read_at_validation_steps() -> None:
    from tbnb.reader.plugins.diagnostics.curves import train_at

    t_step = np.array([1, 2, 3, 4, 5, 6, 12])
    t_value = np.array([9.0, 1.0, 2.0, 3.0, 8.0, 0.0, 7.0])
    got = train_at(np.array([0, 3, 6, 10, 12]), t_step, t_value)
    # before any training: NaN; (0, 3]: median of 9, 1, 2; (3, 6]: of 3, 8, 0; (6, 10]: none, the
    # last point before (0.0); (10, 12]: 7
    np.testing.assert_array_equal(got, [np.nan, 2.0, 3.0, 0.0, 7.0])
