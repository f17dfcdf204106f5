"""tbnb: TensorBoard rebuilt for the notebook.

The kernel reads the logdir itself (``tbnb.load``); dashboards live in the output cell
(``tbnb.show``, ``%load_ext tbnb`` then ``%tbnb --logdir ...``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .reader.logdir import Logdir, LogdirError, load

if TYPE_CHECKING:
    from .board import Board, load_ipython_extension, show
    from .cards import card

__all__ = ["Board", "Logdir", "LogdirError", "__version__", "card", "load", "load_ipython_extension", "show"]

#: Widget code is imported on first use: the reader and the CLI must not pay for (or need)
#: anywidget, ipywidgets and IPython.
_WIDGET_NAMES = ("Board", "show", "load_ipython_extension")


def __getattr__(name: str) -> Any:
    if name in _WIDGET_NAMES:
        from . import board

        return getattr(board, name)
    if name == "card":  # plotly and numpy only: no widget code
        from .cards import card

        return card
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + [n for n in __all__ if n not in globals()])
