"""What is drawn for a given state: series grouped or not, scopes open or not; edges lifted.

A *display tree* is the hierarchy with the ungrouped series removed (their ops sit in the
scope). Given the set of open items, every op is represented by its *rep*: itself when all its
ancestors are open, else its highest closed ancestor. A graph edge whose two reps differ is drawn
between the reps; all the edges between one pair of reps make one drawn edge that counts its data
and control edges and sums its tensor sizes. The drawn edge lives in the lowest common ancestor of
its reps (TensorBoard's metaedge), between the two children of that ancestor that hold its ends.
Everything here is vectorised over ops and edges: one state costs a few passes over the arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .hierarchy import OP, SERIES, Hierarchy

ABSENT = -2  # parent of an ungrouped series: not in the display tree


@dataclass
class Display:
    """The display tree for one choice of grouped series."""

    h: Hierarchy
    grouped: np.ndarray     # bool per series
    parent: np.ndarray      # int32 per item; -1 root; ABSENT for ungrouped series
    depth: np.ndarray
    by_depth: list[np.ndarray]   # present items at each depth (depth 0: the root)

    def present(self, item: int) -> bool:
        return bool(self.parent[item] != ABSENT)


def grouping(h: Hierarchy, overrides: Mapping[str, bool] | None) -> np.ndarray:
    """Which series are grouped: by default those with at least five members, then the user's
    choices (series name -> grouped); names that are not series are ignored."""
    grouped = np.array([s.grouped_by_default for s in h.series], dtype=bool)
    base = h.n_items - len(h.series)
    for name, value in (overrides or {}).items():
        try:
            item = h.item(name)
        except KeyError:
            continue
        if h.kind[item] == SERIES:
            grouped[item - base] = bool(value)
    return grouped


_CACHE_SIZE = 8


def display(h: Hierarchy, overrides: Mapping[str, bool] | None = None) -> Display:
    """The display tree for ``overrides`` (series name -> grouped); a few are cached per hierarchy."""
    grouped = grouping(h, overrides)
    key = grouped.tobytes()
    cache: dict[bytes, Display] = h.cache.setdefault("display", {})
    if key in cache:
        return cache[key]
    base = h.n_items - len(h.series)
    parent = h.parent.copy()
    depth = h.depth.copy()
    if len(h.series):
        loose = np.flatnonzero(~grouped) + base
        parent[loose] = ABSENT
        ops = np.flatnonzero(h.op_series >= 0)
        ops = ops[~grouped[h.op_series[ops] - base]]
        parent[ops] = h.op_scope[ops]
        depth[ops] -= 1
    hidden = parent == ABSENT
    hidden[:h.n_ops] |= h.embedded
    present = np.flatnonzero(~hidden)
    order = present[np.argsort(depth[present], kind="stable")]
    bounds = np.searchsorted(depth[order], np.arange(int(depth[present].max(initial=0)) + 2))
    by_depth = [order[bounds[d]:bounds[d + 1]] for d in range(len(bounds) - 1)]
    result = Display(h, grouped, parent, depth, by_depth)
    if len(cache) >= _CACHE_SIZE:
        cache.pop(next(iter(cache)))
    cache[key] = result
    return result


def reps(d: Display, is_open: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shown, rep) per item for the open items ``is_open`` (bool per item; the root is open)."""
    n = len(d.parent)
    shown = np.zeros(n, dtype=bool)
    all_open = np.zeros(n, dtype=bool)
    rep = np.arange(n, dtype=np.int64)
    root = d.h.root
    all_open[root] = True
    for items in d.by_depth[1:]:
        p = d.parent[items]
        shown[items] = all_open[p]
        all_open[items] = shown[items] & is_open[items]
        rep[items] = np.where(shown[items], items, rep[p])
    return shown, rep


@dataclass
class Lifted:
    """Drawn edges: between reps ``src``/``dst``, inside ``level`` (their lowest common ancestor)
    between its children ``src_child``/``dst_child``; ``edge`` is one graph edge of each (a data
    edge if there is one), for its shape label."""

    src: np.ndarray
    dst: np.ndarray
    level: np.ndarray
    src_child: np.ndarray
    dst_child: np.ndarray
    n_data: np.ndarray
    n_control: np.ndarray
    elements: np.ndarray
    edge: np.ndarray


def lift(d: Display, rep: np.ndarray) -> Lifted:
    """Aggregate the hierarchy's core edges between reps, and place each at its common ancestor."""
    g = d.h.graph
    core = d.h.core
    rs = rep[g.edge_src[core]]
    rd = rep[g.edge_dst[core]]
    keep = rs != rd
    core, rs, rd = core[keep], rs[keep], rd[keep]
    control = g.edge_control[core]
    key = rs * len(rep) + rd
    order = np.lexsort((control, key))
    key = key[order]
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if len(key) else np.zeros(0, np.int64)
    if not len(starts):
        empty = np.zeros(0, np.int64)
        return Lifted(empty, empty, empty, empty, empty, empty, empty, np.zeros(0), empty)
    data = (~control[order]).astype(np.int64)
    elements = g.edge_elements[core][order]
    n_data = np.add.reduceat(data, starts)
    n_control = np.add.reduceat(1 - data, starts)
    known = np.add.reduceat((~np.isnan(elements) & (data == 1)).astype(np.int64), starts)
    total = np.add.reduceat(np.where(data == 1, np.nan_to_num(elements), 0.0), starts)
    total = np.where((known > 0) | (n_data == 0), total, np.nan)
    src, dst = rs[order][starts], rd[order][starts]
    level, src_child, dst_child = common_ancestor(d, src, dst)
    return Lifted(src, dst, level, src_child, dst_child, n_data, n_control, total, core[order][starts])


def common_ancestor(d: Display, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lowest common ancestor, child of it above a, child of it above b), for items that are
    not ancestors of one another."""
    a, b = a.copy(), b.copy()
    ca, cb = a.copy(), b.copy()
    da, db = d.depth[a].copy(), d.depth[b].copy()
    while True:
        m = da > db
        if not m.any():
            break
        ca[m] = a[m]
        a[m] = d.parent[a[m]]
        da[m] -= 1
    while True:
        m = db > da
        if not m.any():
            break
        cb[m] = b[m]
        b[m] = d.parent[b[m]]
        db[m] -= 1
    while True:
        m = a != b
        if not m.any():
            break
        ca[m], cb[m] = a[m], b[m]
        a[m], b[m] = d.parent[a[m]], d.parent[b[m]]
    return a, ca, cb


def children(d: Display, item: int) -> np.ndarray:
    """The present, non-embedded children of ``item`` in the display tree, in name order."""
    depth = int(d.depth[item]) + 1
    if d.h.kind[item] == OP or depth >= len(d.by_depth):
        return np.zeros(0, np.int64)
    level = d.by_depth[depth]
    kids = level[d.parent[level] == item]
    return np.array(sorted(kids.tolist(), key=d.h.names.__getitem__), dtype=np.int64)
