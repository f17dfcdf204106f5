"""The diagnostics dashboard: each finding of ``diagnose`` as a sentence beside the chart that
proves it (protocol.md, ``diagnostics`` and ``diagnostic_chart``).

- ``diagnostics`` {runs}: the findings of those runs grouped by chart, each group with its chart's
  spec (``reader/plugins/diagnostics/charts.py``: which curves prove it), learning-rate range
  tests with their suggestion, and the runs with nothing found. Findings are plain strings: the
  page shows them as text, never markup.
- ``diagnostic_chart`` {runs, chart, width}: one chart's data, every series at most a few points
  per pixel (min/max downsampling: no spike lost); the width is clamped to ``MAX_WIDTH``, so the
  request never sizes the work beyond it (bounds.py's structural checks apply first).

Both are pushed (pushed.py): when a run they read gets data, the findings and the charts are
computed again and sent, so a finding appears while training writes, as soon as the data shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...reader.plugins.diagnostics.charts import chart_of, items
from ..downsample import minmax_downsample
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings, quoted
from ..sources import MultiLogdir
from .common import check_runs

#: Widest chart drawn, in pixels (the width of a request is clamped to it).
MAX_WIDTH = 4000
#: The fields a chart spec may hold (all strings, or null for a run without a learning rate).
SPEC_FIELDS = ("kind", "run", "metric", "train_run", "train_tag", "val_run", "val_tag", "loss_tag", "lr_tag")


def spec_runs(spec: Mapping[str, Any]) -> list[str]:
    """The runs a chart reads."""
    return list(dict.fromkeys(spec[k] for k in ("run", "train_run", "val_run") if isinstance(spec.get(k), str)))


def answer_diagnostics(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``diagnostics``: the findings of the requested runs, grouped by chart (module doc)."""
    req = Fields(content)
    request_id, runs = req.integer("id"), req.strings("runs")
    check_runs(source, runs)
    present = set(source.runs())
    grouped, quiet = items(source, [r for r in runs if r in present])
    for item in grouped:
        item["chart"]["runs"] = spec_runs(item["chart"])
    return {"type": "diagnostics", "id": request_id, "items": grouped, "quiet": quiet}, []


def check_spec(value: Any) -> dict[str, Any]:
    """A chart spec from the page: an object of the known string fields, else a RequestError."""
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
        raise RequestError(f"'chart' must be an object with a 'kind', got {quoted(value)}")
    spec: dict[str, Any] = {}
    for key, field in value.items():
        if key == "runs":
            continue
        if key not in SPEC_FIELDS or not (isinstance(field, str) or (key == "lr_tag" and field is None)):
            raise RequestError(f"chart field {key!r} is not one of {list(SPEC_FIELDS)} with a string value")
        spec[key] = field
    return spec


def _curve(curve: dict[str, np.ndarray] | None, width: int) -> dict[str, np.ndarray] | None:
    if curve is None:
        return None
    step, value = curve["step"], curve["value"]
    keep = minmax_downsample(step.astype(np.float64), value, width)
    return {"step": step[keep], "value": value[keep], "points": len(step)}


def thin(chart: dict[str, Any], width: int) -> dict[str, Any]:
    """The chart with every series downsampled to ``width`` buckets (module doc)."""
    out = dict(chart)
    for key in ("train", "val", "loss", "lr"):
        if isinstance(out.get(key), dict):
            out[key] = _curve(out[key], width)
    if chart["kind"] == "lr_find":  # arrays over the range test's steps: one index set for all
        keep = minmax_downsample(np.log10(np.maximum(chart["lr"], 1e-300)), chart["smoothed"], width)
        for key in ("step", "lr", "loss", "smoothed"):
            out[key] = chart[key][keep]
        keep_all = minmax_downsample(np.arange(len(chart["all_lr"]), dtype=np.float64), chart["all_loss"], width)
        out["all_lr"], out["all_loss"] = chart["all_lr"][keep_all], chart["all_loss"][keep_all]
    if chart["kind"] == "update_ratio":
        out["lines"] = [{**line, **_curve(line, width)} for line in chart["lines"]]
    return out


def answer_chart(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``diagnostic_chart``: the data of one chart (module doc)."""
    from ..codec import encode

    req = Fields(content)
    request_id, runs = req.integer("id"), req.strings("runs")
    width = min(req.width("width"), MAX_WIDTH)
    spec = check_spec(content.get("chart"))
    check_runs(source, runs)
    missing = [r for r in spec_runs(spec) if r not in runs]
    if missing:
        raise RequestError(f"'runs' must list the runs the chart reads; missing {missing}")
    try:
        chart = chart_of(source, spec, columns=min(width, 400))
    except KeyError as err:
        raise RequestError(f"unknown run: {err}") from None
    except ValueError as err:
        raise RequestError(str(err)) from None
    return encode({"type": "diagnostic_chart", "id": request_id, "chart": {**spec, "runs": runs},
                   "data": thin(chart, width)})


def chart_key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    """A chart's request replaces the previous one of the same chart (any width)."""
    chart = content.get("chart")
    spec = tuple(sorted((k, v) for k, v in chart.items() if k != "runs")) if isinstance(chart, dict) else ()
    return (content["type"], spec)


def diagnostics_key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    """The tab's one list: a newer request (other runs) replaces the previous one."""
    return (content["type"],)


REQUESTS: dict[str, Handler] = {"diagnostics": answer_diagnostics, "diagnostic_chart": answer_chart}
PUSHED: dict[str, PushKey] = {"diagnostics": diagnostics_key, "diagnostic_chart": chart_key}

# Its cards (the tab as one card, and two any run can have) are built-in kinds of the cards'
# registry (cards/registry.py): the cards read this module, so it imports none of them.
