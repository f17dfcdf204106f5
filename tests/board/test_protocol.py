"""The message protocol's core and routing, driven as the page drives it: plotly.js, the index,
bad requests and failures as error replies."""

from __future__ import annotations

from pathlib import Path

import pytest

from tbnb.board.protocol import PALETTE
from tbnb.testing import EventWriter

from .conftest import T0, Page


@pytest.fixture
def page(make_board, small_logdir: Path) -> Page:
    return Page(make_board(small_logdir))


def test_plotly_reply_is_the_installed_plotly_js(page: Page) -> None:
    import plotly

    reply, buffers = page.ask({"type": "plotly"})
    expected = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    assert reply["type"] == "plotly"
    assert len(buffers) == 1 and bytes(buffers[0]) == expected
    assert reply["version"] in expected[:200].decode()
    assert reply["version"][0].isdigit()


def test_plotly_reply_serves_the_build_asked_for(page: Page) -> None:
    """``bundle``: "full" is the plotly package's script (also without "bundle"), "cartesian"
    the built asset; an unknown build is an error reply naming the builds."""
    from tbnb.board import assets

    full, full_buffers = page.ask({"type": "plotly", "bundle": "full"})
    assert full["bundle"] == "full" and bytes(full_buffers[0]) == assets.plotly_js("full")[0]
    cartesian, buffers = page.ask({"type": "plotly", "bundle": "cartesian"})
    assert cartesian["bundle"] == assets.plotly_bundle_served("cartesian")
    assert bytes(buffers[0]) == assets.plotly_js("cartesian")[0]
    assert cartesian["version"] == full["version"]
    if assets.PLOTLY_CARTESIAN.exists():  # built: a third of the full build
        assert cartesian["bundle"] == "cartesian" and len(buffers[0]) < len(full_buffers[0]) / 2
    bad, _ = page.ask({"type": "plotly", "bundle": "3d"})
    assert bad["type"] == "error" and "cartesian" in bad["message"] and "full" in bad["message"]


def test_index_lists_runs_tags_colours_and_counts(page: Page) -> None:
    reply = page.decoded({"type": "index"})
    assert reply["type"] == "index"
    assert reply["runs"] == [{"name": "a", "color": PALETTE[0], "start_time": T0},
                             {"name": "b", "color": PALETTE[1], "start_time": T0 + 100}]
    tags = {t["tag"]: t for t in reply["tags"]}
    assert set(tags) == {"acc", "loss", "weights"}
    assert tags["loss"] == {"tag": "loss", "plugin": "scalars", "runs": ["a", "b"], "points": {"a": 10, "b": 5}}
    assert tags["acc"]["points"] == {"a": 5}
    assert tags["weights"]["plugin"] == "histograms" and tags["weights"]["runs"] == ["a"]
    assert reply["problems"] == []


def test_index_reports_problems(make_board, small_logdir: Path) -> None:
    with EventWriter(small_logdir / "a", start_time=T0 + 50) as w:
        w.add_record_bytes(b"\xff\xff not an event")
    reply = Page(make_board(small_logdir)).decoded({"type": "index"})
    assert len(reply["problems"]) == 1 and "events.out.tfevents" in reply["problems"][0]


@pytest.mark.parametrize(("request_", "message"), [
    ({"type": "series", "id": 1, "tag": "nope", "runs": ["a"], "width": 100}, "unknown tag 'nope'"),
    ({"type": "series", "id": 1, "tag": "weights", "runs": ["a"], "width": 100}, "histograms tag"),
    ({"type": "csv", "id": 1, "tag": "nope", "runs": ["a"]}, "unknown tag"),
    ({"type": "series", "id": 1, "runs": ["a"], "width": 100}, "needs 'tag'"),
    ({"type": "series", "id": 1, "tag": "loss", "runs": "a", "width": 100}, "'runs' must be a list"),
    ({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 0}, "'width'"),
    ({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 100, "x_axis": "time"}, "'x_axis'"),
    ({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 100, "range": [0]}, "'range'"),
    ({"type": "series", "id": 1, "tag": "loss", "runs": ["a"], "width": 100, "range": ["a", 1]}, "'range'"),
    ({"type": "series", "id": "x", "tag": "loss", "runs": ["a"], "width": 100}, "'id' must be an integer"),
    ({"type": "telemetry"}, "unknown request type 'telemetry'"),
    ({"no": "type"}, "unknown request type None"),
    (["not", "a", "dict"], "must be an object"),
])
def test_bad_requests_get_error_replies(page: Page, request_: object, message: str) -> None:
    reply, buffers = page.ask(request_)
    assert reply["type"] == "error" and message in reply["message"] and buffers == []
    expected_id = request_.get("id") if isinstance(request_, dict) and isinstance(request_.get("id"), int) else None
    assert reply["id"] == expected_id


def test_internal_failures_become_error_replies(page: Page, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(page.board._source, "scalars", broken)
    reply, _ = page.ask({"type": "series", "id": 9, "tag": "loss", "runs": ["a"], "width": 10})
    assert reply == {"type": "error", "id": 9, "message": "OSError: disk on fire"}


def test_anywidget_commands_are_left_to_anywidget(page: Page) -> None:
    page.board._handle_custom_msg({"kind": "anywidget-command", "name": "x", "msg": {}}, [])
    assert not any(c.get("type") == "error" for c, _ in page.recorder.sent)
