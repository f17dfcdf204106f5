"""A card: one dashboard card as a separate, static notebook output (not a widget).

Its mimebundle has ``application/vnd.plotly.v1+json`` for charts (JupyterLab, Notebook 7 and
VS Code draw it without trusting the notebook and without a kernel), ``text/html`` that draws
offline (nbconvert, Quarto: see html.py for plotly.js) and ``text/plain`` saying what it is.
Images, audio and text cards are HTML only, their bytes as data URLs.
"""

from __future__ import annotations

import html
import json
import os
from typing import TYPE_CHECKING, Any

from . import html as page

if TYPE_CHECKING:
    import plotly.graph_objects as go

PLOTLY_MIME = "application/vnd.plotly.v1+json"
#: plotly.js config for cards: no logo, no mode bar clutter beyond zoom/reset/download.
CONFIG = {"displaylogo": False, "responsive": False}


def figure_json(figure: go.Figure) -> dict[str, Any]:
    """The figure as plain JSON, numpy arrays as plotly's binary ``{"dtype", "bdata"}`` (plotly >= 6)."""
    import plotly.io as pio

    out = json.loads(pio.to_json(figure, validate=False, remove_uids=True))
    out["config"] = dict(CONFIG)
    return out


class Card:
    """One card: a plotly figure (``figure``) or HTML (``body``), with a title and a summary.

    ``str(card)`` / ``text/plain`` is the summary; ``card.figure`` is the plotly Figure to restyle
    (then display ``card`` again, or the figure); ``card.to_html(path)`` writes a page of its own.
    """

    def __init__(self, kind: str, tag: str, title: str, summary: str, *, figure: go.Figure | None = None,
                 body: str | None = None, info: dict[str, Any] | None = None) -> None:
        if (figure is None) == (body is None):
            raise ValueError("a card has either a figure or an HTML body")
        self.kind, self.tag, self.title, self.summary = kind, tag, title, summary
        self.figure = figure
        self.body = body  # HTML made here from escaped text and data URLs, never from logs as markup
        self.info = dict(info or {})

    def inner_html(self) -> str:
        """The card's HTML without plotly.js (a chart's box and figure, or the HTML body)."""
        if self.figure is None:
            return str(self.body)
        layout = self.figure.layout
        return page.chart_html(figure_json(self.figure), int(layout.width or 640), int(layout.height or 340))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": self.summary}
        if self.figure is not None:
            bundle[PLOTLY_MIME] = figure_json(self.figure)
            bundle["text/html"] = page.card_html(self.inner_html(), plotlyjs=page.claim_plotlyjs())
        else:
            bundle["text/html"] = page.card_html(self.inner_html(), plotlyjs=False)
        return bundle

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """This card as a whole offline page (plotly.js inlined for charts); written to ``path`` if given."""
        text = page.page_html(self.title, [self.inner_html()], plotlyjs=self.figure is not None)
        if path is not None:
            page.write_text(path, text)
        return text

    def __repr__(self) -> str:
        return self.summary


def heading(title: str, sub: str) -> str:
    """An HTML card's title and subtitle, escaped."""
    return f"<h3>{html.escape(title)}</h3>\n<div class=\"tbnb-report-sub\">{html.escape(sub)}</div>"
