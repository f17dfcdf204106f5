"""Cards as offline HTML: plotly.js inlined once per page, each chart drawn from JSON in the page.

A notebook's outputs are static, so a card cannot ask the page whether plotly.js is already
there before it is saved. What is known is the kernel: like plotly's own "notebook" renderer,
the first card displayed in a kernel carries plotly.js in its ``text/html`` and later ones do not
(they all end up on one page in nbconvert's or Quarto's HTML). Two things keep that working
where plotly's renderer does not:

* a card's script draws at once when ``window.Plotly`` exists and otherwise waits for
  DOMContentLoaded, so cards above the one that carries plotly.js draw too;
* re-running the cell that carried plotly.js carries it again (its old output is replaced), found
  by the front end's cell id; ``forget_plotlyjs()`` makes the next card carry it otherwise
  (after clearing that output by hand).

A chart whose page has no plotly.js shows a sentence saying so instead of a blank box. The
plotly.js script is wrapped so that it sets ``window.Plotly`` even on a page that has
RequireJS (an anonymous ``define`` would otherwise swallow it), and runs once per page.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import uuid
from collections.abc import Iterable
from typing import Any

from ..board import assets
from ..board.cells import cell_id, execution_count

#: Shown in a chart's box until it is drawn (and for good when the page has no plotly.js).
NO_PLOTLY = ("This chart is drawn by plotly.js, which the first tbnb card of a notebook carries. "
             "Re-run that card's cell, or run tbnb.cards.forget_plotlyjs() and then this card's cell.")
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
STYLE = (f".tbnb-report-card{{font-family:{FONT};font-size:13px;color:#212121;margin:8px 0 16px;max-width:100%;"
         "overflow-x:auto}.tbnb-report-card h3{font-size:14px;font-weight:600;margin:0 0 2px}"
         ".tbnb-report-card .tbnb-report-sub{color:#616161;font-size:12px;margin:0 0 6px}"
         ".tbnb-report-chart{color:#616161;font-size:12px}"
         ".tbnb-report-card figure{display:inline-block;margin:0 12px 12px 0;vertical-align:top}"
         ".tbnb-report-card figcaption{font-size:12px;color:#424242}"
         ".tbnb-report-card pre{white-space:pre-wrap;word-break:break-word;background:#f5f5f5;padding:6px;margin:0}"
         ".tbnb-report-card table{border-collapse:collapse}"
         ".tbnb-report-card td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}")
_DRAW = """(function () {
  var id = %s;
  function draw() {
    var el = document.getElementById(id), src = document.getElementById(id + "-figure");
    if (!el || !src || el.getAttribute("data-drawn")) return;
    if (!window.Plotly) return;
    var fig = JSON.parse(src.textContent);
    el.textContent = "";
    el.setAttribute("data-drawn", "1");
    window.Plotly.newPlot(el, fig.data, fig.layout, fig.config || {});
  }
  if (window.Plotly || document.readyState !== "loading") draw();
  else document.addEventListener("DOMContentLoaded", draw);
})();"""

_carrier: dict[str, Any] = {"done": False, "cell": None, "execution": None}
_ids = itertools.count()


def forget_plotlyjs() -> None:
    """Make the next card displayed carry plotly.js again (e.g. after clearing the output of the
    card that carried it)."""
    _carrier.update(done=False, cell=None, execution=None)


def claim_plotlyjs() -> bool:
    """Whether the card being displayed now carries plotly.js (and note that one did).

    The first card of the kernel does; so does the first card of a new run of the cell that
    carried it (that run replaces the output that held plotly.js).
    """
    cell, execution = cell_id(), execution_count()
    again = _carrier["done"] and cell is not None and cell == _carrier["cell"] and execution != _carrier["execution"]
    if _carrier["done"] and not again:
        return False
    _carrier.update(done=True, cell=cell, execution=execution)
    return True


def plotlyjs_script() -> str:
    """plotly.js as one ``<script>``: run once per page, setting ``window.Plotly`` even where
    RequireJS defines ``define`` (its parameters shadow the AMD/CommonJS globals)."""
    data, version = assets.plotly_js()
    text = data.decode("utf-8")
    if "</script" in text.lower():  # cannot happen with plotly's builds; never emit a broken page
        raise RuntimeError("plotly.min.js contains '</script' and cannot be inlined")
    return (f"<script>/* plotly.js {html.escape(version)}, inlined by tbnb */\n"
            "if (!window.Plotly) { (function (define, module, exports) {\n"
            f"{text}\n}}).call(window); }}</script>")


def script_json(value: Any) -> str:
    """JSON to put inside a ``<script type="application/json">``: no ``<``, ``>`` or ``&`` in
    the text (escaped as \\u003c ...), so no string from a log can end the script element."""
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def new_id() -> str:
    """A DOM id unique on any page the card may share with others (kernels restart)."""
    return f"tbnb-card-{uuid.uuid4().hex[:12]}-{next(_ids)}"


def chart_html(figure_json: dict[str, Any], width: int, height: int) -> str:
    """A chart's box, its figure as JSON and the script that draws it when plotly.js is there."""
    div = new_id()
    return (f'<div id="{div}" class="tbnb-report-chart" style="width:{width}px;height:{height}px">'
            f"{html.escape(NO_PLOTLY)}</div>\n"
            f'<script type="application/json" id="{div}-figure">{script_json(figure_json)}</script>\n'
            f"<script>{_DRAW % json.dumps(div)}</script>")


def card_html(inner: str, plotlyjs: bool) -> str:
    """One card's ``text/html``: its style, plotly.js if it carries it, and ``inner``."""
    head = plotlyjs_script() + "\n" if plotlyjs else ""
    return f"<style>{STYLE}</style>\n{head}<div class=\"tbnb-report-card\">\n{inner}\n</div>"


def page_html(title: str, inners: Iterable[str], plotlyjs: bool = True) -> str:
    """A whole offline page: plotly.js once in the head, then each card's ``inner`` HTML."""
    body = "\n".join(f'<div class="tbnb-report-card">\n{inner}\n</div>' for inner in inners)
    head = plotlyjs_script() if plotlyjs else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>body{{margin:16px}}{STYLE}</style>\n{head}\n"
            f"</head>\n<body>\n<h2 style=\"font-family:{FONT}\">{html.escape(title)}</h2>\n{body}\n</body>\n</html>\n")


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a page as UTF-8 (a report is opened by browsers, whatever the platform's locale)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
