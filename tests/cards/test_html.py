"""plotly.js once per page: which card carries it, how a page is assembled, what is escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tbnb
from tbnb.board import assets
from tbnb.cards import html as page

PLOTLY_BYTES = len(assets.plotly_js()[0])


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new kernel: no card has carried plotly.js yet."""
    page.forget_plotlyjs()
    monkeypatch.setattr(page, "cell_id", lambda: None)
    monkeypatch.setattr(page, "execution_count", lambda: None)


def html_of(card) -> str:
    return card._repr_mimebundle_()["text/html"]


def test_the_first_card_carries_plotly_js_and_later_ones_do_not(logdir: Path) -> None:
    first, second = html_of(tbnb.card(logdir, "loss")), html_of(tbnb.card(logdir, "loss"))
    assert "window.Plotly" in first and len(first) > PLOTLY_BYTES
    assert len(second) < 100_000 and "plotly.js v" not in second
    assert first.count("plotly.js v") == 1  # the library's banner, once
    # An HTML-only card never carries it and does not use up the claim.
    page.forget_plotlyjs()
    assert "plotly.js v" not in html_of(tbnb.card(logdir, "notes/text_summary"))
    assert "plotly.js v" in html_of(tbnb.card(logdir, "loss"))


def test_rerunning_the_carrying_cell_carries_again(logdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    where = {"cell": "cell-1", "n": 1}
    monkeypatch.setattr(page, "cell_id", lambda: where["cell"])
    monkeypatch.setattr(page, "execution_count", lambda: where["n"])
    card = tbnb.card(logdir, "loss")
    assert "plotly.js v" in html_of(card)
    assert "plotly.js v" not in html_of(card)  # the same cell's run: one copy is enough
    where.update(cell="cell-2", n=2)
    assert "plotly.js v" not in html_of(card)
    where.update(cell="cell-1", n=3)  # cell 1 again: its old output (with plotly.js) is replaced
    assert "plotly.js v" in html_of(card)


def test_plotly_js_is_guarded_against_requirejs_and_a_second_copy() -> None:
    script = page.plotlyjs_script()
    assert script.startswith("<script>") and script.endswith("</script>")
    assert "if (!window.Plotly) { (function (define, module, exports) {" in script
    assert script.lower().count("</script") == 1


def test_a_chart_waits_for_plotly_and_says_so_without_it(logdir: Path) -> None:
    text = html_of(tbnb.card(logdir, "loss"))
    assert 'document.addEventListener("DOMContentLoaded", draw)' in text
    assert page.NO_PLOTLY in text.replace("&#x27;", "'")


def test_hostile_text_cannot_end_the_json_script() -> None:
    value = {"title": "</script><script>window.__pwned=1</script>&<!--"}
    text = page.script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_card_page_and_ids(logdir: Path, tmp_path: Path) -> None:
    card = tbnb.card(logdir, "loss")
    out = tmp_path / "card.html"
    text = card.to_html(out)
    assert out.read_text(encoding="utf-8") == text
    assert text.startswith("<!DOCTYPE html>") and text.count("plotly.js v") == 1
    ids = re.findall(r'id="(tbnb-card-[0-9a-f]+-\d+)"', card.inner_html() + card.inner_html())
    assert len(ids) == len(set(ids)) == 2


def test_text_plain_says_what_it_is(logdir: Path) -> None:
    bundle = tbnb.card(logdir, "loss")._repr_mimebundle_()
    assert bundle["text/plain"].startswith("tbnb scalars card 'loss': 3 run(s), 900 points")
    assert set(bundle) == {"text/plain", "text/html", "application/vnd.plotly.v1+json"}
    assert not any("widget" in k for k in bundle)
