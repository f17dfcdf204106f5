"""Settings: synced traits with TensorBoard's defaults, validated, settable from both sides."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from traitlets import TraitError

from tbnb.board import protocol
from tbnb.board.widget import Board


def test_defaults_are_the_protocols(make_board, small_logdir: Path) -> None:
    b = make_board(small_logdir)
    assert (b.dashboard, b.smoothing, b.x_axis, b.log_y, b.ignore_outliers) == ("timeseries", 0.6, "step", False, True)
    assert (b.runs, b.hidden_runs, b.tag_filter, b.pinned, b.card_width) == ([".*"], [], "", [], 420)
    assert b.view_state == {}
    assert b.reload_interval == 0 and b.polling is False


def test_synced_names_on_the_wire(make_board, small_logdir: Path) -> None:
    state = make_board(small_logdir).get_state()
    for name in ("dashboard", "smoothing", "x_axis", "log_y", "ignore_outliers", "runs", "hidden_runs",
                 "run_colors", "tag_filter", "pinned", "card_width", "view", "status", "_esm"):
        assert name in state
    assert "view_state" not in state  # Board.view is the DataFrame; the trait is "view" on the wire


def test_settings_round_trip_from_python(make_board, small_logdir: Path) -> None:
    b = make_board(small_logdir, smoothing=0.9, x_axis="wall", runs=["a"], pinned=["loss"])
    assert (b.smoothing, b.x_axis, b.runs, b.pinned) == (0.9, "wall", ["a"], ["loss"])
    b.dashboard, b.log_y, b.ignore_outliers, b.tag_filter, b.card_width = "scalars", True, False, "lo", 600
    b.hidden_runs = ["b"]
    b.runs = "mnist/.*"  # one regex is a list of one
    assert b.get_state(["dashboard", "log_y", "ignore_outliers", "tag_filter", "card_width", "hidden_runs", "runs"]) == {
        "dashboard": "scalars", "log_y": True, "ignore_outliers": False, "tag_filter": "lo",
        "card_width": 600, "hidden_runs": ["b"], "runs": ["mnist/.*"]}


def test_python_changes_are_sent_with_wire_names(make_board, small_logdir: Path, monkeypatch) -> None:
    b = make_board(small_logdir)
    sent: list[dict] = []
    monkeypatch.setattr(b, "_send", lambda msg, buffers=None: sent.append(msg))  # ipywidgets' comm send
    b.view_state = {"tags": {"loss": {"x": [1, 2]}}, "x_axis": "step"}
    b.smoothing = 0.3
    assert [m["state"] for m in sent if m["method"] == "update"] == [
        {"view": {"tags": {"loss": {"x": [1, 2]}}, "x_axis": "step"}}, {"smoothing": 0.3}]


def test_page_changes_arrive_with_wire_names(make_board, small_logdir: Path) -> None:
    b = make_board(small_logdir)
    b.set_state({"view": {"tags": {"loss": {"x": None}}, "x_axis": "step"}, "smoothing": 0.25,
                 "run_colors": {"a": "#FF0000", "b": "#00ff00"}})
    assert b.view_state == {"tags": {"loss": {"x": None}}, "x_axis": "step"}
    assert b.smoothing == 0.25 and b.run_colors == {"a": "#ff0000", "b": "#00ff00"}


@pytest.mark.parametrize(("value", "clamped"), [(1.5, 0.999), (0.999, 0.999), (-0.2, 0.0), (0, 0.0), (0.5, 0.5)])
def test_smoothing_is_clamped(make_board, small_logdir: Path, value: float, clamped: float) -> None:
    b = make_board(small_logdir)
    b.smoothing = value
    assert b.smoothing == clamped


@pytest.mark.parametrize(("name", "value"), [
    ("smoothing", math.nan), ("smoothing", "high"), ("x_axis", ""), ("x_axis", 5), ("dashboard", "no-such-dashboard"),
    ("runs", ["mnist/(unclosed"]), ("runs", ["ok", "*bad"]), ("run_colors", {"a": "red"}),
    ("run_colors", {"a": "#12345"}), ("card_width", 10), ("hidden_runs", [1]), ("log_y", "yes"),
    ("card_types", ["scalars", "text"]), ("card_types", [1]), ("histogram_mode", "ridges"),
    ("image_brightness", 2001), ("image_brightness", -1), ("image_brightness", 1.5), ("image_contrast", 5001),
    ("image_contrast", -1), ("image_actual_size", "yes"), ("max_blob_bytes", -1), ("max_blob_bytes", "4MB"),
])
def test_invalid_values_are_rejected(make_board, small_logdir: Path, name: str, value: object) -> None:
    b = make_board(small_logdir)
    before = getattr(b, name)
    with pytest.raises(TraitError):
        setattr(b, name, value)
    assert getattr(b, name) == before


def test_invalid_regex_message_names_the_pattern(make_board, small_logdir: Path) -> None:
    with pytest.raises(TraitError, match=r"invalid regular expression 'a\('"):
        make_board(small_logdir).runs = ["a("]


def test_invalid_tag_filter_is_allowed(make_board, small_logdir: Path) -> None:
    b = make_board(small_logdir)
    b.tag_filter = "loss("  # the user is typing; TensorBoard then filters nothing
    assert b.tag_filter == "loss("


def test_constructor_arguments(small_logdir: Path) -> None:
    with pytest.raises(TypeError, match="smothing"):
        Board(small_logdir, smothing=0.9)
    with pytest.raises(ValueError, match="exactly one"):
        Board(small_logdir, logdir_spec=f"x:{small_logdir}")
    with pytest.raises(ValueError, match="exactly one"):
        Board()
    for bad in (-1, math.inf, "2"):
        with pytest.raises(ValueError, match="reload_interval"):
            Board(small_logdir, reload_interval=bad)
    with pytest.raises(TraitError):
        Board(small_logdir, reload_interval=0, x_axis="")


def test_missing_bundle_is_a_clear_error(small_logdir: Path, tmp_path: Path, monkeypatch) -> None:
    from tbnb.board import assets

    monkeypatch.setattr(assets, "BUNDLE", tmp_path / "static" / "board.js")
    with pytest.raises(RuntimeError, match="bundle is not built") as info:
        Board(small_logdir)
    assert "npm --prefix js ci && npm --prefix js run build" in str(info.value)
    assert "reinstall" in str(info.value)
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "board.js").write_text("  \n")
    with pytest.raises(RuntimeError, match="empty"):
        Board(small_logdir)


def test_bundle_and_styles_are_the_esm_and_css(make_board, small_logdir: Path, bundle: Path) -> None:
    bundle.with_suffix(".css").write_text(".tbnb { color: red }")
    b = make_board(small_logdir)
    assert b._esm == bundle.read_text() and b._css == ".tbnb { color: red }"


def test_protocol_constants() -> None:
    assert protocol.VERSION == 1 and len(protocol.PALETTE) == 7


def test_the_readers_histogram_defaults_are_the_boards_constants() -> None:
    """The reader keeps TensorBoard's defaults of its own (it imports no board code); the Board
    passes constants.json's values explicitly, and the two must not drift apart."""
    from tbnb.reader.plugins import histograms

    assert histograms.BASIS_POINTS == protocol.BASIS_POINTS
    assert histograms.BIN_COUNT == protocol.HISTOGRAM_BINS
