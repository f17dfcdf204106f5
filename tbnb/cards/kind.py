"""The contract between card makers and ``board.card(kind=...)`` (registry.py).

Kept free of imports from the rest of tbnb so that a dashboard module can import it without an
import circle: ``tbnb/board/dashboards/<name>.py`` declares its cards with one line,

    CARDS = (CardKind("pr_curves", ("pr_curves",), pr_curve_card),)

where ``pr_curve_card(view, tag, **options) -> tbnb.cards.output.Card`` builds the card from a
``tbnb.cards.view.CardView`` (the source and the board's settings then: shown runs, colours,
x axis, width...) and raises ValueError when no shown run holds the tag as its kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

#: ``maker(view, tag, **options) -> Card``; options are the kind's own (``step=``, ``mode=``...).
CardMaker = Callable[..., Any]


@dataclass(frozen=True)
class CardKind:
    """A kind of card: its name (= the dashboard's, as in ``card_types``), the plugins whose tags
    it draws (the first kind listing a plugin is that plugin's default), and its maker."""

    kind: str
    plugins: tuple[str, ...]
    make: CardMaker
