"""``board.derived``: virtual scalar tags computed in the kernel, shown like logged ones.

Real event files from tbnb's writer; the Board is driven as the page drives it (conftest.Page).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from traitlets import TraitError

import tbnb
from tbnb.board.derived import MAX_ENTRIES
from tbnb.testing import EventWriter

from .conftest import T0, Page

GAP = "{loss/val} - {loss/train}"


def write_pairs(root: Path) -> Path:
    """"good" and "over": loss/train every step 0..9, loss/val every 2 steps; "solo": no
    loss/val; "own": logs a scalar "gap" of its own (which a derived "gap" must not shadow)."""
    for run, slope in (("good", 0.0), ("over", 0.05)):
        with EventWriter(root / run, start_time=T0) as w:
            for s in range(10):
                w.add_scalar("loss/train", 1.0 / (s + 1), s, wall_time=T0 + s)
                if s % 2 == 0:
                    w.add_scalar("loss/val", 1.0 / (s + 1) + 0.1 + slope * s, s, wall_time=T0 + s + 0.5)
    with EventWriter(root / "solo", start_time=T0) as w:
        for s in range(5):
            w.add_scalar("loss/train", 2.0 - s, s, wall_time=T0 + s)
    with EventWriter(root / "own", start_time=T0) as w:
        for s in range(4):
            w.add_scalar("loss/train", 1.0, s, wall_time=T0 + s)
            w.add_scalar("loss/val", 3.0, s, wall_time=T0 + s)
            w.add_scalar("gap", -7.0, s, wall_time=T0 + s)
    return root


@pytest.fixture
def pairs_logdir(tmp_path: Path) -> Path:
    return write_pairs(tmp_path / "logs")


def series(page: Page, tag: str, runs: list[str], request_id: int = 1) -> dict:
    return page.decoded({"type": "series", "id": request_id, "tag": tag, "runs": runs, "x_axis": "step",
                         "range": None, "width": 1000})


def test_derived_tags_are_scalar_tags_equal_to_derive(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir, derived={"gap": GAP})
    source = board.source
    assert source.tags("good") == {"loss/train": "scalars", "loss/val": "scalars", "gap": "scalars"}
    assert "gap" not in source.tags("solo")  # no loss/val: no gap card for it
    expected = tbnb.load(pairs_logdir).derive(GAP)
    for run in ("good", "over"):
        got = source.scalars(run, "gap")
        want = expected[expected.run == run]
        np.testing.assert_array_equal(got.step, want.step.to_numpy())
        np.testing.assert_array_equal(got.value, want.value.to_numpy())
        np.testing.assert_array_equal(got.wall_time, want.wall_time.to_numpy())
        assert source.point_count(run, "gap") == 5
    md = source.metadata("good", "gap")
    assert md.plugin_data.plugin_name == "scalars" and GAP in md.summary_description

    page = Page(board)
    index = page.decoded({"type": "index"})
    (entry,) = [t for t in index["tags"] if t["tag"] == "gap"]
    assert entry["plugin"] == "scalars" and entry["runs"] == ["good", "over", "own"]
    assert entry["points"] == {"good": 5, "over": 5, "own": 4}
    reply = series(page, "gap", ["good", "over"])
    by_run = {s["run"]: s for s in reply["series"]}
    np.testing.assert_array_equal(by_run["over"]["step"], [0, 2, 4, 6, 8])
    want = expected[expected.run == "over"].value.to_numpy()
    np.testing.assert_array_equal(np.asarray(by_run["over"]["y"], dtype=np.float64), want)


def test_a_logged_tag_is_never_shadowed(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir, derived={"gap": GAP})
    assert board.source.scalars("own", "gap").value.tolist() == [-7.0] * 4  # its own, not 3 - 1
    assert board.source.metadata("own", "gap").summary_description != f"derived: {GAP}"
    # a derived name equal to a logged input is a card in no run that logs it
    board.derived = {"loss/train": "{loss/val} * 2"}
    assert board.source.scalars("good", "loss/train").value.tolist() == pytest.approx([1 / (s + 1) for s in range(10)])


def test_everything_a_scalar_card_has(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir, derived={"gap": GAP}, runs=["good", "over"])
    page = Page(board)
    table = page.decoded({"type": "step_table", "id": 2, "tag": "gap", "runs": ["good", "over"],
                          "step": 4, "range": None, "smoothing": 0.0})
    gap = tbnb.load(pairs_logdir).derive(GAP)
    at4 = gap[gap.step == 4].set_index("run").value
    assert table["columns"]["run"] == ["good", "over"]
    assert table["columns"]["value"] == pytest.approx([at4["good"], at4["over"]], rel=1e-6)
    card = board.card("gap")
    assert {t.name for t in card.figure.data} >= {"good", "over"}
    html = board.to_html(tag_filter="gap")
    assert "gap" in html and "loss/train" not in html
    frame = board.view
    assert set(frame[frame.tag == "gap"].run) == {"good", "over"}


def test_new_data_updates_the_derived_series_and_is_reported(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir, derived={"gap": GAP})
    page = Page(board)
    page.ask({"type": "series", "id": 1, "tag": "gap", "runs": ["solo"], "x_axis": "step", "range": None,
              "width": 100})
    assert len(board.source.scalars("over", "gap")) == 5
    with EventWriter(pairs_logdir / "over", start_time=T0) as w:  # a second file in the run
        w.add_scalar("loss/train", 0.01, 10, wall_time=T0 + 10)
        w.add_scalar("loss/val", 1.5, 10, wall_time=T0 + 10.5)
    with EventWriter(pairs_logdir / "solo", start_time=T0) as w:  # solo gets its loss/val: a new gap tag
        w.add_scalar("loss/val", 9.0, 4, wall_time=T0 + 9)
    board._poll_tick()
    (changed, _), = page.recorder.of_type("changed")
    assert "gap" in changed["tags"]["over"] and "gap" in changed["tags"]["solo"]
    assert "gap" in changed["new_tags"]
    over = board.source.scalars("over", "gap")
    assert over.step.tolist() == [0, 2, 4, 6, 8, 10] and over.value[-1] == pytest.approx(1.49)
    assert board.source.scalars("solo", "gap").value.tolist() == pytest.approx([9.0 - (2.0 - 4)])
    pushed = [c for c, _ in page.recorder.sent if c.get("push")]
    assert [c["type"] for c in pushed] == ["series"]  # the page's "gap" card of solo is answered again


def test_setting_derived_tells_the_page(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir)
    page = Page(board)
    assert "gap" not in board.source.tags("good")
    board.derived = {"gap": GAP, "ratio": "{loss/train} / {loss/val}"}
    (changed, _), = page.recorder.of_type("changed")
    assert sorted(changed["new_tags"]) == ["gap", "ratio"] and changed["tags"]["good"] == ["gap", "ratio"]
    assert board.source.scalars("good", "ratio").value.tolist() == pytest.approx(
        [(1 / (s + 1)) / (1 / (s + 1) + 0.1) for s in range(0, 10, 2)])
    page.recorder.sent.clear()
    board.derived = {}
    (changed, _), = page.recorder.of_type("changed")
    assert sorted(changed["new_tags"]) == ["gap", "ratio"]  # gone: the page asks for the index again
    assert "gap" not in board.source.tags("good") and board.status["tags"] == 3


def test_division_by_zero_gives_non_finite_points(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir, derived={"inf": "{loss/train} / ({loss/val} - {loss/val})"})
    values = board.source.scalars("good", "inf").value
    assert np.isinf(values).all() and len(values) == 5
    page = Page(board)
    reply = series(page, "inf", ["good"])
    assert len(reply["series"]) == 1  # answered, not an error


@pytest.mark.parametrize("value, message", [
    ({"gap": "{loss/val} -"}, "at position"),
    ({"gap": "{loss/val}.__class__"}, "at position"),
    ({"gap": "__import__('os')"}, "at position"),
    ({"gap": "(" * 100 + "{a}" + ")" * 100}, "nest"),
    ({"gap": "1 + 2"}, "names no tag"),
    ({"": GAP}, "non-empty"),
    ({"x" * 201: GAP}, "at most 200"),
    ({"a\nb": GAP}, "control"),
    ({f"g{i}": GAP for i in range(MAX_ENTRIES + 1)}, f"at most {MAX_ENTRIES}"),
])
def test_a_bad_derived_value_is_refused_and_loses_nothing(make_board, pairs_logdir: Path,
                                                          value: dict, message: str) -> None:
    board = make_board(pairs_logdir, derived={"gap": GAP})
    with pytest.raises(TraitError, match=message):
        board.derived = value
    assert board.derived == {"gap": GAP} and "gap" in board.source.tags("good")


def test_a_bad_value_from_the_page_is_refused(make_board, pairs_logdir: Path) -> None:
    board = make_board(pairs_logdir)
    with pytest.raises(TraitError, match="at position 7"):
        board.set_state({"derived": {"gap": "{a} ** ** 2"}})
    assert board.derived == {}


def test_other_boards_on_the_same_logdir_are_not_affected(make_board, pairs_logdir: Path) -> None:
    one = make_board(pairs_logdir, derived={"gap": GAP})
    two = make_board(pairs_logdir)
    assert one.source.feed is two.source.feed  # one reader...
    assert "gap" in one.source.tags("good") and "gap" not in two.source.tags("good")  # ...own tags
