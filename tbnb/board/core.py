"""The board's core replies, which belong to no dashboard: the run/tag index, plotly.js, the
``changed`` message after a reload and the counts of the ``status`` trait (protocol.md).

Pure functions of a source (``MultiLogdir``); the widget adds the state only it holds (run
colours) and the locks. A run removed by the poller between two calls is skipped, never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import assets
from .request import Reply, RequestError
from .sources import MultiLogdir

if TYPE_CHECKING:
    from ..reader.logdir.logdir import ReloadResult

#: Problems listed in an index reply (``status`` counts them all).
MAX_PROBLEMS = 100


def plotly_reply(bundle: str = "full") -> Reply:
    """plotly.js for the page (``plotly``): the script of one build (assets.PLOTLY_BUNDLES) as
    one buffer, its version, and which build it is (``cartesian`` may be served by ``full``)."""
    if bundle not in assets.PLOTLY_BUNDLES:
        raise RequestError(f"unknown plotly.js build {bundle!r}; builds are {list(assets.PLOTLY_BUNDLES)}")
    try:
        data, version = assets.plotly_js(bundle)
    except RuntimeError as err:
        raise RequestError(str(err)) from None
    return {"type": "plotly", "version": version, "bundle": assets.plotly_bundle_served(bundle)}, [data]


def plotly_request_bundle(content: Mapping[str, Any]) -> str:
    """The build a ``plotly`` request asks for: its ``bundle``, or ``full`` (pages that predate
    the cartesian build ask without one and draw every trace type)."""
    bundle = content.get("bundle", "full")
    if not isinstance(bundle, str):
        raise RequestError(f"plotly: bundle must be one of {list(assets.PLOTLY_BUNDLES)}, got {bundle!r}")
    return bundle


def index_reply(source: MultiLogdir, colors: Mapping[str, str]) -> dict[str, Any]:
    """Runs (name, colour, start time) and tags (plugin, runs, points per run), sorted."""
    runs: list[dict[str, Any]] = []
    tags: dict[tuple[str, str], dict[str, Any]] = {}
    for run in source.runs():
        try:
            run_tags = source.tags(run)
            start = source.run_start_time(run)
            counts = {tag: source.point_count(run, tag) for tag in run_tags}
        except KeyError:
            continue
        runs.append({"name": run, "color": colors.get(run), "start_time": start})
        for tag, plugin in run_tags.items():
            entry = tags.setdefault((tag, plugin), {"tag": tag, "plugin": plugin, "runs": [], "points": {}})
            entry["runs"].append(run)
            entry["points"][run] = counts[tag]
    problems = source.problems
    listed = [f"{p.path} @ {p.offset}: {p.reason}" for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        listed.append(f"... and {len(problems) - MAX_PROBLEMS} more")
    return {"type": "index", "runs": runs, "tags": [tags[k] for k in sorted(tags)], "problems": listed}


def changed_reply(source: MultiLogdir, result: ReloadResult) -> dict[str, Any]:
    """The ``changed`` message for one reload.

    ``runs``: runs with new points, new tags or purged data (not removed runs); ``tags[run]``:
    the tags whose data changed (all of a purged run's tags); ``new_tags``: tags that appeared
    in some run, even if another run had them already (a tag's run list changed either way).
    """
    tags: dict[str, set[str]] = {}
    for run, tag in result.points:
        tags.setdefault(run, set()).add(tag)
    for run, new in result.new_tags.items():
        tags.setdefault(run, set()).update(new)
    for run in result.purged_runs:
        try:
            tags.setdefault(run, set()).update(source.tags(run))
        except KeyError:
            continue
    removed = set(result.removed_runs)
    runs = sorted((set(tags) | set(result.new_runs)) - removed)
    return {"type": "changed", "runs": runs, "tags": {r: sorted(tags.get(r, ())) for r in runs},
            "new_runs": sorted(set(result.new_runs) - removed),
            "new_tags": sorted({t for new in result.new_tags.values() for t in new}),
            "removed_runs": sorted(removed)}


def totals(source: MultiLogdir) -> dict[str, int]:
    """Counts for the ``status`` trait: runs, distinct tags, points held, problems."""
    tags: set[str] = set()
    points = 0
    runs = source.runs()
    for run in runs:
        try:
            run_tags = source.tags(run)
            points += sum(source.point_count(run, tag) for tag in run_tags)
        except KeyError:
            continue
        tags.update(run_tags)
    return {"runs": len(runs), "tags": len(tags), "points": points, "problems": len(source.problems)}
