"""The diagnostics cards as static outputs: the tab as one card (sentences beside their figures),
the update-ratio card (log y, band, guide, emphasis; a heatmap for many tensors) and the
loss-vs-learning-rate card (log x, a range test's suggestion), on tbnb-written logs."""

from __future__ import annotations

from pathlib import Path

import pytest

import tbnb
from tbnb.board.widget import Board
from tbnb.cards.diagnostics import FindingsCard
from tbnb.testing import EventWriter
from tests.diagnostics_logs import T0, write_diagnostics_logdir

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def board(tmp_path: Path):
    root = write_diagnostics_logdir(tmp_path / "logs")
    with EventWriter(root / HOSTILE, start_time=T0) as w:
        for s in range(30):
            w.add_scalar("loss", 2.3 * (1 + s), s, wall_time=T0 + s)
    b = Board(root, reload_interval=0)
    yield b
    b.close()


def shape_names(figure) -> list[str]:
    return [s.name or s.type for s in figure.layout.shapes]


def test_the_diagnostics_card_holds_each_sentence_and_its_figure(board) -> None:
    card = board.card("diagnostics", kind="diagnostics")
    assert isinstance(card, FindingsCard)
    findings = {(f["run"], f["finding"]) for f in card.info["findings"]}
    assert {("overfit", "overfitting"), ("too_high", "lr_too_high"), ("ratios", "update_ratio_low"),
            ("ratios", "update_ratio_high"), ("lr_find", "lr_range_test"), (HOSTILE, "lr_too_high")} == findings
    assert card.info["quiet"] == ["healthy"]
    assert len(card.figures) == 5  # pair, lr (x2), lr_find, update_ratio
    text = card.to_html()
    assert HOSTILE not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # sentences are escaped
    assert "Nothing found in 1 run: healthy." in text
    assert text.count('class="tbnb-report-chart"') == 5
    pair = next(f for f in card.figures if any(t.name == "gap" for t in f.data))
    gap = next(t for t in pair.data if t.name == "gap")
    assert gap.fill == "tonexty"
    assert [s.x0 for s in pair.layout.shapes] == [40]  # the best validation step
    bundle = card._repr_mimebundle_()
    assert "application/vnd.plotly.v1+json" not in bundle and "text/html" in bundle


def test_the_update_ratio_card(board, tmp_path: Path) -> None:
    card = board.card("update_ratio", kind="update_ratio")
    assert card.info["run"] == "ratios"
    assert card.info["outside"] == ["update_ratio/layers.0.weight", "update_ratio/layers.1.weight"]
    fig = card.figure
    assert fig.layout.yaxis.type == "log"
    band, guide = fig.layout.shapes
    assert (band.y0, band.y1) == (1e-4, 1e-2) and guide.y0 == 1e-3  # by value: plotly.js 4 on a log axis
    widths = {t.name: t.line.width for t in fig.data}
    assert widths["layers.0.weight"] > widths["layers.2.weight"]
    many = Board(write_diagnostics_logdir(tmp_path / "many", n_tensors=30), reload_interval=0)
    try:
        heat = many.card("update_ratio/all", kind="update_ratio", run="ratios").figure
        assert heat.data[0].type == "heatmap" and list(heat.data[0].y)[:2] == ["layers.0.weight", "layers.1.weight"]
    finally:
        many.close()
    with pytest.raises(ValueError, match="has no update_ratio"):
        board.card("update_ratio", kind="update_ratio", run="healthy")


def test_the_loss_vs_lr_card(board) -> None:
    card = board.card("loss", kind="loss_vs_lr", run="lr_find")
    from tbnb.reader.plugins.diagnostics.lr_find import lr_range_test

    assert card.info["suggestion"] == lr_range_test(board.logdir, "lr_find").suggestion
    fig = card.figure
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.shapes[0].x0 == card.info["suggestion"]
    plain = board.card("loss", kind="loss_vs_lr", run="healthy")  # a constant rate: no suggestion
    assert plain.info["suggestion"] is None and not plain.figure.layout.shapes
    with pytest.raises(ValueError, match="no shown run has scalar tag 'nope'"):
        board.card("nope", kind="loss_vs_lr")


def test_a_derived_tag_has_a_scalar_card_too(tmp_path: Path) -> None:
    b = Board(write_diagnostics_logdir(tmp_path / "logs"), reload_interval=0,
              derived={"gap": "{loss/val} - {loss/train}"})
    try:
        card = b.card("gap")
        assert card.kind == "scalars" and card.info["runs"] == ["overfit"] and card.info["points"] == 20
        frame = tbnb.load(tmp_path / "logs").derive("{loss/val} - {loss/train}")
        assert card.info["last_steps"] == {"overfit": int(frame.step.max())}
    finally:
        b.close()


def test_to_html_of_the_diagnostics_tab(board, tmp_path: Path) -> None:
    board.dashboard = "diagnostics"
    text = board.to_html(tmp_path / "report.html", title="diagnostics")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == text
    assert text.count('class="tbnb-report-chart"') == 5 and "overfitting" in text
    assert "window.Plotly" in text  # plotly.js inlined: the charts draw offline
    assert HOSTILE not in text
