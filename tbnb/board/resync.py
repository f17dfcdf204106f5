"""What ``Board.refresh()`` re-sends so that a front end that missed messages catches up.

Some front ends lose or hold back the widget messages a cell's run produces: Colab renders
nothing the poll thread sends (colabtools#3373) and delivers what the main thread sends only
when the cell ends; VS Code may render a view late, after the messages it would have needed.
Such a page still shows the data it had. ``refresh()`` therefore sends, besides what a reload
found, the board's whole current state again: every synced trait, the run/tag index unasked,
and a fresh pushed reply to every data request the page made that the kernel remembers
(pushed.py), whether or not its data changed since. The page applies them as it applies the
same messages sent in answer to its requests (protocol.md, "Pushed replies").
"""

from __future__ import annotations

from typing import Any

from .sources import MultiLogdir


def everything_changed(source: MultiLogdir) -> dict[str, Any]:
    """A ``changed`` message in which every run changed every one of its tags: handed to the
    pushed replies (``Router.push``), it makes every remembered request due again."""
    tags: dict[str, list[str]] = {}
    for run in source.runs():
        try:
            tags[run] = sorted(source.tags(run))
        except KeyError:  # removed by a reload meanwhile
            continue
    return {"type": "changed", "runs": sorted(tags), "tags": tags, "new_runs": [], "new_tags": [],
            "removed_runs": []}
