"""The diagnostics cards: ``board.card("diagnostics", kind="diagnostics")`` (the tab: each finding
as a sentence beside its chart, the runs with nothing found in one line), and two cards any run
can have: ``kind="update_ratio"`` (a run's weight:update ratios) and ``kind="loss_vs_lr"`` (a loss
against its learning rate on a log axis, a range test's suggestion marked). ``to_html`` of a Board
on the diagnostics tab writes the first one.

Makers take the board's ``CardView`` (duck-typed here: ``source``, ``runs``, ``color``, ``width``,
``height``); cards/registry.py lists them among the built-in kinds.
Sentences are escaped text; figures: diagnostic_figures.py.
"""

from __future__ import annotations

import html
import os
from typing import Any

from ..board.protocol import PALETTE
from ..reader.plugins.diagnostics.charts import chart_of, items, loss_vs_lr_chart
from ..reader.plugins.diagnostics.diagnose import loss_and_lr_tags
from ..reader.plugins.diagnostics.rules import Settings
from ..reader.plugins.update_ratio import PREFIX, update_ratio_tags
from . import html as page
from .diagnostic_figures import lr_figure, lr_find_figure, pair_figure, ratio_figure
from .output import Card, figure_json, heading

SEVERITY_COLORS = {"error": "#c62828", "warning": "#ef6c00", "info": "#1565c0"}


def sentence_html(f: dict[str, Any]) -> str:
    """One finding as escaped HTML: run, finding, evidence, advice."""
    color = SEVERITY_COLORS.get(f.get("severity", ""), "#424242")
    return (f'<p class="tbnb-finding" style="margin:4px 0"><b style="color:{color}">{html.escape(str(f["run"]))}: '
            f'{html.escape(str(f["finding"]).replace("_", " "))}</b> ({html.escape(str(f["metric"]))}) '
            f"{html.escape(str(f['evidence']))}. <i>{html.escape(str(f['advice']))}</i></p>")


def quiet_line(quiet: list[str]) -> str:
    """The runs with nothing found, in one line (the page writes the same)."""
    if not quiet:
        return ""
    names = ", ".join(quiet[:20]) + (f" and {len(quiet) - 20} more" if len(quiet) > 20 else "")
    return f"Nothing found in {len(quiet)} run{'s' if len(quiet) != 1 else ''}: {names}."


def figure_of(chart: dict[str, Any], view: Any, findings: list[dict] | None = None) -> Any:
    """The figure of one chart's data, titled by what it shows."""
    run, width, height = chart["run"], int(view.width), int(view.height)
    color = view.color(run)
    kind = chart["kind"]
    if kind == "pair":
        title = html.escape(f"{run} · {chart['metric']}: training and validation")
        return pair_figure(chart, color, title, width, height)
    if kind == "lr":
        step = findings[0]["step"] if findings else None
        return lr_figure(chart, color, html.escape(f"{run} · {chart['loss_tag']} and its learning rate"),
                         width, height, step)
    if kind == "lr_find":
        return lr_find_figure(chart, color, html.escape(f"{run} · {chart['loss_tag']} against {chart['lr_tag']}"),
                              width, height)
    return ratio_figure(chart, html.escape(f"{run} · update ratios (update / weight)"), width, height, list(PALETTE))


class FindingsCard(Card):
    """Sentences with their charts (several figures in one card)."""

    def __init__(self, title: str, summary: str, sections: list[tuple[str, Any]], footer: str,
                 info: dict[str, Any]) -> None:
        super().__init__("diagnostics", "", title, summary, body="", info=info)
        self.sections = sections
        self.footer = footer
        self.figures = [fig for _, fig in sections if fig is not None]
        self.figure = self.figures[0] if self.figures else None  # to_html inlines plotly.js when set

    def inner_html(self) -> str:
        parts = [heading(self.title, self.summary)]
        for text, fig in self.sections:
            parts.append(text)
            if fig is not None:
                layout = fig.layout
                parts.append(page.chart_html(figure_json(fig), int(layout.width or 640), int(layout.height or 340)))
        if self.footer:
            parts.append(f'<p class="tbnb-quiet">{html.escape(self.footer)}</p>')
        return "\n".join(parts)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        plotlyjs = page.claim_plotlyjs() if self.figures else False
        return {"text/plain": self.summary, "text/html": page.card_html(self.inner_html(), plotlyjs=plotlyjs)}

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        text = page.page_html(self.title, [self.inner_html()], plotlyjs=bool(self.figures))
        if path is not None:
            page.write_text(path, text)
        return text


