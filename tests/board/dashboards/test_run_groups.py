"""Run groups on the scalar cards: the ``groups`` of a ``series`` reply (line and band over every
point, downsampled keeping the extremes, exact on zoom), the group rows of ``step_table``, the
settings' traits and bad requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from traitlets import TraitError

from tbnb.testing import EventWriter

from ..conftest import Page

PATTERN = r"(?P<group>.*)/seed_\d+"
T0 = 1_700_000_000.0
STEPS = 400


def write_seeds(root: Path) -> Path:
    """cfg_a/seed_0..2 (every step, every 2nd, every 3rd; seed_1 has a spike at step 200),
    cfg_b/seed_0 (alone in its group) and "baseline" (no seed: alone)."""
    for seed in range(3):
        with EventWriter(root / f"cfg_a/seed_{seed}", start_time=T0 + seed) as w:
            for s in range(0, STEPS, seed + 1):
                value = 100.0 if (seed == 1 and s == 200) else np.sin(s / 30) + seed
                w.add_scalar("loss", value, s, wall_time=T0 + seed + s)
    with EventWriter(root / "cfg_b/seed_0", start_time=T0) as w:
        for s in range(0, STEPS, 4):
            w.add_scalar("loss", -s / 100, s, wall_time=T0 + s)
    with EventWriter(root / "baseline", start_time=T0) as w:
        for s in range(10):
            w.add_scalar("loss", float(s), s, wall_time=T0 + s)
    return root


@pytest.fixture
def page(make_board: Any, tmp_path: Path) -> Page:
    return Page(make_board(str(write_seeds(tmp_path / "logs"))))


RUNS = ["baseline", "cfg_a/seed_0", "cfg_a/seed_1", "cfg_a/seed_2", "cfg_b/seed_0"]


def series(page: Page, **extra: Any) -> dict[str, Any]:
    content = {"type": "series", "id": 1, "tag": "loss", "runs": RUNS, "width": 2000,
               "groups": {"by": PATTERN, "line": "mean", "band": "std"}}
    return page.decoded({**content, **extra})


def test_groups_replace_their_members_and_match_the_reader(page: Page) -> None:
    reply = series(page)
    assert [e["run"] for e in reply["series"]] == ["baseline"]
    groups = {g["group"]: g for g in reply["groups"]}
    assert groups["cfg_a"]["members"] == ["cfg_a/seed_0", "cfg_a/seed_1", "cfg_a/seed_2"]
    assert groups["cfg_b"]["members"] == ["cfg_b/seed_0"]
    a = groups["cfg_a"]
    frame = page.board.logdir.to_pandas(groups=PATTERN)
    ref = frame[(frame.group == "cfg_a") & (frame.tag == "loss")]
    assert a["exact"] and a["total"] == len(ref)
    np.testing.assert_array_equal(a["step"], ref.step.to_numpy())
    np.testing.assert_array_equal(a["n"], ref.n.to_numpy())
    np.testing.assert_allclose(a["y"], ref["mean"].to_numpy())
    np.testing.assert_allclose(a["upper"] - a["y"], ref["std"].to_numpy())
    np.testing.assert_allclose(a["y"] - a["lower"], ref["std"].to_numpy())
    # a group of one: its band collapses onto its line
    b = groups["cfg_b"]
    np.testing.assert_array_equal(b["lower"], b["y"])


def test_line_and_band_choices(page: Page) -> None:
    reply = series(page, groups={"by": PATTERN, "line": "median", "band": "minmax"})
    a = next(g for g in reply["groups"] if g["group"] == "cfg_a")
    frame = page.board.logdir.to_pandas(groups=PATTERN)
    ref = frame[(frame.group == "cfg_a") & (frame.tag == "loss")]
    np.testing.assert_allclose(a["y"], ref["median"].to_numpy())
    np.testing.assert_allclose(a["lower"], ref["min"].to_numpy())
    np.testing.assert_allclose(a["upper"], ref["max"].to_numpy())
    none = series(page, groups={"by": PATTERN, "line": "max", "band": "none"})
    a = next(g for g in none["groups"] if g["group"] == "cfg_a")
    assert "lower" not in a and "upper" not in a
    np.testing.assert_allclose(a["y"], ref["max"].to_numpy())


def test_downsampled_group_keeps_the_spike_and_zoom_is_exact(page: Page) -> None:
    reply = series(page, width=40, groups={"by": PATTERN, "line": "mean", "band": "minmax"})
    a = next(g for g in reply["groups"] if g["group"] == "cfg_a")
    assert not a["exact"] and a["sent"] < a["total"] == STEPS
    assert a["upper"].max() == 100.0  # seed_1's spike at step 200, kept by the band's upper edge
    zoom = series(page, width=40, range=[190, 210], groups={"by": PATTERN, "line": "mean", "band": "minmax"})
    z = next(g for g in zoom["groups"] if g["group"] == "cfg_a")
    assert z["exact"] and z["step"].tolist() == list(range(190, 211))


def test_a_group_counts_the_member_points_it_is_computed_from(page: Page) -> None:
    """A card's subtitle counts the points it draws from: a group line of 400 grid steps is
    computed from its members' 400 + 200 + 134 points, in range when zoomed, on every axis."""
    written = {f"cfg_a/seed_{seed}": list(range(0, STEPS, seed + 1)) for seed in range(3)}
    for width in (2000, 40):  # downsampled or not, the count is of the members' points
        a = next(g for g in series(page, width=width)["groups"] if g["group"] == "cfg_a")
        assert a["points"] == sum(len(s) for s in written.values()) == 734
    zoom = series(page, width=40, range=[190, 210])
    assert {g["group"]: g["points"] for g in zoom["groups"]} == {
        "cfg_a": sum(190 <= s <= 210 for steps in written.values() for s in steps), "cfg_b": 5}
    # relative: every member logs step s at s seconds after its start
    relative = series(page, x_axis="relative", range=[190, 210])
    assert next(g for g in relative["groups"] if g["group"] == "cfg_a")["points"] == zoom["groups"][0]["points"]
    wall = series(page, x_axis="wall", range=[T0 + 2, T0 + 3])  # seed_0's steps 2, 3; seed_1's 2; seed_2's 0
    assert next(g for g in wall["groups"] if g["group"] == "cfg_a")["points"] == 4


