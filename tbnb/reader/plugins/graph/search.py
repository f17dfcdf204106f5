"""Regex search over node names, with what to open to show each match.

Reply::

    {"what": "search", "pattern": str, "error": str | None,   # error: the regex does not compile
     "total": int,                       # matches in the whole graph
     "matches": [node names],            # the first ``limit`` in name order (TensorBoard shows 42)
     "ids": [ids],                       # what is drawn for each: its own id, or for a constant or
                                         # summary drawn beside a node, that node's id
     "expand": [[ids to open, outermost first], ...]}   # scopes (and grouped series) above it
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...user_regex import PatternError, compile_regex
from .display import Display, display
from .hierarchy import Hierarchy

DEFAULT_LIMIT = 42


def ancestors(h: Hierarchy, d: Display, item: int) -> list[str]:
    """Ids of the items above ``item`` in the display tree, outermost first (the top excluded)."""
    chain = []
    p = int(d.parent[item])
    while p >= 0 and p != h.root:
        chain.append(h.names[p])
        p = int(d.parent[p])
    return chain[::-1]


def search(h: Hierarchy, pattern: str, limit: int = DEFAULT_LIMIT,
           series: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """Ops whose full name the regex ``pattern`` matches (a search, with RE2: linear time in each
    name whatever the pattern, user_regex.py)."""
    reply: dict[str, Any] = {"what": "search", "pattern": pattern, "error": None, "total": 0,
                             "matches": [], "ids": [], "expand": []}
    try:
        rx = compile_regex(pattern)
    except PatternError as err:
        reply["error"] = f"not a regular expression: {err}"
        return reply
    names = h.graph.names
    found = sorted((i for i, name in enumerate(names) if rx.search(name)), key=names.__getitem__)
    reply["total"] = len(found)
    d = display(h, series)
    for i in found[:max(limit, 0)]:
        shown = int(h.host[i]) if h.embedded[i] else i
        reply["matches"].append(names[i])
        reply["ids"].append(h.names[shown])
        reply["expand"].append(ancestors(h, d, shown))
    return reply
