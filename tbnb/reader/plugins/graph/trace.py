"""Trace inputs: every op a node depends on, shown on what is drawn.

The upstream walk runs over the whole graph (through closed scopes too); its result is mapped
onto the drawn nodes of the same state (open scopes, grouped series) as a ``levels`` request, so
the page highlights drawn nodes and never needs the graph itself.

Request ``{"what": "trace", "name": id, "expanded": [...], "series": {...}, "control": True}``;
reply::

    {"what": "trace", "name": str, "error": str | None,
     "ops": int,            # ops upstream of the node (constants and summaries included)
     "ids": [ids]}          # drawn nodes holding at least one of them (the node's own excluded)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .display import display, reps
from .hierarchy import OP, Hierarchy

#: Below this many nodes on the walk's frontier, it goes on node by node (numpy steps cost more).
NARROW = 64


def upstream(h: Hierarchy, start: np.ndarray, control: bool = True) -> np.ndarray:
    """Ops from which a path of edges (data edges only unless ``control``) leads to ``start``."""
    g = h.graph
    keep = np.ones(len(g.edge_src), bool) if control else ~g.edge_control
    src, dst = g.edge_src[keep].astype(np.int64), g.edge_dst[keep].astype(np.int64)
    order = np.argsort(dst, kind="stable")
    src, bounds = src[order], np.searchsorted(dst[order], np.arange(h.n_ops + 1))
    seen = np.zeros(h.n_ops, bool)
    frontier = np.unique(start)
    while len(frontier) >= NARROW:
        lo, hi = bounds[frontier], bounds[frontier + 1]
        counts = hi - lo
        if not counts.sum():
            break
        parents = src[np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))]
        parents = np.unique(parents)
        frontier = parents[~seen[parents]]
        seen[frontier] = True
    if 0 < len(frontier) < NARROW:
        _walk(src.tolist(), bounds.tolist(), frontier.tolist(), seen)
    return np.flatnonzero(seen)


def _walk(src: list[int], bounds: list[int], todo: list[int], seen: np.ndarray) -> None:
    """The rest of the walk one node at a time: a long chain would take one numpy step per link."""
    mark = bytearray(seen.tobytes())
    while todo:
        v = todo.pop()
        for u in src[bounds[v]:bounds[v + 1]]:
            if not mark[u]:
                mark[u] = 1
                todo.append(u)
    seen[:] = np.frombuffer(bytes(mark), dtype=bool)


def trace(h: Hierarchy, request: Mapping[str, Any]) -> dict[str, Any]:
    """The reply to a ``trace`` request (see the module docstring)."""
    name = str(request.get("name", ""))
    reply: dict[str, Any] = {"what": "trace", "name": name, "error": None, "ops": 0, "ids": []}
    if name not in h:
        reply["error"] = "no node of that name"
        return reply
    item = h.item(name)
    start = np.array([item]) if h.kind[item] == OP else h.ops_in(item)
    found = upstream(h, start, bool(request.get("control", True)))
    reply["ops"] = len(found)
    d = display(h, request.get("series"))
    is_open = np.zeros(h.n_items, bool)
    is_open[h.root] = True
    for opened in request.get("expanded") or []:
        if opened in h and h.kind[h.item(opened)] != OP:
            is_open[h.item(opened)] = True
    _, rep = reps(d, is_open)
    found = np.where(h.embedded[found], h.host[found], found)  # an annotation: its node
    drawn = set(rep[found].tolist()) - set(rep[start].tolist())
    reply["ids"] = sorted(h.names[i] for i in drawn)
    return reply