def test_relative_axis_x_is_the_members_mean_time(page: Page) -> None:
    reply = series(page, x_axis="relative")
    a = next(g for g in reply["groups"] if g["group"] == "cfg_a")
    # every member logs step s at s seconds after its start
    np.testing.assert_allclose(a["x"], a["step"].astype(float))
    wall = series(page, x_axis="wall")
    a = next(g for g in wall["groups"] if g["group"] == "cfg_a")
    assert a["x"][0] == pytest.approx(T0 + 1.0)  # the three seeds start at T0, T0 + 1, T0 + 2


def test_log_step_axis_draws_groups_at_their_steps_and_per_run_axes_are_refused(page: Page) -> None:
    log = series(page, x_axis="log_step")
    a = next(g for g in log["groups"] if g["group"] == "cfg_a")
    np.testing.assert_array_equal(a["x"], a["step"].astype(float))
    # a per-run shift or another tag's values give a group no one x per step: a clear error
    reply, _ = page.ask({"type": "series", "id": 4, "tag": "loss", "runs": RUNS, "width": 100,
                         "x_axis": "relative_step", "groups": {"by": PATTERN, "line": "mean", "band": "std"}})
    assert reply["type"] == "error" and "run groups are drawn on" in reply["message"]


def test_step_table_lists_groups_with_their_spread(page: Page) -> None:
    reply = page.decoded({"type": "step_table", "id": 2, "tag": "loss", "runs": RUNS, "step": 150,
                          "groups": {"by": PATTERN, "line": "mean", "band": "stderr"}})
    columns = reply["columns"]
    assert columns["run"] == ["baseline", "cfg_a", "cfg_b"]
    assert reply["groups"]["cfg_a"] == ["cfg_a/seed_0", "cfg_a/seed_1", "cfg_a/seed_2"]
    frame = page.board.logdir.to_pandas(groups=PATTERN)
    at = frame[(frame.group == "cfg_a") & (frame.tag == "loss") & (frame.step == 150)].iloc[0]
    assert columns["value"][1] == pytest.approx(at["mean"])
    assert columns["n"][1] == 3 and columns["n"][0] == 1
    assert columns["spread"][1] == pytest.approx(at["std"] / np.sqrt(3))
    assert np.isnan(columns["spread"][0])
    assert columns["step"][0] == 9  # the baseline's closest point


