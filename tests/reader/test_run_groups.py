"""Run groups' statistics against pandas on the same points: uneven steps, a run with a gap, a
repeated step, a single-run group, NaN and ±inf values; the grouping rules; the bands."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tbnb
from tbnb.reader.logdir.run_groups import BANDS, aggregate, group_runs, hparam_groups, t975
from tbnb.testing import EventWriter

PATTERN = r"(?P<group>.*)/seed_\d+"
T0 = 1_700_000_000.0


def write_logdir(root: Path) -> Path:
    """cfg_a: three seeds (every step; uneven steps with NaN, +inf, -inf and a repeated step; a
    gap of steps), cfg_b: one seed, "baseline": no seed (alone). Tags "loss" and "acc"."""
    rng = np.random.default_rng(7)
    series = {
        "cfg_a/seed_0": [(s, float(rng.normal())) for s in range(40)],
        "cfg_a/seed_1": [(0, 1.0), (3, math.nan), (5, 2.5), (9, math.inf), (12, -1.0), (12, -2.0), (17, 0.5),
                         (21, -math.inf), (30, 4.0), (45, 3.0)],
        "cfg_a/seed_2": [(s, float(rng.normal())) for s in [*range(2, 8), *range(25, 33)]],
        "cfg_b/seed_0": [(s, float(rng.normal())) for s in range(0, 50, 5)],
        "baseline": [(s, float(s)) for s in range(10)],
    }
    for run, points in series.items():
        with EventWriter(root / run, start_time=T0) as w:
            for i, (step, value) in enumerate(points):
                w.add_scalar("loss", value, step, wall_time=T0 + i)
                w.add_scalar("acc", value * 2 + 1, step, wall_time=T0 + i)
    return root


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> tbnb.Logdir:
    return tbnb.load(write_logdir(tmp_path_factory.mktemp("groups") / "logs"))


def pandas_reference(raw: pd.DataFrame, members: list[str], tag: str) -> pd.DataFrame:
    """The documented rule done in pandas: each member's finite points (the last of a repeated
    step), reindexed to the union of steps, linearly interpolated inside its own range only."""
    columns = {}
    for run in members:
        part = raw[(raw.run == run) & (raw.tag == tag)]
        s = part.drop_duplicates("step", keep="last").set_index("step")["value"].astype(float)
        columns[run] = s.replace([np.inf, -np.inf], np.nan).dropna()
    index = sorted(set().union(*(c.index for c in columns.values())))
    frame = pd.DataFrame({run: c.reindex(index).interpolate(method="index", limit_area="inside")
                          for run, c in columns.items()})
    return pd.DataFrame({"step": index, "mean": frame.mean(axis=1).to_numpy(), "std": frame.std(axis=1).to_numpy(),
                         "min": frame.min(axis=1).to_numpy(), "max": frame.max(axis=1).to_numpy(),
                         "median": frame.median(axis=1).to_numpy(), "n": frame.count(axis=1).to_numpy()})


def test_grouping_by_regex_keeps_unmatched_runs_alone() -> None:
    groups, alone = group_runs(["a/seed_1", "b/seed_0", "a/seed_0", "base", "a/seed_x"], PATTERN)
    assert groups == {"a": ["a/seed_1", "a/seed_0"], "b": ["b/seed_0"]}
    assert alone == ["base", "a/seed_x"]
    assert group_runs(["x"], None) == ({}, ["x"])
    assert group_runs(["x"], "") == ({}, ["x"])
    with pytest.raises(ValueError, match="named group 'group'"):
        group_runs(["x"], r"(.*)/seed_\d+")
    with pytest.raises(ValueError, match="invalid regular expression"):
        group_runs(["x"], r"(?P<group>")


def test_grouping_by_hparams() -> None:
    values = {"r1": {"lr": 0.1, "seed": 1}, "r2": {"lr": 0.1, "seed": 2}, "r3": {"lr": 0.2}, "r4": {}}
    groups, alone = hparam_groups(["r1", "r2", "r3", "r4"], values, ["lr"])
    assert groups == {"lr=0.1": ["r1", "r2"], "lr=0.2": ["r3"]}
    assert alone == ["r4"]


def test_group_frame_matches_pandas(logdir: tbnb.Logdir) -> None:
    raw = logdir.to_pandas()
    got = logdir.to_pandas(groups=PATTERN)
    assert list(got.columns) == ["group", "tag", "step", "mean", "std", "min", "max", "median", "n"]
    assert set(got.group) == {"cfg_a", "cfg_b", "baseline"}
    members = {"cfg_a": ["cfg_a/seed_0", "cfg_a/seed_1", "cfg_a/seed_2"], "cfg_b": ["cfg_b/seed_0"],
               "baseline": ["baseline"]}
    for group, runs in members.items():
        for tag in ("loss", "acc"):
            mine = got[(got.group == group) & (got.tag == tag)].reset_index(drop=True)
            ref = pandas_reference(raw, runs, tag)
            np.testing.assert_array_equal(mine.step.to_numpy(), ref.step.to_numpy())
            np.testing.assert_array_equal(mine.n.to_numpy(), ref.n.to_numpy())
            # Both interpolate each member (a few operations: within 4 u of the largest value at
            # the step, `scale`) and reduce n <= 3 values in orders and algorithms of their own
            # (pandas' nanops against numpy): each statistic within (n + 4) u * scale of exact,
            # std too (it moves by at most sqrt(n / (n - 1)) <= 2 times its inputs' error).
            # Twice, for the two, and twice for the std's own rounding: 16 (n + 4) u * scale.
            scale = np.maximum(np.abs(ref["min"].to_numpy()), np.abs(ref["max"].to_numpy()))
            bound = 16 * (ref.n.to_numpy() + 4) * (np.finfo(np.float64).eps / 2) * scale
            for column in ("mean", "std", "min", "max", "median"):
                a, b = mine[column].to_numpy(), ref[column].to_numpy()
                assert np.array_equal(np.isnan(a), np.isnan(b)), f"{group} {tag} {column}"
                ok = np.isnan(b) | (np.abs(a - b) <= bound)
                assert ok.all(), (group, tag, column, np.flatnonzero(~ok)[:5])


def test_grid_rules_on_the_written_points(logdir: tbnb.Logdir) -> None:
    frame = logdir.to_pandas(groups=PATTERN)
    a = frame[(frame.group == "cfg_a") & (frame.tag == "loss")].set_index("step")
    # seed_1's step 12 holds its last point (-2.0): the reader keeps one point per step
    seed1 = logdir.scalars("cfg_a/seed_1", "loss")
    assert seed1.value[seed1.step == 12].tolist() == [-2.0]
    # seed_1's NaN at 3 and +inf at 9 are left out: at 9 seed_1 is its interpolation 2.5 -> -2.0
    seed0, seed2 = (logdir.scalars(f"cfg_a/seed_{i}", "loss") for i in (0, 2))
    expected = np.mean([seed0.value[9], 2.5 + (9 - 5) / (12 - 5) * (-2.0 - 2.5),
                        seed2.value[5] + (9 - 7) / (25 - 7) * (seed2.value[6] - seed2.value[5])])
    assert a.loc[9, "n"] == 3 and a.loc[9, "mean"] == pytest.approx(expected, rel=1e-6)
    # beyond seed_0's last step (39) and seed_2's (32) only seed_1 counts, up to its step 45
    assert a.loc[45, "n"] == 1 and a.loc[45, "mean"] == 3.0 and math.isnan(a.loc[45, "std"])
    # seed_2's gap (7..25) is bridged: it counts at step 12
    assert a.loc[12, "n"] == 3
    # a single-run group is the run itself, std NaN
    b = frame[(frame.group == "cfg_b") & (frame.tag == "loss")]
    series = logdir.scalars("cfg_b/seed_0", "loss")
    np.testing.assert_array_equal(b.step.to_numpy(), series.step)
    np.testing.assert_array_equal(b["mean"].to_numpy(), series.value.astype(np.float64))
    assert b["std"].isna().all() and (b.n == 1).all()


def test_groups_span_the_logdirs_of_a_board(tmp_path: Path) -> None:
    from tbnb.board.sources import MultiLogdir

    root = write_logdir(tmp_path / "logs")
    merged = MultiLogdir.open(logdir_spec=f"x:{root},y:{root}")
    merged.reload()
    both = merged.to_pandas(groups=r"(?:x|y)/(?P<group>cfg_.)/seed_\d+")
    one = tbnb.load(root).to_pandas(groups=PATTERN)
    for group in ("cfg_a", "cfg_b"):
        mine, ref = both[both.group == group], one[one.group == group]
        np.testing.assert_array_equal(mine.n.to_numpy(), 2 * ref.n.to_numpy())
        np.testing.assert_allclose(mine["mean"].to_numpy(), ref["mean"].to_numpy())
    assert {"x/baseline", "y/baseline"} <= set(both.group)
    with pytest.raises(ValueError, match="aggregates scalars"):
        merged.to_pandas("histograms", groups=PATTERN)


def test_bands() -> None:
    steps = np.arange(5)
    members = [(steps, np.array([1.0, 2, 3, 4, 5])), (steps, np.array([3.0, 2, 1, 0, 7])),
               (steps[:2], np.array([2.0, 5]))]
    stats, _ = aggregate(members)
    assert stats.n.tolist() == [3, 3, 2, 2, 2]
    std = np.array([np.std(c, ddof=1) for c in ([1, 3, 2], [2, 2, 5], [3, 1], [4, 0], [5, 7])])
    np.testing.assert_allclose(stats.std, std)
    lower, upper = stats.band("mean", "minmax")
    assert lower.tolist() == [1, 2, 1, 0, 5] and upper.tolist() == [3, 5, 3, 4, 7]
    lo, hi = stats.band("mean", "stderr")
    np.testing.assert_allclose(hi - stats.mean, std / np.sqrt(stats.n))
    lo, hi = stats.band("median", "ci95")
    scipy_stats = pytest.importorskip("scipy.stats")
    np.testing.assert_allclose(hi - stats.median, scipy_stats.t.ppf(0.975, stats.n - 1) * std / np.sqrt(stats.n),
                               rtol=1e-4)
    np.testing.assert_allclose(stats.median - lo, hi - stats.median)
    assert stats.band("mean", "none") is None
    assert set(BANDS) == {"none", "minmax", "std", "stderr", "ci95"}
    with pytest.raises(ValueError, match="group_band"):
        stats.band("mean", "iqr")
    with pytest.raises(ValueError, match="group_line"):
        stats.line("mode")


def test_band_collapses_on_one_member_and_t_quantiles() -> None:
    stats, _ = aggregate([(np.array([0, 1]), np.array([1.0, 2.0]))])
    for band in ("std", "stderr", "ci95"):
        lower, upper = stats.band("mean", band)
        np.testing.assert_array_equal(lower, stats.mean)
        np.testing.assert_array_equal(upper, stats.mean)
    scipy_stats = pytest.importorskip("scipy.stats")
    df = np.arange(1, 400)
    np.testing.assert_allclose(t975(df), scipy_stats.t.ppf(0.975, df), rtol=1e-4)


def test_extra_is_averaged_over_the_members_counted() -> None:
    members = [(np.array([0, 10]), np.array([0.0, 1.0])), (np.array([0, 20]), np.array([1.0, np.nan]))]
    stats, x = aggregate(members, extra=[np.array([100.0, 110.0]), np.array([200.0, 220.0])])
    # member 2's NaN at step 20 is dropped with its time: it counts at step 0 only
    assert stats.step.tolist() == [0, 10] and stats.n.tolist() == [2, 1]
    assert x.tolist() == [150.0, 110.0]
