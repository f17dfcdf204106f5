"""The hierarchy of a graph: scopes from ``/`` in names, series, and constants/summaries as annotations.

Built once per graph, as arrays over *items*: items ``0..N-1`` are the graph's ops, then one item
per scope (the first is the root, ``""``), then one per series. Every view of the graph (which
scopes are open, which series grouped) is computed from these arrays without rebuilding them.

- An op whose name is also a scope (``A`` beside ``A/b``) sits inside that scope, labelled
  ``(A)``, with the id ``A/(A)``, as TensorBoard shows it.
- Constants (``Const``, torch's ``prim::Constant``) feeding other nodes, and summary ops
  (``^[a-zA-Z]+Summary$``) reading one, are annotations beside the nodes they feed or read, not
  nodes of the hierarchy; their edges are not lifted.
- Ops are ordered so that every scope's and series' ops are one contiguous range
  (``op_order[first[item]:last[item]]``): counts, compute time and memory inside any item are
  differences of prefix sums, and per-item histograms are one ``bincount`` of a slice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np

from .model import Graph
from .series import Series, detect_series

OP, SCOPE, SERIES = 0, 1, 2
IN_ANNOTATION, OUT_ANNOTATION = 0, 1

CONST_OPS = frozenset({"Const", "prim::Constant"})
_SUMMARY_OP = re.compile(r"^[a-zA-Z]+Summary$")
_TORCH_SCOPE = re.compile(r"^([A-Za-z_][\w.]*)\[(.+)\]$")


def scope_label(leaf: str) -> str:
    """A scope's label: torch's ``Conv2d[conv1]`` reads as ``conv1 (Conv2d)``, the attribute name
    a user of the model writes, then its class; other scopes keep their name."""
    m = _TORCH_SCOPE.match(leaf)
    return f"{m.group(2)} ({m.group(1)})" if m else leaf


def _codes(values: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each value's number in a table of the distinct values (in order of first appearance)."""
    table = list(dict.fromkeys(values))
    number = {v: k for k, v in enumerate(table)}
    return np.fromiter(map(number.__getitem__, values), dtype=np.int32, count=len(values)), table


