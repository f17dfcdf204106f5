"""``board.card(...)`` and ``board.to_html(...)``: the Board's cards, from its public state only.

A plain mixin (no traits): the Board lists it among its bases (the Board imports the cards,
never the other way: tests/test_architecture_board.py); everything here reads the board through
the public attributes board_state.py names (``logdir``, ``runs``, ``run_colors``, ``smoothing``,
``x_axis``, ``view_state``, ``dashboard``, ``card_types``, ``pinned``...).
"""

from __future__ import annotations

import os
from dataclasses import fields
from typing import Any

from .board_state import BoardState, CustomCards
from .html import page_html, write_text
from .output import Card
from .registry import make_card, page_kinds
from .view import CardView

_VIEW_FIELDS = frozenset(f.name for f in fields(CardView)) - {"source", "runs", "colors", "zoom"}


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(settings of the view, e.g. ``smoothing=``/``width=``; the kind's own options, e.g. ``step=``)."""
    view = {k: v for k, v in options.items() if k in _VIEW_FIELDS}
    return view, {k: v for k, v in options.items() if k not in _VIEW_FIELDS}


def visible_cards(board: BoardState, **options: Any) -> list[Card]:
    """The cards of the board's current dashboard, pinned tags first, as ``board.to_html`` writes them."""
    view_options, kind_options = split_options(options)
    view = CardView.from_board(board, **view_options)
    # The custom cards (board.add_card) come first on the time series tab, as on the page.
    custom = board if board.dashboard == "timeseries" and isinstance(board, CustomCards) else None
    cards: list[Card] = [custom.custom_card(title) for title in custom.custom_cards] if custom is not None else []
    for entry in page_kinds(board.dashboard, list(board.card_types)):
        # A kind of no plugin (the diagnostics tab) is one card of no tag, as on the page.
        tags = view.visible_tags(entry.plugins) if entry.plugins else [""]
        pinned = [t for t in board.pinned if t in tags]
        for tag in pinned + [t for t in tags if t not in pinned]:
            cards.append(entry.make(view, tag, **kind_options))
    return cards


class CardMethods:
    """The Board's card API (mixed into ``tbnb.Board``)."""

    def card(self: BoardState, tag: str, kind: str | None = None, **options: Any) -> Card:
        """The card of ``tag`` as the board shows it now: shown runs, colours, smoothing, zoom,
        x axis. ``kind`` picks another card of the tag ("distributions" of a histogram tag);
        ``options`` override a setting for this card (``smoothing=0.9``, ``width=800``) or are
        the kind's (``step=`` for images/audio/text, ``mode="overlay"`` for histograms)."""
        view_options, kind_options = split_options(options)
        return make_card(CardView.from_board(self, **view_options), tag, kind, **kind_options)

    def to_html(self: BoardState, path: str | os.PathLike[str] | None = None, *, title: str | None = None,
                **options: Any) -> str:
        """The board's visible cards (its dashboard, filters, pinned first) as one offline page
        with plotly.js inlined once; written to ``path`` (UTF-8) if given, and returned."""
        cards = visible_cards(self, **options)
        name = title or f"tbnb: {getattr(self.logdir, 'path', '')}"
        text = page_html(name, [c.inner_html() for c in cards], plotlyjs=any(c.figure is not None for c in cards))
        if path is not None:
            write_text(path, text)
        return text
