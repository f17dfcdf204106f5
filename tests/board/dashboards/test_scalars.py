"""The scalars dashboard's messages (``series``, ``csv``, ``json``), driven as the page drives
them: requests in, decoded replies out."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from tbnb.testing import EventWriter, write_scalar_logdir

from ..conftest import T0, Page


def f32(values: list[float]) -> list[float]:
    """Values as TF1 simple_value stores them (float32)."""
    return np.asarray(values, dtype=np.float32).astype(np.float64).tolist()


@pytest.fixture
def page(make_board, small_logdir: Path) -> Page:
    return Page(make_board(small_logdir))


@pytest.fixture(scope="module")
def big_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scalar_logdir(tmp_path_factory.mktemp("big"), runs=2, tags=2, steps=20_000)


def series(page: Page, **fields: object) -> dict:
    request = {"type": "series", "id": 7, "tag": "loss", "runs": ["a", "b"], "x_axis": "step",
               "range": None, "width": 100, **fields}
    return page.decoded(request)


def test_small_series_are_exact(page: Page) -> None:
    reply = series(page)
    assert (reply["type"], reply["id"], reply["tag"], reply["x_axis"], reply["range"]) == ("series", 7, "loss", "step", None)
    a, b = reply["series"]
    assert (a["run"], a["total"], a["sent"], a["exact"]) == ("a", 10, 10, True)
    assert a["x"].dtype == np.float64 and a["step"].dtype == np.int64 and a["y"].dtype == np.float64
    assert a["x"].tolist() == list(range(10)) and a["step"].tolist() == list(range(10))
    assert a["y"].tolist() == f32([1.0 / (s + 1) for s in range(10)])
    assert a["wall_time"].tolist() == [T0 + 10 + s for s in range(10)]
    assert b["y"].tolist() == [2.0, 1.0, 0.0, -1.0, -2.0]


def test_relative_and_wall_axes(page: Page) -> None:
    a, b = series(page, x_axis="relative")["series"]
    assert a["x"].tolist() == [10.0 + s for s in range(10)]  # seconds since the run's first event
    assert b["x"].tolist() == [float(s) for s in range(5)]
    wall = series(page, x_axis="wall")["series"][0]
    assert wall["x"].tolist() == [T0 + 10 + s for s in range(10)]


def test_runs_without_the_tag_and_unknown_runs_are_skipped(page: Page) -> None:
    reply = series(page, tag="acc", runs=["a", "b", "gone"])
    assert [s["run"] for s in reply["series"]] == ["a"]
    assert series(page, runs=[])["series"] == []


def test_large_series_are_min_max_downsampled(make_board, big_logdir: Path) -> None:
    board = make_board(big_logdir)
    tag = "group_0/metric_0"
    full = board.logdir.scalars("run_00", tag)
    reply = Page(board).decoded({"type": "series", "id": 1, "tag": tag, "runs": ["run_00"],
                                 "x_axis": "step", "range": None, "width": 150})
    s = reply["series"][0]
    assert (s["total"], s["exact"]) == (20_000, False)
    assert s["sent"] == len(s["y"]) <= 150 + 2  # about one point per pixel
    assert s["y"].max() == full.value.max() and s["y"].min() == full.value.min()
    assert s["step"][0] == 0 and s["step"][-1] == 19_999 and s["y"][-1] == full.value[-1]
    assert np.all(np.diff(s["step"]) > 0)
    np.testing.assert_array_equal(s["y"], full.value[s["step"]])  # real points, not averages


def test_range_requests(make_board, big_logdir: Path) -> None:
    page = Page(make_board(big_logdir))
    tag = "group_0/metric_1"
    ask = {"type": "series", "id": 2, "tag": tag, "runs": ["run_01"], "x_axis": "step", "width": 200}
    few = page.decoded({**ask, "range": [1000, 1150]})["series"][0]
    assert few["exact"] and few["total"] == few["sent"] == 151
    assert few["step"].tolist() == list(range(1000, 1151))
    many = page.decoded({**ask, "range": [5000.5, 15000]})
    assert many["range"] == [5000.5, 15000]
    s = many["series"][0]
    assert s["total"] == 10_000 and not s["exact"] and s["sent"] <= 202
    assert s["step"][0] == 5001 and s["step"][-1] == 15_000
    reversed_range = page.decoded({**ask, "range": [1150, 1000]})["series"][0]
    assert reversed_range["step"].tolist() == list(range(1000, 1151))
    empty = page.decoded({**ask, "range": [-10, -1]})["series"][0]
    assert (empty["total"], empty["sent"], empty["exact"], len(empty["x"])) == (0, 0, True, 0)


def test_range_on_wall_axis(page: Page) -> None:
    a = series(page, x_axis="wall", range=[T0 + 12, T0 + 14], runs=["a"])["series"][0]
    assert a["step"].tolist() == [2, 3, 4]


def test_csv_download(page: Page) -> None:
    reply, buffers = page.ask({"type": "csv", "id": 3, "tag": "loss", "runs": ["a", "b"]})
    assert (reply["type"], reply["id"], reply["tag"], reply["format"], buffers) == ("download", 3, "loss", "csv", [])
    rows = list(csv.reader(io.StringIO(reply["text"])))
    assert rows[0] == ["Run", "Wall time", "Step", "Value"]
    assert len(rows) == 1 + 10 + 5
    assert rows[1] == ["a", repr(T0 + 10), "0", "1.0"]
    assert [float(r[3]) for r in rows[1:11]] == f32([1.0 / (s + 1) for s in range(10)])
    assert rows[-1] == ["b", repr(T0 + 104), "4", "-2.0"]


def test_csv_download_neutralises_formulas_in_run_names(make_board, tmp_path: Path) -> None:
    """A run named like a formula is text in a spreadsheet; negative values stay numbers."""
    names = ["=HYPERLINK(1)", "+1", "-x", "@SUM(A1)", "plain"]
    for name in names:
        with EventWriter(tmp_path / name, start_time=T0) as w:
            w.add_scalar("x", -3.5, 0, wall_time=T0)
    reply, _ = Page(make_board(tmp_path)).ask({"type": "csv", "id": 6, "tag": "x", "runs": names})
    rows = list(csv.reader(io.StringIO(reply["text"])))[1:]
    assert sorted(r[0] for r in rows) == sorted(["'=HYPERLINK(1)", "'+1", "'-x", "'@SUM(A1)", "plain"])
    assert {r[3] for r in rows} == {"-3.5"} and {r[2] for r in rows} == {"0"}


def test_json_download_with_non_finite_values(make_board, tmp_path: Path) -> None:
    with EventWriter(tmp_path / "r", start_time=T0) as w:
        for step, value in enumerate([1.0, float("nan"), float("inf"), float("-inf")]):
            w.add_scalar("x", value, step, wall_time=T0 + step)
    reply, _ = Page(make_board(tmp_path)).ask({"type": "json", "id": 4, "tag": "x", "runs": ["r"]})
    assert reply["format"] == "json"
    data = json.loads(reply["text"])
    assert data == {"r": [[T0, 0, 1.0], [T0 + 1, 1, "NaN"], [T0 + 2, 2, "Infinity"], [T0 + 3, 3, "-Infinity"]]}
    # NaN travels in the series buffers as NaN (a gap), never dropped
    s = Page(make_board(tmp_path)).decoded({"type": "series", "id": 5, "tag": "x", "runs": ["r"],
                                            "x_axis": "step", "range": None, "width": 10})["series"][0]
    assert np.isnan(s["y"][1]) and s["y"][2] == np.inf and s["sent"] == 4


def test_fractional_width_and_default_axis(page: Page) -> None:
    page.board.x_axis = "relative"
    reply = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 3.2})
    assert reply["x_axis"] == "relative"
    s = reply["series"][0]
    assert s["exact"] is False and s["sent"] <= 2 * 4 + 2  # width 3.2 -> 4 buckets