def diagnostics_card(view: Any, tag: str = "", **options: Any) -> Card:
    """The diagnostics tab of the shown runs as one card (module doc)."""
    if options:
        raise TypeError(f"the diagnostics card takes no options, got {sorted(options)}")
    grouped, quiet = items(view.source, list(view.runs))
    sections = []
    for item in grouped:
        chart = chart_of(view.source, item["chart"])
        text = "\n".join(sentence_html(f) for f in item["findings"])
        sections.append((text, figure_of(chart, view, item["findings"])))
    n = sum(len(item["findings"]) for item in grouped)
    summary = f"tbnb diagnostics: {n} finding{'s' if n != 1 else ''} in {len(view.runs)} run(s)"
    info = {"findings": [f for item in grouped for f in item["findings"]], "quiet": quiet}
    return FindingsCard("Diagnostics", summary, sections, quiet_line(quiet), info)


def _run_holding(view: Any, run: str | None, wanted: Any, what: str) -> str:
    """``run`` if given (it must be shown and satisfy ``wanted``), else the first shown run that does."""
    if run is not None:
        if run not in view.runs:
            raise ValueError(f"run {run!r} is not a shown run")
        if not wanted(run):
            raise ValueError(f"run {run!r} has no {what}")
        return run
    found = next((r for r in view.runs if wanted(r)), None)
    if found is None:
        raise ValueError(f"no shown run has {what}")
    return found


def update_ratio_card(view: Any, tag: str = "update_ratio", *, run: str | None = None) -> Card:
    """A run's update ratios (``run``: default the first shown run with ``update_ratio/*`` tags)."""
    if tag != "update_ratio" and not tag.startswith(PREFIX):
        raise ValueError(f"an update_ratio card is of tag 'update_ratio' (or any {PREFIX}* tag), not {tag!r}")
    run = _run_holding(view, run, lambda r: bool(update_ratio_tags(view.source, r)), "update_ratio/* scalar tags")
    chart = chart_of(view.source, {"kind": "update_ratio", "run": run})
    figure = figure_of(chart, view)
    outside = [line["tag"] for line in chart["lines"] if line["outside"]]
    summary = (f"tbnb update_ratio card of run {run!r}: {len(chart['lines'])} series"
               f"{' (heatmap)' if chart['heatmap'] is not None else ''}, {len(outside)} outside "
               f"[{chart['band'][0]:g}, {chart['band'][1]:g}]")
    return Card("update_ratio", tag, f"{run} update ratios", summary, figure=figure,
                info={"run": run, "outside": outside, "tags": [line["tag"] for line in chart["lines"]]})


def lr_card(view: Any, tag: str, *, run: str | None = None, lr_tag: str | None = None) -> Card:
    """``tag`` (a loss) against the run's learning rate (``lr_tag``: default the first the name
    rules find), x on a log axis; a range test's steepest-descent suggestion marked."""
    def rate_of(r: str) -> str | None:
        held = view.source.tags(r)
        if held.get(tag) != "scalars":
            return None
        if lr_tag is not None:
            return lr_tag if held.get(lr_tag) == "scalars" else None
        _, rates = loss_and_lr_tags(view.source, r, [], Settings())
        return rates[0] if rates else None

    run = _run_holding(view, run, lambda r: rate_of(r) is not None, f"scalar tag {tag!r} and a learning-rate tag")
    rate = rate_of(run)
    assert rate is not None
    chart = loss_vs_lr_chart(view.source, run, tag, rate)
    figure = figure_of(chart, view)
    note = f", suggested {rate} = {chart['suggestion']:.3g}" if chart["suggestion"] is not None else ""
    summary = f"tbnb loss_vs_lr card: {tag!r} against {rate!r} in run {run!r}{note}"
    return Card("loss_vs_lr", tag, f"{run} {tag} vs {rate}", summary, figure=figure,
                info={"run": run, "lr_tag": rate, "suggestion": chart["suggestion"]})
