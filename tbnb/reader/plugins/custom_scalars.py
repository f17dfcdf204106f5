"""Custom scalars: the ``custom_scalars__config__`` layout, merged across runs, and each chart's tags.

A run's layout is a serialized ``Layout`` in the string tensor of tag ``custom_scalars__config__``.
Layouts of all runs are merged as TensorBoard does: runs in sorted order, categories by title in
order of first appearance, charts appended to a category unless an equal chart is already there.
Two departures, both keeping charts TensorBoard loses: TensorBoard reads only a run's last layout,
here every step the reader kept is merged, in step order (layouts written at one step still
replace each other, as the reader keeps the last write of a step: tensorboardX's one-chart helpers
all write at step 0); and TensorBoard drops charts added to a category first seen in a later run's
layout, which here are kept.

Charts:

* multiline: a list of regexes (RE2's syntax, matched in linear time: ..user_regex.py); a run's
  scalar tag is shown when one of them matches at the tag's start (``match``, TensorBoard's test). An invalid or empty regex is an error
  message on that chart only; its other regexes still apply.
* margin: series of exact ``value``/``lower``/``upper`` tags (a band around the value).

Layout titles and tags are text for the page to show as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.proto import layout_pb2

from ..user_regex import PatternError, Regex, compile_regex
from .source import LogdirLike, PluginProblem

PLUGIN_NAME = "custom_scalars"
CONFIG_TAG = "custom_scalars__config__"


class LayoutError(ValueError):
    """A layout tensor that does not hold a serialized Layout."""


@dataclass(frozen=True)
class MarginSeries:
    """A margin chart's series: exact scalar tags for the value and its band."""

    value: str
    lower: str
    upper: str


@dataclass(frozen=True)
class Chart:
    """A chart of the layout: ``kind`` is "multiline" (``tags`` are regexes), "margin" (``series``),
    or "" when the chart names neither."""

    title: str
    kind: str
    tags: tuple[str, ...] = ()
    series: tuple[MarginSeries, ...] = ()


@dataclass(frozen=True)
class Category:
    """A titled group of charts; ``closed`` asks for it to start collapsed."""

    title: str
    charts: tuple[Chart, ...]
    closed: bool = False


@dataclass(frozen=True)
class Layout:
    """The merged layout and the runs that contributed to it, in order."""

    categories: tuple[Category, ...] = ()
    runs: tuple[str, ...] = ()
    problems: list[PluginProblem] = field(default_factory=list)


def parse_layout(data: np.ndarray | bytes) -> layout_pb2.Layout:
    """The Layout in one step's string tensor (or in bytes); raise ``LayoutError`` if there is none."""
    if not isinstance(data, (bytes, bytearray)):
        arr = np.asarray(data)
        if arr.size != 1 or arr.dtype != object:
            raise LayoutError(f"layout tensor has shape {list(arr.shape)} and dtype {arr.dtype}; "
                              "expected one string")
        data = arr.reshape(()).item()
        if not isinstance(data, (bytes, bytearray)):
            raise LayoutError("layout tensor does not hold bytes")
    try:
        return layout_pb2.Layout.FromString(bytes(data))
    except DecodeError as err:
        raise LayoutError(f"layout does not decode: {err}") from None


def merge_layouts(layouts: Sequence[layout_pb2.Layout]) -> layout_pb2.Layout:
    """TensorBoard's merge (see the module doc) of layouts given in run order."""
    merged = layout_pb2.Layout()
    by_title: dict[str, layout_pb2.Category] = {}
    for layout in layouts:
        for category in layout.category:
            target = by_title.get(category.title)
            if target is None:
                target = merged.category.add()
                target.CopyFrom(category)
                by_title[category.title] = target
                continue
            for chart in category.chart:
                if chart not in target.chart:
                    target.chart.add().CopyFrom(chart)
    return merged


def _chart(proto: layout_pb2.Chart) -> Chart:
    kind = proto.WhichOneof("content") or ""
    if kind == "multiline":
        return Chart(proto.title, kind, tags=tuple(proto.multiline.tag))
    if kind == "margin":
        return Chart(proto.title, kind, series=tuple(MarginSeries(s.value, s.lower, s.upper)
                                                    for s in proto.margin.series))
    return Chart(proto.title, "")


