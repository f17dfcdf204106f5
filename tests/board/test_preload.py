"""``%load_ext tbnb`` sends plotly.js's cartesian build to the page before any Board
(preload.py): once per kernel, only where a front end listens, and the carrier closes itself when
the page says the script ran; the first Board then sends nothing unasked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tbnb.board import assets, preload, widget
from tbnb.testing import EventWriter

pytestmark = pytest.mark.skipif(assets.read_preload() is None, reason="the JS build (npm run build) has not run")


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, Any]]:
    """Every custom message sent by a widget, with a comm that reaches a front end, as in a kernel."""
    from ipywidgets import comm as widget_comm

    events: list[tuple[str, Any, Any]] = []
    monkeypatch.setattr(preload, "_plotly_pushed", False)
    for cls in (widget.Board, preload.PlotlyPreload):
        monkeypatch.setattr(cls, "send", lambda self, content, buffers=None, cls=cls: events.append((cls.__name__, content, buffers)))
    create = widget_comm.create_comm

    def kernel_comm(*args: Any, **kwargs: Any) -> Any:
        made = create(*args, **kwargs)
        made.kernel = object()
        return made

    monkeypatch.setattr(widget_comm, "create_comm", kernel_comm)
    return events


def test_preload_sends_the_cartesian_build_once_and_the_first_board_sends_nothing(sent, tmp_path: Path) -> None:
    with EventWriter(tmp_path / "a") as w:
        w.add_scalar("loss", 1.0, 0)
    carrier = preload.preload_plotly()
    assert carrier is not None and carrier.comm is not None
    [(who, content, buffers)] = sent
    assert who == "PlotlyPreload" and content["type"] == "plotly"
    assert content["bundle"] == assets.plotly_bundle_served("cartesian")
    assert bytes(buffers[0]) == assets.plotly_js("cartesian")[0]
    assert carrier._esm == assets.read_preload()

    assert preload.preload_plotly() is None  # a second %load_ext (or reload_ext) sends nothing
    board = widget.Board(tmp_path, reload_interval=0)
    try:
        assert len(sent) == 1, "the Board found plotly.js sent already"
    finally:
        board.close()

    carrier._handle_custom_msg({"type": "other"}, [])
    assert carrier.comm is not None
    carrier._handle_custom_msg({"type": "ran"}, [])  # the page ran it: not kept in saved widget state
    assert carrier.comm is None


def test_without_a_front_end_nothing_is_sent_and_the_board_still_pushes(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[Any] = []
    monkeypatch.setattr(preload, "_plotly_pushed", False)
    monkeypatch.setattr(preload.PlotlyPreload, "send", lambda self, content, buffers=None: events.append(content))
    assert preload.preload_plotly() is None  # a plain script's comm reaches nobody
    assert events == []
    assert preload._plotly_pushed is False
