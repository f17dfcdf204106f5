"""Custom live plots: ``board.add_card(title, fn)``, a card of the Board drawing ``fn(lg, runs)``.

``fn`` gets the Board's logdir and the runs the page shows, and returns a plotly figure or a
pandas DataFrame (drawn as a table). The page asks for the card with a ``custom_card`` request
(protocol.md, "Custom cards"), which is remembered as pushed replies are (pushed.py) with
``every_tag``: after a poll that brought new data to any of its runs, the poll thread runs
``fn`` again and pushes the new figure, and a poll that brought nothing runs nothing. Whatever
``fn`` raises becomes the card's message (the traceback's last line); the Board goes on.
"""

from __future__ import annotations

import html
import threading
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from traitlets import HasTraits, List, Unicode

from .codec import encode
from .custom_figure import figure_wire, is_figure, is_frame, table_wire, with_run_colors
from .request import Fields, Reply, RequestError

if TYPE_CHECKING:
    from ..cards.output import Card

#: ``fn``'s wall time, in seconds, from which the card shows it.
SLOW_S = 0.5

CardFunction = Callable[[Any, list[str]], Any]


def run_card(fn: CardFunction, logdir: Any, runs: list[str]) -> dict[str, Any]:
    """``fn(logdir, runs)`` as a reply's fields: ``figure`` or ``table``, else ``error`` (the
    last line of the traceback); ``seconds`` either way. Never raises (but for KeyboardInterrupt)."""
    start = time.perf_counter()
    try:
        result = fn(logdir, list(runs))
        if is_figure(result):
            out: dict[str, Any] = {"figure": figure_wire(result)}
        elif is_frame(result):
            out = {"table": table_wire(result)}
        else:
            raise TypeError(f"a card function returns a plotly figure or a pandas DataFrame, "
                            f"not {type(result).__name__}")
    except Exception as err:  # noqa: BLE001 - the user's function: its error is the card's message
        out = {"error": traceback.format_exception_only(type(err), err)[-1].strip()}
    out["seconds"] = time.perf_counter() - start
    return out


class CustomCardMethods(HasTraits):
    """The Board's custom cards (mixed into ``tbnb.Board``): the functions, by title, and the
    synced ``custom_cards`` trait that tells the page which cards to lay out."""

    #: The titles of the custom cards, in the order they were added (set by add_card/remove_card).
    custom_cards = List(Unicode()).tag(sync=True)

    _card_functions: dict[str, CardFunction] | None = None
    _card_lock: threading.Lock | None = None

    def add_card(self, title: str, fn: CardFunction) -> None:
        """Show ``fn(lg, runs)`` as a card titled ``title`` in the Board's "Custom" section.

        ``fn`` gets the Board's logdir and the shown runs and returns a plotly figure or a
        pandas DataFrame; it runs again after each poll that brings new data to those runs.
        Adding a title again replaces its function (and redraws the card).
        """
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"a card's title is a non-empty string, got {title!r}")
        if not callable(fn):
            raise TypeError(f"add_card needs a function fn(lg, runs), got {type(fn).__name__}")
        if self._card_functions is None:
            self._card_functions, self._card_lock = {}, threading.Lock()
        replaced = title in self._card_functions
        self._card_functions[title] = fn
        if not replaced:
            self.custom_cards = [*self.custom_cards, title]
        else:
            self._push_custom(title)

    def remove_card(self, title: str) -> None:
        """Remove the custom card ``title`` (KeyError if there is none)."""
        if not self._card_functions or title not in self._card_functions:
            raise KeyError(f"no custom card {title!r}; the custom cards are {list(self.custom_cards)}")
        del self._card_functions[title]
        self.custom_cards = [t for t in self.custom_cards if t != title]

    def custom_card(self, title: str) -> Card:
        """The custom card ``title`` as a static card (``board.card(title)``, ``to_html``): its
        function run now on the shown runs, traces coloured as the Board colours runs."""
        from ..cards.output import Card, heading
        from ..cards.view import CardView

        fn = (self._card_functions or {}).get(title)
        if fn is None:
            raise KeyError(f"no custom card {title!r}; the custom cards are {list(self.custom_cards)}")
        view = CardView.from_board(self)
        out = run_card(fn, self.logdir, list(view.runs))
        summary = f"{title}: custom card of {len(view.runs)} runs"
        if "figure" in out:
            import plotly.graph_objects as go

            colors = {run: view.color(run) for run in view.runs}
            spec = out["figure"]
            figure = go.Figure({"data": with_run_colors(spec["data"], colors), "layout": spec["layout"]})
            if figure.layout.title.text is None:
                figure.update_layout(title=title)
            return Card("custom", title, title, summary, figure=figure)
        if "table" in out:
            import pandas as pd

            table = out["table"]
            body = pd.DataFrame(table["rows"], columns=table["columns"]).to_html(index=False, escape=True)
            return Card("custom", title, title, summary, body=heading(title, f"{table['total']} rows") + body)
        return Card("custom", title, title, summary,
                    body=heading(title, "error") + f"<pre>{html.escape(out['error'])}</pre>")

    def card(self, tag: str, kind: str | None = None, **options: Any) -> Card:
        """The card of ``tag`` (see CardMethods.card), or the custom card titled ``tag``."""
        if kind in (None, "custom") and tag in (self._card_functions or {}) and not options:
            return self.custom_card(tag)
        return super().card(tag, kind, **options)  # type: ignore[misc]

    def answer_custom_card(self, content: dict[str, Any]) -> Reply:
        """``custom_card``: a core request (it needs the Board's functions). Runs ``fn`` on the
        requested runs that the logdir holds, one card function at a time per Board."""
        req = Fields(content)
        title, runs = req.string("title"), req.strings("runs")
        fn = (self._card_functions or {}).get(title)
        if fn is None or self._card_lock is None:
            raise RequestError(f"no custom card {title!r}")
        known = set(self.logdir.runs())
        runs = [run for run in runs if run in known]
        with self._card_lock:
            out = run_card(fn, self.logdir, runs)
        content_out, buffers = encode({"type": "custom_card", "id": content.get("id"), "tag": title,
                                       "title": title, **out})
        return content_out, buffers

    def _push_custom(self, title: str) -> None:
        """Answer again the page's remembered requests for ``title`` (its function was replaced)."""
        pushed, send = getattr(self, "_pushed", None), getattr(self, "_send_msg", None)
        if pushed is None or send is None:
            return
        for content in pushed.requests():
            if content.get("type") == "custom_card" and content.get("title") == title:
                try:
                    reply, buffers = self.answer_custom_card(content)
                except RequestError:
                    continue
                send({**reply, "push": True, "runs": list(content["runs"])}, buffers)


def push_key(content: Any) -> tuple[Any, ...]:
    """A newer request of a custom card replaces the older one remembered (pushed.py)."""
    return ("custom_card", content.get("title"))
