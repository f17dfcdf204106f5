"""The PR curves dashboard (and the time series dashboard's PR cards): for one tag, each run's
precision–recall curve at the step its card's slider shows (protocol.md, ``pr_curves``).

The curves come from the reader's pure view (tbnb/reader/plugins/pr_curves.py): TensorBoard's
thresholds and trimming, the step picked exactly or else the nearest, the last when none is
asked. A step whose tensor is not ``[6, T]`` is a problem listed in the reply, never a failure
of the request: one malformed summary costs one step of one run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...reader.plugins import pr_curves as plugin
from ..codec import encode
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import key_by_runs, tag_runs


def wanted_steps(content: Mapping[str, Any]) -> dict[str, int] | None:
    """The request's ``steps`` ({run: step}, or null for every run's last step)."""
    steps = content.get("steps")
    if steps is None:
        return None
    if not isinstance(steps, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in steps.items()):
        raise RequestError(f"'steps' must be null or {{run: integer step}}, got {steps!r}")
    return steps


def run_entry(found: plugin.RunCurve) -> dict[str, Any]:
    """One run's part of the reply: its steps, and the chosen step's arrays (empty if none)."""
    curve = found.curve
    entry: dict[str, Any] = {"run": found.run, "steps": np.asarray(found.steps, dtype=np.int64),
                             "step": None if curve is None else curve.step,
                             "wall_time": None if curve is None else curve.wall_time}
    empty = np.zeros(0, dtype=np.float64)
    for name in ("thresholds", *plugin.ROWS):
        entry[name] = empty if curve is None else np.asarray(getattr(curve, name), dtype=np.float64)
    return entry


def curve_entries(source: MultiLogdir, tag: str, runs: list[str],
                  steps: Mapping[str, int] | None) -> tuple[list[dict[str, Any]], list[str]]:
    """Per run holding ``tag``: its entry; and every problem met, as text."""
    _, holding = tag_runs(source, tag, runs, (plugin.PLUGIN_NAME,))
    view = source
    entries, problems = [], []
    for run in holding:
        try:
            found = plugin.card(view, tag, [run], steps).get(run)
        except KeyError:  # the run went away meanwhile
            continue
        if found is None:
            continue
        entries.append(run_entry(found))
        problems += [str(p) for p in found.problems]
    return entries, problems


def answer(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``pr_curves``: one card's curves (protocol.md)."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    steps = wanted_steps(content)
    entries, problems = curve_entries(source, tag, runs, steps)
    return encode({"type": "pr_curves", "id": request_id, "tag": tag, "steps": steps,
                   "series": entries, "problems": problems})


REQUESTS: dict[str, Handler] = {"pr_curves": answer}
PUSHED: dict[str, PushKey] = {"pr_curves": key_by_runs}