@dataclass
class Hierarchy:
    """The static hierarchy of ``graph`` (see the module docstring for the item numbering)."""

    graph: Graph
    names: list[str]                 # item ids: op ids, scope names, series names
    kind: np.ndarray                 # uint8 per item: OP, SCOPE, SERIES
    parent: np.ndarray               # int32 per item, series grouped; -1 for the root
    depth: np.ndarray                # int32 per item, series grouped
    op_scope: np.ndarray             # int32 per op: its scope item
    op_series: np.ndarray            # int32 per op: its series item, or -1
    series: list[Series]
    embedded: np.ndarray             # bool per op: drawn as an annotation, not a node
    host: np.ndarray                 # int64 per op: the node an embedded op is drawn beside, or -1
    ann_host: np.ndarray             # annotations sorted by host: host op, annotation op, side
    ann_node: np.ndarray
    ann_side: np.ndarray
    op_codes: np.ndarray
    op_table: list[str]
    device_codes: np.ndarray
    device_table: list[str]
    op_order: np.ndarray             # ops in tree order (each item's ops contiguous)
    first: np.ndarray                # per item: range in op_order
    last: np.ndarray
    core: np.ndarray                 # indices of the graph's edges between non-embedded ops
    #: A partial hierarchy (build_hierarchy's ``top_level``): answers only the collapsed top level.
    top_level: bool = False
    _cum: dict[str, np.ndarray] = field(default_factory=dict)
    #: Item number by id, made when first asked for (ids_index): the collapsed top level, the
    #: first drawing of a large graph, names no item, and 100,000 ids take ~20 ms to index.
    _ids: dict[str, int] | None = None
    #: What views derive and keep for the next request (display trees, structure templates).
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def n_ops(self) -> int:
        return len(self.graph.names)

    @property
    def root(self) -> int:
        return self.n_ops

    @property
    def n_items(self) -> int:
        return len(self.names)

    def ids_index(self) -> dict[str, int]:
        """Item number by id (made once; two threads making it at once make equal ones)."""
        ids = self._ids
        if ids is None:
            self._ids = ids = dict(zip(self.names, range(len(self.names))))
        return ids

    def __contains__(self, name: object) -> bool:
        return name in self.ids_index()

    def item(self, name: str) -> int:
        """The item with id ``name`` (an op, scope or series); KeyError if none."""
        return self.ids_index()[name]

    def label(self, item: int) -> str:
        """The short label of an item: an op's or scope's last name component (a torch module
        scope as ``conv1 (Conv2d)``, an op named like its scope as ``(A)``), a series' pattern."""
        n, n_series = self.n_ops, len(self.series)
        if item >= self.n_items - n_series:
            return self.series[item - (self.n_items - n_series)].label
        leaf = self.names[item].rpartition("/")[2]
        if item < n:
            return leaf if self.names[item] == self.graph.names[item] else f"({self.graph.names[item].rpartition('/')[2]})"
        return scope_label(leaf)

    def annotations(self, host: int) -> list[tuple[int, int]]:
        """(annotation op, IN_ANNOTATION or OUT_ANNOTATION) of the constants and summaries drawn
        beside op ``host``."""
        lo, hi = np.searchsorted(self.ann_host, [host, host + 1])
        return list(zip(self.ann_node[lo:hi].tolist(), self.ann_side[lo:hi].tolist()))

    def total(self, what: str, items: np.ndarray) -> np.ndarray:
        """Sum over each item's ops of ``what``: "count" (non-embedded ops), "compute_time" or
        "memory" (NaN where none of its ops has a figure)."""
        if what not in self._cum:
            ordered = self.op_order
            if what == "count":
                w = (~self.embedded[ordered]).astype(np.float64)
            else:
                raw = getattr(self.graph, what)[ordered]
                known = np.concatenate([[0], np.cumsum(~np.isnan(raw))])
                self._cum[what + "_known"] = known
                w = np.nan_to_num(raw)
            self._cum[what] = np.concatenate([[0.0], np.cumsum(w)])
        cum = self._cum[what]
        out = cum[self.last[items]] - cum[self.first[items]]
        if what != "count":
            known = self._cum[what + "_known"]
            out = np.where(known[self.last[items]] > known[self.first[items]], out, np.nan)
        return out

    def ops_in(self, item: int) -> np.ndarray:
        """Node numbers of the ops inside ``item`` (itself for an op), embedded ones included."""
        return self.op_order[self.first[item]:self.last[item]]


def _scopes(names: list[str], top_level: bool = False) -> tuple[list[str], list[int], np.ndarray]:
    """Scope names (root first, parents before children), their parents, and each op's scope;
    with ``top_level``, only the top-level scopes (every op inside one sits directly in it)."""
    if top_level:
        paths = [name.partition("/")[0] if "/" in name else "" for name in names]
    else:
        paths = [name.rpartition("/")[0] for name in names]
    index = {"": 0}
    scope_names = [""]
    scope_parent = [-1]
    for path in dict.fromkeys(paths):  # each distinct scope once
        if path in index:
            continue
        missing = [path]
        up = path.rpartition("/")[0]
        while up not in index:
            missing.append(up)
            up = up.rpartition("/")[0]
        pid = index[up]
        for p in reversed(missing):
            index[p] = sid = len(scope_names)
            scope_names.append(p)
            scope_parent.append(pid)
            pid = sid
    op_scope = np.fromiter(map(index.__getitem__, paths), dtype=np.int32, count=len(paths))
    own = np.fromiter(map(index.get, names, repeat(0)), dtype=np.int32, count=len(names))
    op_scope = np.where(own > 0, own, op_scope)  # an op named like a scope sits inside it
    return scope_names, scope_parent, op_scope