def from_proto(layout: layout_pb2.Layout, runs: Sequence[str] = (),
               problems: list[PluginProblem] | None = None) -> Layout:
    """A Layout proto as plain data."""
    categories = tuple(Category(c.title, tuple(_chart(ch) for ch in c.chart), bool(c.closed))
                       for c in layout.category)
    return Layout(categories, tuple(runs), list(problems or []))


def read_layout(source: LogdirLike) -> Layout:
    """The merged layout of every run that wrote one; unreadable layouts are problems."""
    protos, runs, problems = [], [], []
    for run in source.runs():
        if source.tags(run).get(CONFIG_TAG) != PLUGIN_NAME:
            continue
        series = source.tensors(run, CONFIG_TAG)
        found = False
        for i, step in enumerate(series.step.tolist()):
            try:
                protos.append(parse_layout(series.values[i]))
                found = True
            except (LayoutError, ValueError) as err:
                problems.append(PluginProblem(run, CONFIG_TAG, step, str(err)))
        if found:
            runs.append(run)
    return from_proto(merge_layouts(protos), runs, problems)


def compile_regexes(patterns: Sequence[str]) -> tuple[list[Regex], list[str]]:
    """The patterns that compile (with RE2: a layout's regex is matched in linear time, whoever
    wrote it; user_regex.py), and an error message for each that does not (or is empty)."""
    compiled, errors = [], []
    for pattern in patterns:
        if not pattern:
            errors.append("empty regular expression")
            continue
        try:
            compiled.append(compile_regex(pattern))
        except PatternError as err:
            errors.append(str(err))
    return compiled, errors


@dataclass(frozen=True)
class ResolvedChart:
    """A chart with the scalar tags it shows per run: ``tags`` (multiline) or ``series`` (margin,
    only the series whose value tag the run has; a missing bound is None), and its errors."""

    chart: Chart
    tags: dict[str, list[str]] = field(default_factory=dict)
    series: dict[str, list[tuple[str, str | None, str | None]]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def scalar_tags(source: LogdirLike, runs: Sequence[str]) -> dict[str, list[str]]:
    """Each run's scalar tags (what charts choose from)."""
    return {run: [t for t, p in source.tags(run).items() if p == "scalars"] for run in runs}


def resolve_chart(source: LogdirLike, chart: Chart, runs: Sequence[str],
                  scalars: Mapping[str, list[str]] | None = None) -> ResolvedChart:
    """Which scalar tags of each run the chart shows (runs showing none are left out).

    ``scalars`` is ``scalar_tags(source, runs)`` when already known (one chart of many).
    """
    scalars = scalar_tags(source, runs) if scalars is None else scalars
    if chart.kind == "multiline":
        regexes, errors = compile_regexes(chart.tags)
        tags = {run: [t for t in names if any(rx.match(t) for rx in regexes)]
                for run, names in scalars.items()}
        return ResolvedChart(chart, tags={r: t for r, t in tags.items() if t}, errors=errors)
    if chart.kind == "margin":
        series: dict[str, list[tuple[str, str | None, str | None]]] = {}
        for run, names in scalars.items():
            have = set(names)
            found = [(s.value, s.lower if s.lower in have else None, s.upper if s.upper in have else None)
                     for s in chart.series if s.value in have]
            if found:
                series[run] = found
        errors = [] if chart.series else ["margin chart has no series"]
        return ResolvedChart(chart, series=series, errors=errors)
    return ResolvedChart(chart, errors=["chart is neither a multiline nor a margin chart"])


def resolve(source: LogdirLike, runs: Sequence[str] | None = None,
            layout: Layout | None = None) -> list[tuple[Category, list[ResolvedChart]]]:
    """Every category of the (merged) layout with its charts resolved for ``runs`` (all runs)."""
    layout = read_layout(source) if layout is None else layout
    runs = source.runs() if runs is None else list(runs)
    scalars = scalar_tags(source, runs)
    return [(cat, [resolve_chart(source, chart, runs, scalars) for chart in cat.charts])
            for cat in layout.categories]
