"""Cards: a dashboard card as a static notebook output that outlives the kernel.

``tbnb.card(logdir, tag, ...)`` (here ``card``) draws one without a board; ``board.card`` and
``board.to_html`` draw the board's (board.py). output.py says what a card's output holds, html.py
how plotly.js reaches an offline page, kind.py how a dashboard adds a card kind.
Submodules are imported on first use: a dashboard module imports ``tbnb.cards.kind`` while the
dashboard registry is still being imported.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..board.sources import MultiLogdir
    from ..reader.logdir.logdir import Logdir
    from .output import Card

__all__ = ["Card", "CardKind", "CardView", "card", "forget_plotlyjs"]

_LAZY = {"Card": ".output", "CardKind": ".kind", "CardView": ".view", "forget_plotlyjs": ".html"}


def card(logdir: str | os.PathLike[str] | Logdir | MultiLogdir, tag: str, kind: str | None = None, *,
         runs: Sequence[str] | str = (".*",), hidden_runs: Sequence[str] = (),
         run_colors: Mapping[str, str] | None = None, zoom: Mapping[str, Sequence[float]] | None = None,
         **options: Any) -> Card:
    """The card of ``tag`` in ``logdir`` (a path, read now, or a ``tbnb.Logdir``), as a new board
    with these settings would show it: ``runs`` regexes (full match), ``hidden_runs``,
    ``run_colors`` (others get the palette in sorted run order), ``zoom={tag: [x0, x1]}``,
    ``smoothing``, ``x_axis``, ``log_y``, ``histogram_mode``, ``width``, ``height``; the kind's own
    options (``step=``, ``mode=``) go to its maker."""
    from .board import split_options
    from .registry import make_card
    from .view import CardView

    view_options, kind_options = split_options(options)
    view = CardView.from_logdir(logdir, runs=runs, hidden_runs=hidden_runs, run_colors=run_colors, zoom=zoom,
                                **view_options)
    return make_card(view, tag, kind, **kind_options)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