def _embeddings(graph: Graph, op_codes: np.ndarray, op_table: list[str]) -> tuple[np.ndarray, ...]:
    """(embedded, host per op, then annotations as host/op/side arrays sorted by host)."""
    n = len(graph.names)
    is_const = np.array([op in CONST_OPS for op in op_table], dtype=bool)[op_codes]
    is_summary = np.array([bool(_SUMMARY_OP.match(op)) for op in op_table], dtype=bool)[op_codes]
    data = ~graph.edge_control
    src, dst = graph.edge_src[data].astype(np.int64), graph.edge_dst[data].astype(np.int64)
    consumed = np.bincount(src, minlength=n) > 0
    produced = np.bincount(dst, minlength=n) > 0
    embedded = is_const & consumed & ~produced
    # a summary reading a node (not a constant or another summary) is drawn beside that node
    sel = is_summary[dst] & ~embedded[src] & ~is_summary[src]
    readers, first = np.unique(dst[sel], return_index=True)
    embedded[readers] = True
    const_edges = embedded[src] & ~embedded[dst]
    hosts = np.concatenate([dst[const_edges], src[sel][first]])
    members = np.concatenate([src[const_edges], readers])
    sides = np.concatenate([np.full(int(const_edges.sum()), IN_ANNOTATION), np.full(len(readers), OUT_ANNOTATION)])
    key = np.unique(hosts * max(n, 1) + members, return_index=True)[1]  # one annotation per pair
    hosts, members, sides = hosts[key], members[key], sides[key]
    order = np.argsort(hosts, kind="stable")
    host = np.full(n, -1, dtype=np.int64)
    host[members[::-1]] = hosts[::-1]  # the first host of each
    return embedded, host, hosts[order], members[order], sides[order].astype(np.uint8)


def _rename_top_annotations(names: list[str], op_ids: list[str], op_scope: np.ndarray, ann_host: np.ndarray,
                            ann_node: np.ndarray) -> None:
    """In a top-level hierarchy, give the constants and summaries drawn beside top-level ops
    the ids the whole hierarchy gives them: a deeper one named like a deeper scope is renamed
    ``A/b/(b)`` there. Only the whole list of scopes tells, so it is made only when needed."""
    members = np.unique(ann_node[op_scope[ann_host] == 0])
    deep = [i for i in members.tolist() if "/" in names[i] and op_ids[i] == names[i]]
    if not deep:
        return
    scopes = set(_scopes(names)[0])
    for i in deep:
        if names[i] in scopes:
            op_ids[i] = f"{names[i]}/({names[i].rpartition('/')[2]})"


class _Taken:
    """Names a series may not take: every scope's and node's."""

    def __init__(self, scopes: dict[str, int], graph: Graph) -> None:
        self.scopes = scopes
        self.graph = graph
        self.extra: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self.scopes or name in self.extra or (isinstance(name, str) and self.graph.has(name))

    def add(self, name: str) -> None:
        self.extra.add(name)


