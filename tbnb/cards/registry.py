"""Which card makers exist: the built-in kinds and those dashboard modules declare (``CARDS``).

The built-in dashboards' kinds are listed here, not in their modules: the cards read the
dashboards' handlers, so a built-in dashboard imports no card module (tests/test_architecture_board.py).

``board.card(tag, kind=...)`` and ``tbnb.card(...)`` look the kind up here; without a kind, the
first kind that lists the tag's plugin is used (scalars -> "scalars", histograms ->
"histograms", ...). A dashboard that adds a card kind does not edit this file: it declares
``CARDS`` in its module (kind.py says how) and its module is in the dashboard registry.
"""

from __future__ import annotations

from typing import Any

from .diagnostics import diagnostics_card, lr_card, update_ratio_card
from .histograms import distribution_card, histogram_card
from .kind import CardKind
from .media import audio_card, images_card, text_card
from .output import Card
from .scalars import scalars_card
from .view import CardView

BUILTIN: tuple[CardKind, ...] = (
    CardKind("scalars", ("scalars",), scalars_card),
    CardKind("histograms", ("histograms",), histogram_card),
    CardKind("distributions", ("histograms",), distribution_card),
    CardKind("images", ("images",), images_card),
    CardKind("audio", ("audio",), audio_card),
    CardKind("text", ("text",), text_card),
    # The diagnostics dashboard's: the tab as one card, and two any run can have.
    CardKind("diagnostics", (), diagnostics_card),
    CardKind("update_ratio", ("scalars",), update_ratio_card),
    CardKind("loss_vs_lr", ("scalars",), lr_card),
)


def kinds() -> dict[str, CardKind]:
    """Every card kind by name: the built-in ones, then the dashboards' ``CARDS`` in registry order.

    ValueError if two declare one name (which maker answers would be an accident).
    """
    from ..board.dashboards import MODULES  # read now: the registry may grow after import

    table: dict[str, CardKind] = {}
    declared = list(BUILTIN) + [k for m in MODULES for k in getattr(m, "CARDS", ())]
    for entry in declared:
        if entry.kind in table:
            raise ValueError(f"card kind {entry.kind!r} is declared twice")
        table[entry.kind] = entry
    return table


def kind_for(view: CardView, tag: str, kind: str | None) -> CardKind:
    """The kind to draw ``tag`` with: ``kind`` if given, else the default of the tag's plugin."""
    table = kinds()
    if kind is not None:
        if kind not in table:
            raise ValueError(f"unknown card kind {kind!r}; kinds are {sorted(table)}")
        return table[kind]
    plugins = set(view.tag_plugins(tag).values())
    if not plugins:
        known = {t for run in view.source.runs() for t in _tags(view, run)}
        where = "in no run" if tag not in known else "in no shown run (see runs= / hidden_runs=)"
        raise ValueError(f"tag {tag!r} is {where}")
    for entry in table.values():
        if plugins & set(entry.plugins):
            return entry
    raise ValueError(f"tag {tag!r} is a {'/'.join(sorted(plugins))} tag, which no card kind draws yet")


def _tags(view: CardView, run: str) -> list[str]:
    try:
        return list(view.source.tags(run))
    except KeyError:
        return []


def make_card(view: CardView, tag: str, kind: str | None = None, **options: Any) -> Card:
    """The card of ``tag`` of the given (or default) kind."""
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"tag must be a non-empty string, got {tag!r}")
    return kind_for(view, tag, kind).make(view, tag, **options)


def page_kinds(dashboard: str, card_types: list[str]) -> list[CardKind]:
    """The kinds a dashboard shows: the time series dashboard's card types, else its own kind."""
    table = kinds()
    names = list(card_types) if dashboard == "timeseries" else [dashboard]
    return [table[n] for n in names if n in table]
