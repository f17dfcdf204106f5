"""The widget layer: the Board, ``tbnb.show`` and the ``%tbnb`` magic.

Imported lazily (module ``__getattr__``) so that importing ``tbnb.board.codec`` or
``tbnb.board.downsample`` (pure numpy) does not import anywidget and ipywidgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .magic import load_ipython_extension
    from .display import show
    from .widget import Board

__all__ = ["Board", "load_ipython_extension", "show"]

_LAZY = {"Board": ".widget", "show": ".display", "load_ipython_extension": ".magic"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