def build_hierarchy(graph: Graph, top_level: bool = False) -> Hierarchy:
    """The hierarchy of ``graph`` (scopes, series, annotations, tree order).

    With ``top_level``, a partial hierarchy that answers only the collapsed top level (the
    ``levels`` request with nothing expanded and no user choices), exactly as the whole one
    does, for a fraction of the work: only the top-level scopes are made (the ops deeper down
    sit directly in them, which changes nothing inside a closed scope: its counts, devices,
    make-up and edges depend only on which ops it holds) and only the top level's series are
    looked for. It lets the first drawing of a large graph not wait for the whole hierarchy.
    """
    names = graph.names
    n = len(names)
    scope_names, scope_parent, op_scope = _scopes(names, top_level)
    n_scopes = len(scope_names)
    op_codes, op_table = _codes(graph.ops)
    embedded, host, ann_host, ann_node, ann_side = _embeddings(graph, op_codes, op_table)
    scope_set = {s: k for k, s in enumerate(scope_names)}
    op_ids = list(names)
    renamed = np.fromiter(map(scope_set.__contains__, names), dtype=bool, count=n)
    renamed &= op_scope != 0
    for i in np.flatnonzero(renamed).tolist():
        op_ids[i] = f"{names[i]}/({names[i].rpartition('/')[2]})"
    if top_level:
        _rename_top_annotations(names, op_ids, op_scope, ann_host, ann_node)
    # only ops with a sibling of the same op can be in a series
    free = np.flatnonzero(~embedded & ~renamed & ((op_scope == 0) if top_level else True))
    cluster = op_scope[free].astype(np.int64) * max(len(op_table), 1) + op_codes[free]
    _, inverse, sizes = np.unique(cluster, return_inverse=True, return_counts=True)
    candidates = free[sizes[inverse] >= 2].tolist()
    leaves = {i: names[i].rpartition("/")[2] for i in candidates}
    scope_items = {n + k: s for k, s in enumerate(scope_names)}
    series = detect_series(leaves, graph.ops, (op_scope + n).tolist(), candidates, scope_items,
                           _Taken(scope_set, graph))
    n_items = n + n_scopes + len(series)
    kind = np.full(n_items, OP, dtype=np.uint8)
    kind[n:n + n_scopes] = SCOPE
    kind[n + n_scopes:] = SERIES
    parent = np.empty(n_items, dtype=np.int32)
    parent[:n] = op_scope + n
    parent[n:n + n_scopes] = np.array(scope_parent, dtype=np.int32) + n
    parent[n] = -1
    op_series = np.full(n, -1, dtype=np.int32)
    for k, s in enumerate(series):
        item = n + n_scopes + k
        parent[item] = s.scope
        op_series[list(s.members)] = item
    parent[:n] = np.where(op_series >= 0, op_series, parent[:n])
    depth = np.zeros(n_items, dtype=np.int32)
    sdepth = [0] * n_scopes  # parents come before children
    for k in range(1, n_scopes):
        sdepth[k] = sdepth[scope_parent[k]] + 1
    depth[n:n + n_scopes] = sdepth
    depth[n + n_scopes:] = depth[[s.scope for s in series]] + 1 if series else 0
    depth[:n] = depth[parent[:n]] + 1
    # tree order: scopes in pre-order (name + "/" sorts every subtree contiguously), then ops by
    # (scope rank, series); per-scope ranges from the ranks of the scope and of its subtree's end
    pre = sorted(range(1, n_scopes), key=lambda k: scope_names[k] + "/")
    rank = np.zeros(n_scopes, dtype=np.int64)
    rank[pre] = np.arange(1, n_scopes)
    subtree = [1] * n_scopes
    for k in reversed(range(1, n_scopes)):
        subtree[scope_parent[k]] += subtree[k]
    size = np.array(subtree, dtype=np.int64)
    op_rank = rank[op_scope]
    op_order = np.lexsort((np.arange(n), op_series, op_rank)).astype(np.int64)
    sorted_rank = op_rank[op_order]
    first = np.empty(n_items, dtype=np.int64)
    last = np.empty(n_items, dtype=np.int64)
    position = np.empty(n, dtype=np.int64)
    position[op_order] = np.arange(n)
    first[:n] = position
    last[:n] = position + 1
    first[n:n + n_scopes] = np.searchsorted(sorted_rank, rank, side="left")
    last[n:n + n_scopes] = np.searchsorted(sorted_rank, rank + size, side="left")
    for k, s in enumerate(series):
        pos = position[list(s.members)]
        first[n + n_scopes + k], last[n + n_scopes + k] = pos.min(), pos.max() + 1
    device_codes, device_table = _codes(graph.devices)
    core = np.flatnonzero(~embedded[graph.edge_src] & ~embedded[graph.edge_dst]) if n else np.zeros(0, np.int64)
    item_names = op_ids + scope_names + [s.name for s in series]
    return Hierarchy(graph=graph, names=item_names, top_level=top_level,
                     kind=kind, parent=parent, depth=depth, op_scope=(op_scope + n).astype(np.int32),
                     op_series=op_series, series=series, embedded=embedded, host=host,
                     ann_host=ann_host, ann_node=ann_node, ann_side=ann_side,
                     op_codes=op_codes, op_table=op_table, device_codes=device_codes,
                     device_table=device_table, op_order=op_order, first=first, last=last, core=core)
