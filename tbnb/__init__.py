"""tbnb: TensorBoard rebuilt for the notebook.

The kernel reads the logdir itself (``tbnb.load``); dashboards live in the output cell
(``tbnb.show``, ``%load_ext tbnb`` then ``%tbnb --logdir ...``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .reader.logdir.logdir import Logdir, LogdirError, load

if TYPE_CHECKING:
    from .board import Board, load_ipython_extension, show
    from .cards import card

__all__ = ["Board", "Logdir", "LogdirError", "__version__", "card", "dashboards", "keras", "load", "load_ipython_extension",
           "log_activations", "log_filters", "log_segmentation", "show", "watch"]

#: Logging helpers for training code, by the module that holds them: imported on first use, so
#: that ``import tbnb`` never imports torch, keras or the code that talks to them.
_LOGGING_NAMES = {
    "watch": "tbnb.log.watch",
    "log_segmentation": "tbnb.log.segmentation",
    "log_filters": "tbnb.log.segmentation",
    "log_activations": "tbnb.log.segmentation",
}

#: Widget code is imported on first use: the reader and the CLI must not pay for (or need)
#: anywidget, ipywidgets and IPython.
_WIDGET_NAMES = ("Board", "show", "load_ipython_extension")


def __getattr__(name: str) -> Any:
    if name in _WIDGET_NAMES:
        from . import board

        return getattr(board, name)
    if name in _LOGGING_NAMES:
        import importlib

        return getattr(importlib.import_module(_LOGGING_NAMES[name]), name)
    if name == "keras":  # tbnb.keras.Watch: the module, imported (with keras) on first use
        import importlib

        return importlib.import_module("tbnb.keras")
    if name == "dashboards":  # the built-in and installed dashboards (entry points tbnb.dashboards)
        from .board.dashboards import listing

        return listing
    if name == "card":  # plotly and numpy only: no widget code
        from .cards import card

        return card
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + [n for n in __all__ if n not in globals()])
