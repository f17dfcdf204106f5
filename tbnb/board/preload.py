"""plotly.js on the page before the first Board: what ``%load_ext tbnb`` sends.

A user loads the extension well before running ``%tbnb``. Only a widget can bring code and
bytes to the page, so ``%load_ext`` makes a small one that is never displayed: its module
(``js/src/core/preload.js``, a few KB) takes plotly.js's cartesian build and runs it into the copy
every Board on the page shares. The first Board then finds plotly.js there instead of sending
it while it reads the logdir. The page says when the script ran, and the model is closed then,
so it is not kept in a saved notebook's widget state.
"""

from __future__ import annotations

from typing import Any

import anywidget
from traitlets import Unicode

from . import assets
from .core import plotly_reply
from .request import RequestError

#: Whether this process has sent plotly.js unasked (``push_plotly_once``).
_plotly_pushed = False


class PlotlyPreload(anywidget.AnyWidget):
    """The never-displayed model that carries plotly.js to the page (see the module doc)."""

    _esm = Unicode("").tag(sync=True)

    def __init__(self, esm: str) -> None:
        super().__init__(_esm=esm)
        self.on_msg(PlotlyPreload._on_page_msg)

    def _on_page_msg(self, content: Any, buffers: list[Any]) -> None:
        """``{"type": "ran"}``: the page ran the script (or gave up): this model is done."""
        if isinstance(content, dict) and content.get("type") == "ran":
            self.close()


def preload_plotly() -> PlotlyPreload | None:
    """Send plotly.js's cartesian build to the page now, if this kernel has a front end and
    nothing sent it yet; the carrier, or None when nothing was sent (it is then closed)."""
    esm = assets.read_preload()
    if esm is None:
        return None
    carrier = PlotlyPreload(esm)
    if push_plotly_once(carrier):
        return carrier
    carrier.close()
    return None


def push_plotly_once(carrier: anywidget.AnyWidget) -> bool:
    """Send plotly.js's cartesian build on ``carrier``'s comm, unasked, if nothing in this
    process did yet and the comm reaches a front end (a kernel's comm; a script's has none).

    Whichever comes first carries it: ``%load_ext tbnb``'s preload model, or the first Board.
    True if it was sent now.
    """
    global _plotly_pushed
    if _plotly_pushed or carrier.comm is None or not getattr(carrier.comm, "kernel", None):
        return False
    try:
        content, buffers = plotly_reply("cartesian")
    except RequestError:
        return False  # the page's own request will report it
    _plotly_pushed = True
    carrier.send(content, buffers)
    return True
