"""The mesh dashboard: meshes and point clouds per step (protocol.md, ``meshes`` and ``mesh``).

The mesh plugin writes a tag per component (vertices, faces, colours) and the writers name those
tags differently, so the page cannot lay out one card per tag: it asks ``meshes`` for the mesh
names (the metadata's ``name``) and the runs holding each, then ``mesh`` for one name's chosen
step in each run. One sample of a step's batch is sent at a time (TensorBoard's mesh plugin
shows one too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...reader.plugins.mesh import card, mesh_names
from ..codec import encode
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import check_runs


def mesh_index(source: MultiLogdir) -> list[dict[str, Any]]:
    """Every mesh name, sorted, with the runs holding it (in the source's run order)."""
    view = source
    runs_of: dict[str, list[str]] = {}
    for run in source.runs():
        try:
            names = mesh_names(view, run)
        except KeyError:  # the run went away meanwhile
            continue
        for name in names:
            runs_of.setdefault(name, []).append(run)
    return [{"name": name, "runs": runs} for name, runs in sorted(runs_of.items())]


def answer_index(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``meshes``: the mesh names and their runs."""
    request_id = Fields(content).integer("id")
    return encode({"type": "meshes", "id": request_id, "meshes": mesh_index(source)})


def _steps(content: dict[str, Any]) -> dict[str, int]:
    value = content.get("steps") or {}
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in value.items()):
        raise RequestError(f"'steps' must be null or {{run: step}} with integer steps, got {value!r}")
    return value


def run_entry(run: str, steps: np.ndarray, chosen: Any, config: Any, sample: int,
              problems: list[str]) -> dict[str, Any]:
    """One run's part of a ``mesh`` reply: its steps (for the slider) and the chosen step's sample."""
    entry: dict[str, Any] = {"run": run, "steps": steps.astype(np.int64), "config": config,
                             "problems": problems, "step": None, "wall_time": None, "samples": 0,
                             "sample": 0, "vertices": None, "faces": None, "colors": None}
    if chosen is None:
        return entry
    index = min(max(sample, 0), chosen.samples - 1)
    vertices, faces, colors = chosen.sample(index)
    entry.update(step=chosen.step, wall_time=chosen.wall_time, samples=chosen.samples, sample=index,
                 vertices=vertices, faces=faces, colors=colors)
    return entry


def answer_mesh(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``mesh``: one mesh's chosen step (nearest to ``steps[run]``, else the last) per run."""
    req = Fields(content)
    request_id, name, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    sample = content.get("sample", 0)
    if not isinstance(sample, int) or isinstance(sample, bool) or sample < 0:
        raise RequestError(f"'sample' must be an integer >= 0, got {sample!r}")
    check_runs(source, runs)
    per_run = card(source, name, runs, _steps(content))
    entries = [run_entry(run, got.steps, got.step, got.mesh.config if got.mesh else None, sample,
                         [str(p) for p in got.problems])
               for run, got in per_run.items()]
    return encode({"type": "mesh", "id": request_id, "tag": name, "runs": entries})


REQUESTS: dict[str, Handler] = {"meshes": answer_index, "mesh": answer_mesh}
PUSHED: dict[str, PushKey] = {}


