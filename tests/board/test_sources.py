"""--logdir_spec: TensorBoard's syntax, and several logdirs merged with prefixed run names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tbnb import Logdir
from tbnb.board.sources import MultiLogdir, parse_logdir_spec
from tbnb.testing import EventWriter

from .conftest import T0, Page, write_small_logdir


@pytest.mark.parametrize(("spec", "expected"), [
    ("a:/x,b:/y", [("a", "/x"), ("b", "/y")]),
    ("/abs/path", [(None, "/abs/path")]),
    ("gs://bucket/runs", [(None, "gs://bucket/runs")]),
    ("n:gs://bucket/runs", [("n", "gs://bucket/runs")]),
    ("n:/a:b,", [("n", "/a:b")]),
    ("relative/dir", [(None, "relative/dir")]),
    (":/x", [(None, "/x")]),
])
def test_parse_logdir_spec(spec: str, expected: list) -> None:
    assert parse_logdir_spec(spec) == expected


@pytest.mark.parametrize("spec", ["", ",", "a:", "a:/x,a:/y"])
def test_bad_logdir_specs(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_logdir_spec(spec)


def test_board_merges_named_logdirs(make_board, tmp_path: Path) -> None:
    write_small_logdir(tmp_path / "one")
    with EventWriter(tmp_path / "two", start_time=T0) as w:  # a root run: named "two" alone
        w.add_scalar("loss", 5.0, 0, wall_time=T0)
    board = make_board(logdir_spec=f"first:{tmp_path / 'one'},two:{tmp_path / 'two'}")
    assert isinstance(board.logdir, MultiLogdir)
    page = Page(board)
    index = page.decoded({"type": "index"})
    assert [r["name"] for r in index["runs"]] == ["first/a", "first/b", "two"]
    loss = {t["tag"]: t for t in index["tags"]}["loss"]
    assert loss["points"] == {"first/a": 10, "first/b": 5, "two": 1}
    reply = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["first/b", "two"], "width": 50})
    assert [(s["run"], s["y"].tolist()) for s in reply["series"]] == [
        ("first/b", [2.0, 1.0, 0.0, -1.0, -2.0]), ("two", [5.0])]
    with EventWriter(tmp_path / "one" / "c", start_time=T0) as w:
        w.add_scalar("loss", 1.0, 0, wall_time=T0)
    board.refresh()
    (msg,) = [c for c, _ in page.recorder.of_type("changed")]
    assert msg["new_runs"] == ["first/c"] and msg["tags"] == {"first/c": ["loss"]}
    assert set(board.view["run"]) == {"first/a", "first/b", "first/c", "two"}


def test_single_logdir_is_a_plain_logdir(make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir)
    assert isinstance(board.logdir, Logdir) and board.logdir.runs() == ["a", "b"]


def test_multilogdir_api(tmp_path: Path) -> None:
    write_small_logdir(tmp_path / "x")
    ml = MultiLogdir.open(logdir_spec=f"x:{tmp_path / 'x'},{tmp_path / 'missing'}")
    ml.reload()
    assert ml.runs() == ["x/a", "x/b"] and ml.missing() == [str(tmp_path / "missing")]
    assert ml.run_start_time("x/b") == T0 + 100
    assert ml.point_count("x/a", "loss") == 10 and ml.point_count("x/a", "weights") == 1
    assert set(ml.to_pandas()["run"]) == {"x/a", "x/b"}
    with pytest.raises(KeyError):
        ml.scalars("y/a", "loss")


def test_named_and_unnamed_logdirs_together(tmp_path: Path) -> None:
    write_small_logdir(tmp_path / "plain")
    write_small_logdir(tmp_path / "named")
    with EventWriter(tmp_path / "named" / "only_here", start_time=T0) as w:
        w.add_scalar("z", 1.0, 0, wall_time=T0)
    ml = MultiLogdir.open(logdir_spec=f"{tmp_path / 'plain'},n:{tmp_path / 'named'}")
    ml.reload()
    assert ml.runs() == ["a", "b", "n/a", "n/b", "n/only_here"]
    assert ml.tags("n/only_here") == {"z": "scalars"} and "z" not in ml.tags("a")