def test_board_step_table_follows_the_traits(page: Page) -> None:
    board = page.board
    board.run_groups = PATTERN
    board.group_band = "minmax"
    board.selected_step = 200
    table = board.step_table("loss")
    assert table.run.tolist() == ["baseline", "cfg_a", "cfg_b"]
    row = table.set_index("run").loc["cfg_a"]
    assert row.upper == 100.0 and row.n == 3
    board.range_selection = True
    board.selected_range = [0, 399]
    board.smoothing = 0
    ranged = board.step_table("loss").set_index("run")
    frame = board.logdir.to_pandas(groups=PATTERN)
    a = frame[(frame.group == "cfg_a") & (frame.tag == "loss")]
    assert ranged.loc["cfg_a", "max"] == pytest.approx(a["mean"].max())  # the group mean at the spike
    assert ranged.loc["cfg_a", "step_at_max"] == 200
    assert ranged.loc["cfg_a", "mean"] == pytest.approx(a["mean"].mean())
    board.run_groups = None
    assert "cfg_a/seed_1" in board.step_table("loss").run.tolist()


def test_default_step_spans_the_groups(page: Page) -> None:
    board = page.board
    board.run_groups = PATTERN
    table = board.step_table("loss").set_index("run")
    assert table.loc["cfg_a", "step"] == STEPS - 1
    assert table.loc["baseline", "step"] == 9


def test_traits_check_their_values(page: Page) -> None:
    board = page.board
    with pytest.raises(TraitError, match="named group"):
        board.run_groups = r"(.*)/seed_\d+"
    with pytest.raises(TraitError):
        board.group_line = "mode"
    with pytest.raises(TraitError):
        board.group_band = "iqr"
    board.run_groups = ["lr"]
    assert board.grouping() is not None
    board.run_groups = ""
    assert board.grouping() is None


@pytest.mark.parametrize("groups, message", [
    ("x", "must be an object"),
    ({"by": "(.*)"}, "named group"),
    ({"by": PATTERN, "line": "mode"}, "groups.line"),
    ({"by": PATTERN, "band": "iqr"}, "groups.band"),
    ({"by": 3}, "groups.by"),
])
def test_bad_grouping_is_an_error_reply(page: Page, groups: Any, message: str) -> None:
    reply, _ = page.ask({"type": "series", "id": 3, "tag": "loss", "runs": RUNS, "width": 100, "groups": groups})
    assert reply["type"] == "error" and message in reply["message"]


def test_hparam_groups(make_board: Any, tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path / "hp"
    for lr in (0.1, 0.01):
        for seed in range(2):
            with SummaryWriter(str(root / f"lr{lr}_s{seed}")) as w:
                for s in range(5):
                    w.add_scalar("loss", lr * s + seed, s)
                w.add_hparams({"lr": lr, "seed": seed}, {"hp/final": lr}, run_name=".")
    page = Page(make_board(str(root)))
    runs = page.board.logdir.runs()
    reply = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": runs, "width": 100,
                          "groups": {"by": ["lr"], "line": "mean", "band": "std"}})
    groups = {g["group"]: g for g in reply["groups"]}
    assert set(groups) == {"lr=0.1", "lr=0.01"}
    assert sorted(groups["lr=0.1"]["members"]) == ["lr0.1_s0", "lr0.1_s1"]
    np.testing.assert_allclose(groups["lr=0.1"]["y"], [0.1 * s + 0.5 for s in range(5)], rtol=1e-6)
