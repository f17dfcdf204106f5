"""The card kinds: defaults by plugin, and a dashboard module adding its kind with ``CARDS``."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

import tbnb
from tbnb.board import dashboards
from tbnb.cards import registry
from tbnb.cards.kind import CardKind
from tbnb.cards.output import Card
from tbnb.testing import write_demo_logdir


def test_builtin_kinds_and_defaults(logdir: Path) -> None:
    assert list(registry.kinds()) == ["scalars", "histograms", "distributions", "images", "audio", "text",
                                      "diagnostics", "update_ratio", "loss_vs_lr"]  # the last three: the diagnostics tab's
    assert [tbnb.card(logdir, t).kind for t in ("loss", "w", "img", "tone", "notes/text_summary")] == [
        "scalars", "histograms", "images", "audio", "text"]


def test_a_dashboard_module_adds_a_kind(monkeypatch: pytest.MonkeyPatch, tmp_path_factory) -> None:
    logdir = write_demo_logdir(tmp_path_factory.mktemp("demo"))
    with pytest.raises(ValueError, match="pr_curves tag, which no card kind draws yet"):
        tbnb.card(logdir, "pr/positive_class")

    def pr_card(view, tag: str, **options) -> Card:
        runs = [r for r, p in view.tag_plugins(tag).items() if p == "pr_curves"]
        return Card("pr_curves", tag, tag, f"pr card of {runs}", body="<p>pr</p>", info=options)

    module = types.ModuleType("tbnb.board.dashboards.fake_pr")
    module.CARDS = (CardKind("pr_curves", ("pr_curves",), pr_card),)
    monkeypatch.setattr(dashboards, "MODULES", [*dashboards.MODULES, module])
    card = tbnb.card(logdir, "pr/positive_class", thresholds=5)
    assert card.kind == "pr_curves" and card.info == {"thresholds": 5} and "mnist/lr_0.1" in card.summary
    module.CARDS = (CardKind("scalars", ("scalars",), pr_card),)
    with pytest.raises(ValueError, match="card kind 'scalars' is declared twice"):
        registry.kinds()


def test_page_kinds() -> None:
    assert [k.kind for k in registry.page_kinds("timeseries", ["histograms", "scalars"])] == ["histograms", "scalars"]
    assert [k.kind for k in registry.page_kinds("distributions", ["scalars"])] == ["distributions"]
    assert registry.page_kinds("graphs", ["scalars"]) == []
