"""What the cards read of a Board: its public settings, named here as a protocol.

The Board imports the cards (its ``card``/``to_html`` methods, its custom cards); the cards
never import the Board's widget. They read a Board through this protocol only, so any object
with these attributes (a test's stand-in, a saved board's settings) can be drawn from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..board.sources import MultiLogdir
    from ..reader.logdir.logdir import Logdir
    from .output import Card


class BoardState(Protocol):
    """The settings of a Board that its cards are drawn with (``tbnb.Board``'s traits). A Board's
    ``source`` (its virtual tags too) and ``hidden_patterns`` are read when it has them."""

    logdir: Logdir | MultiLogdir
    dashboard: str
    runs: Sequence[str]
    hidden_runs: Sequence[str]
    run_colors: Mapping[str, str]
    smoothing: float
    x_axis: str
    log_y: bool
    histogram_mode: str
    card_width: int
    card_types: Sequence[str]
    max_blob_bytes: int
    tag_filter: str
    pinned: Sequence[str]
    view_state: Mapping[str, Any]


@runtime_checkable
class CustomCards(Protocol):
    """A Board with ``add_card`` functions: their cards come first on the time series tab."""

    custom_cards: Sequence[str]

    def custom_card(self, title: str) -> Card: ...
