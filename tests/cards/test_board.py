"""``board.card`` and ``board.to_html``: the board's settings now, its visible cards, and sizes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from tbnb.board import assets
from tbnb.cards import html as page
from tbnb.testing import write_scalar_logdir

from .conftest import RUNS, traces_of

PLOTLY_BYTES = len(assets.plotly_js()[0])


def test_board_card_follows_the_boards_settings(make_board, logdir: Path) -> None:
    board = make_board(logdir, smoothing=0.9, x_axis="step", hidden_runs=["b"], log_y=True,
                       run_colors={"c/x": "#00aa00"})
    board.view_state = {"x_axis": "step", "tags": {"loss": {"x": [200, 50]}}}
    card = board.card("loss")
    traces = traces_of(card)
    assert [t["name"] for t in traces[1::2]] == ["a", "c/x"]
    assert traces[3]["line"]["color"] == "#00aa00" and traces[1]["line"]["color"] == board.run_colors["a"]
    assert traces[0]["x"].tolist() == list(range(50, 201))
    assert card.figure.layout.xaxis.range == (50.0, 200.0) and card.figure.layout.yaxis.type == "log"
    assert "smoothing 0.9" in card.summary
    # A zoom recorded on another axis no longer applies; options override a setting for one card.
    board.view_state = {"x_axis": "wall", "tags": {"loss": {"x": [200, 50]}}}
    other = board.card("loss", smoothing=0.0, width=300)
    assert len(traces_of(other)[0]["x"]) == 300 and "smoothing 0" in other.summary
    assert board.card("w", "distributions").kind == "distributions"
    assert board.card("w").figure.layout.title.text.startswith("w ") and "offset" in board.card("w").summary
    board.histogram_mode = "overlay"
    assert "overlay" in board.card("w").summary
    board.hidden_patterns = ["c/.*"]  # runs switched off by a pattern (the selector's "all" box)
    assert [t["name"] for t in traces_of(board.card("loss"))[1::2]] == ["a"]


def card_titles(text: str) -> list[str]:
    """The cards of a page in order: a chart's figure title (its tag), an HTML card's heading."""
    found = re.findall(r'<script type="application/json" id="[^"]+">(.*?)</script>|<h3>([^<]*)</h3>', text)
    return [json.loads(fig)["layout"]["title"]["text"].split("  ")[0] if fig else h3 for fig, h3 in found]


def test_to_html_writes_the_visible_cards(make_board, logdir: Path, tmp_path: Path) -> None:
    board = make_board(logdir, card_types=["scalars", "images"], pinned=["loss"])
    text = board.to_html(tmp_path / "report.html")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == text
    assert card_titles(text) == ["loss", "long", "img"]  # pinned first, then sorted; images after scalars
    assert text.count("plotly.js v") == 1
    board.tag_filter = "^lo"
    board.dashboard = "scalars"
    assert card_titles(board.to_html()) == ["loss", "long"]
    board.dashboard = "text"
    text = board.to_html()
    assert "plotly.js v" not in text and "<h3>notes/text_summary</h3>" not in text  # filtered out
    board.tag_filter = ""
    assert "<h3>notes/text_summary</h3>" in board.to_html()


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 runs x 16 tags x 20,000 steps."""
    return write_scalar_logdir(tmp_path_factory.mktemp("big"), runs=8, tags=16, steps=20_000)


def test_sizes_of_8_runs_by_20000_steps(make_board, big: Path, tmp_path: Path) -> None:
    page.forget_plotlyjs()
    board = make_board(big)
    board.card("group_0/metric_0")._repr_mimebundle_()  # carries plotly.js: not measured
    card = board.card("group_0/metric_1")
    bundle = card._repr_mimebundle_()
    plotly_json = len(json.dumps(bundle["application/vnd.plotly.v1+json"]))
    html = len(bundle["text/html"].encode())
    assert plotly_json <= 300_000 and html <= 300_000, (plotly_json, html)
    assert card.info["points"] == 8 * 20_000 and card.info["drawn"] <= 8 * (2 * board.card_width + 2)
    assert f"160,000 points ({card.info['drawn']:,} drawn)" in card.figure.layout.title.text
    report = board.to_html(tmp_path / "report.html")
    size = len(report.encode())
    assert report.count('class="tbnb-report-chart"') == 16
    assert size <= 8_000_000, size
    assert size - PLOTLY_BYTES <= 16 * 300_000
    print(f"\ncard: plotly JSON {plotly_json:,} B, text/html {html:,} B; to_html of 16 cards {size:,} B")


def test_steps_are_exact_in_the_data(make_board, big: Path) -> None:
    traces = traces_of(make_board(big, runs=["run_0[01]"]).card("group_3/metric_15"))
    assert len(traces) == 4 and all(t["x"][-1] == 19_999 and t["x"][0] == 0 for t in traces)
    assert all(np.all(np.diff(t["x"]) > 0) for t in traces)


def test_bad_kind_and_tag(make_board, logdir: Path) -> None:
    board = make_board(logdir)
    with pytest.raises(ValueError, match="unknown card kind 'nope'"):
        board.card("loss", "nope")
    with pytest.raises(ValueError, match="tag must be a non-empty string"):
        board.card("")
    with pytest.raises(TypeError):
        board.card("img", stepp=3)
    assert sorted(RUNS) == list(board.card("loss").info["runs"])
