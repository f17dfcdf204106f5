"""Custom live plots (board.add_card): the function's figure or table reaches the page through
the codec, runs again only after a poll that brought new data to its runs (on the poll thread),
and whatever it raises is the card's message, never the Board's failure."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from tbnb.board.codec import decode
from tbnb.board.custom_figure import with_run_colors
from tbnb.testing import EventWriter

from .conftest import T0, Page


def two_runs(root: Path) -> tuple[EventWriter, EventWriter]:
    writers = (EventWriter(root / "a", start_time=T0), EventWriter(root / "b", start_time=T0))
    for w in writers:
        for s in range(5):
            w.add_scalar("loss", 1.0 / (s + 1), s, wall_time=T0 + s)
            w.add_scalar("accuracy", s / 5, s, wall_time=T0 + s)
        w.flush()
    return writers


@pytest.fixture
def writers(tmp_path: Path):
    ws = two_runs(tmp_path / "logs")
    yield ws
    for w in ws:
        w.close()


def acc_vs_loss(lg: Any, runs: list[str]) -> go.Figure:
    fig = go.Figure()
    for run in runs:
        a, l = lg.scalars(run, "accuracy"), lg.scalars(run, "loss")
        fig.add_scatter(x=l.value, y=a.value, mode="markers", name=run)
    return fig


def request(title: str, runs: list[str], request_id: int = 1) -> dict[str, Any]:
    return {"type": "custom_card", "id": request_id, "title": title, "runs": runs}


def pushes(page: Page) -> list[dict[str, Any]]:
    return [decode(c, b) for c, b in page.recorder.sent if c.get("push")]


def test_a_card_draws_its_function_of_the_logdir_and_the_runs(make_board, writers, tmp_path: Path) -> None:
    board = make_board(tmp_path / "logs")
    board.add_card("accuracy vs loss", acc_vs_loss)
    assert board.custom_cards == ["accuracy vs loss"]
    reply = Page(board).decoded(request("accuracy vs loss", ["a", "b", "not a run"]))
    assert reply["type"] == "custom_card" and reply["id"] == 1 and reply["tag"] == "accuracy vs loss"
    traces = reply["figure"]["data"]
    assert [t["name"] for t in traces] == ["a", "b"]  # a run the logdir does not hold is not passed
    np.testing.assert_array_equal(traces[0]["x"], board.logdir.scalars("a", "loss").value)
    assert "error" not in reply and reply["seconds"] >= 0
    assert "template" not in reply["figure"]["layout"]  # the Board's theme, not plotly's white one


def test_a_large_scatter_travels_as_binary_buffers(make_board, writers, tmp_path: Path) -> None:
    n = 100_000
    xs = np.random.default_rng(0).normal(size=n)

    def big(lg: Any, runs: list[str]) -> go.Figure:
        return go.Figure(go.Scattergl(x=xs, y=xs * 2, mode="markers", name="cloud"))

    board = make_board(tmp_path / "logs")
    board.add_card("cloud", big)
    page = Page(board)
    start = time.perf_counter()
    content, buffers = page.ask(request("cloud", ["a"]))
    seconds = time.perf_counter() - start
    assert len(json.dumps(content)) < 2_000  # no number written as text, no base64
    assert sum(memoryview(b).nbytes for b in buffers) == 2 * n * 8
    trace = decode(content, buffers)["figure"]["data"][0]
    np.testing.assert_array_equal(trace["x"], xs)
    np.testing.assert_array_equal(trace["y"], xs * 2)
    print(f"100,000-point scatter answered in {seconds * 1000:.0f} ms")
    assert seconds < 5.0  # generous: a shared CI core; measured about 0.1 s


def test_it_runs_again_only_after_a_poll_that_brought_data_to_its_runs(make_board, writers, tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def fn(lg: Any, runs: list[str]) -> go.Figure:
        calls.append(list(runs))
        return acc_vs_loss(lg, runs)

    board = make_board(tmp_path / "logs")
    board.add_card("acc", fn)
    page = Page(board)
    page.ask(request("acc", ["a"], request_id=7))
    assert calls == [["a"]]
    board._poll_tick()  # nothing new
    assert calls == [["a"]] and not pushes(page)
    wa, wb = writers
    wb.add_scalar("loss", 0.01, 10, wall_time=T0 + 10)  # new data, but not for the card's runs
    wb.flush()
    board._poll_tick()
    assert calls == [["a"]] and not pushes(page)
    wa.add_scalar("loss", 0.02, 10, wall_time=T0 + 10)
    wa.add_scalar("accuracy", 0.9, 10, wall_time=T0 + 10)
    wa.flush()
    board._poll_tick()
    assert calls == [["a"], ["a"]]
    (push,) = pushes(page)
    assert push["id"] == 7 and push["type"] == "custom_card" and push["runs"] == ["a"]
    assert push["figure"]["data"][0]["x"][-1] == pytest.approx(0.02)


def test_the_poll_thread_runs_it(make_board, writers, tmp_path: Path) -> None:
    threads: list[str] = []
    done = threading.Event()

    def fn(lg: Any, runs: list[str]) -> pd.DataFrame:
        threads.append(threading.current_thread().name)
        if len(threads) > 1:
            done.set()
        return pd.DataFrame({"run": runs})

    board = make_board(tmp_path / "logs", reload_interval=0.05)
    board.add_card("t", fn)
    Page(board).ask(request("t", ["a"]))
    writers[0].add_scalar("loss", 0.5, 20, wall_time=T0 + 20)
    writers[0].flush()
    assert done.wait(10)
    assert threads[0] == threading.current_thread().name and threads[1].startswith("tbnb-poll")


def test_an_error_is_the_cards_message_and_the_board_goes_on(make_board, writers, tmp_path: Path) -> None:
    def broken(lg: Any, runs: list[str]) -> go.Figure:
        return lg.scalars(runs[0], "no <such> tag")

    board = make_board(tmp_path / "logs")
    board.add_card("broken", broken)
    board.add_card("not a figure", lambda lg, runs: 42)
    page = Page(board)
    reply = page.decoded(request("broken", ["a"]))
    assert reply["type"] == "custom_card" and "figure" not in reply
    assert reply["error"].startswith("KeyError") and "no <such> tag" in reply["error"]
    assert "\n" not in reply["error"]  # the traceback's last line only
    other = page.decoded(request("not a figure", ["a"], request_id=2))
    assert other["error"] == "TypeError: a card function returns a plotly figure or a pandas DataFrame, not int"
    assert page.decoded({"type": "index", "id": 3})["type"] == "index"  # the Board answers on
    card = board.card("broken")
    assert "no &lt;such&gt; tag" in card.inner_html() and "<such>" not in card.inner_html()


def test_a_dataframe_is_drawn_as_a_table(make_board, writers, tmp_path: Path) -> None:
    def last(lg: Any, runs: list[str]) -> pd.DataFrame:
        return pd.DataFrame({"run": runs, "last loss": [lg.scalars(r, "loss").value[-1] for r in runs]})

    board = make_board(tmp_path / "logs")
    board.add_card("last", last)
    reply = Page(board).decoded(request("last", ["a", "b"]))
    assert reply["table"] == {"columns": ["run", "last loss"], "rows": [["a", "0.2"], ["b", "0.2"]], "total": 2}
    html = board.card("last").inner_html()
    assert "last loss" in html and "<td>a</td>" in html


def test_traces_named_after_runs_take_their_colours_unless_set(make_board, writers, tmp_path: Path) -> None:
    def fn(lg: Any, runs: list[str]) -> go.Figure:
        fig = acc_vs_loss(lg, runs)
        fig.add_scatter(x=[0], y=[0], name="b", line={"color": "#000000"})  # its own colour stays
        fig.add_scatter(x=[0], y=[0], name="not a run")
        return fig

    board = make_board(tmp_path / "logs", run_colors={"a": "#123456"})
    board.add_card("colours", fn)
    figure = board.card("colours").figure
    by_name = [(t.name, t.marker.color, t.line.color) for t in figure.data]
    assert by_name[0] == ("a", "#123456", "#123456")
    assert by_name[1][0] == "b" and by_name[1][1] == by_name[1][2] and by_name[1][1] != "#000000"
    assert by_name[2] == ("b", None, "#000000")
    assert by_name[3] == ("not a run", None, None)
    assert with_run_colors([{"name": "a", "marker": {"color": "red"}}], {"a": "#123456"}) == \
        [{"name": "a", "marker": {"color": "red"}}]
    assert "colours" in board.to_html()


def test_remove_card_and_replacing_a_function(make_board, writers, tmp_path: Path) -> None:
    board = make_board(tmp_path / "logs")
    board.add_card("x", lambda lg, runs: pd.DataFrame({"v": [1]}))
    page = Page(board)
    page.ask(request("x", ["a"], request_id=4))
    board.add_card("x", lambda lg, runs: pd.DataFrame({"v": [2]}))  # replaced: the card redraws
    assert board.custom_cards == ["x"]
    assert pushes(page)[-1]["table"]["rows"] == [["2"]] and pushes(page)[-1]["id"] == 4
    board.remove_card("x")
    assert board.custom_cards == []
    assert page.decoded(request("x", ["a"], request_id=5))["type"] == "error"
    with pytest.raises(KeyError, match="no custom card"):
        board.remove_card("x")
    with pytest.raises(TypeError):
        board.add_card("y", "not a function")  # type: ignore[arg-type]


def test_a_slow_function_reports_its_wall_time(make_board, writers, tmp_path: Path) -> None:
    def slow(lg: Any, runs: list[str]) -> pd.DataFrame:
        time.sleep(0.6)
        return pd.DataFrame({"v": [1]})

    board = make_board(tmp_path / "logs")
    board.add_card("slow", slow)
    assert Page(board).decoded(request("slow", ["a"]))["seconds"] >= 0.6
