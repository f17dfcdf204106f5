"""Replies to the graph explorer's page: only the levels it shows, as compact columns.

``answer(h, request) -> reply`` is a pure function of a Hierarchy and a request dict; numeric
columns are numpy arrays (the Board's codec sends them as binary buffers), strings are lists.

Requests (every key optional except ``what``)::

    {"what": "levels",
     "expanded": ["Net/layer1", "Net/layer1/add_[1-9]"],   # open scopes and series (ids)
     "series": {"Net/add_[1-9]": False},                   # group (True) / ungroup (False)
     "include": {"Net/init": False, "Net/step": True},      # remove from / add to main graph
     "auto_extract": True}                                  # TensorBoard's extraction rules
    {"what": "search", "pattern": "conv.*", "limit": 42, "series": {...}}
    {"what": "info", "name": "Net/layer1/conv1", "series": {...}}
    {"what": "trace", "name": "Net/layer1/conv1", "expanded": [...], "series": {...}}   # trace inputs

Reply to ``levels``::

    {"what": "levels", "kind": "op" | "run_metadata" | "keras", "ops_total": int,
     "levels": [ids of the open levels drawn, "" (the top) first],
     "unknown": [expanded ids that name no scope or series],
     "ops": [op names], "devices": [device names],          # tables indexed by nodes.op/device
     "nodes": {"id": [...], "label": [...],                  # id: full name (unique), label: short
               "parent": int64[n],     # index of the node's level in these columns, -1 the top
               "kind": uint8[n],       # 0 op, 1 scope, 2 series
               "op": int64[n],         # into "ops"; -1 for scopes and series
               "device": int64[n],     # into "devices": an op's, or the commonest inside a group
               "count": int64[n],      # ops inside (1 for an op)
               "expanded": uint8[n], "extract": uint8[n],   # 0 main graph, 1 input side, 2 output side
               "compute_time": float64[n], "memory": float64[n],   # µs, bytes; NaN: no stats
               "template": int64[n],   # groups with equal op make-up share one (colour by structure)
               "in_annotations": int64[n], "out_annotations": int64[n]},   # constants, summaries
     "edges": {"src": int64[m], "dst": int64[m],        # drawn ends (node indices)
               "level": int64[m],                         # the level the edge is laid out in (-1 top)
               "src_child": int64[m], "dst_child": int64[m],   # children of that level holding the ends
               "n_data": int64[m], "n_control": int64[m],
               "elements": float64[m],                    # summed tensor sizes (NaN: unknown)
               "annotation": uint8[m],                    # draw as a short stub, not a path
               "label": [...]},                           # a shape, "N tensors", or ""
     "annotations": {"node": int64[k], "id": [...], "op": [...], "side": uint8[k]}}  # at most 5 a side

Replies to ``search``, ``info`` and ``trace`` are described in ``search.py``, ``info.py`` and
``trace.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .display import Display, Lifted, display, lift, reps
from .extract import NO_OP, extract_level
from .hierarchy import IN_ANNOTATION, OP, Hierarchy
from .info import node_info
from .search import search
from .trace import trace

MAX_ANNOTATIONS = 5


def answer(h: Hierarchy, request: Mapping[str, Any]) -> dict[str, Any]:
    """The reply to one request from the page (see the module docstring)."""
    what = request.get("what")
    if what == "levels":
        return levels(h, request)
    if what == "search":
        return search(h, str(request.get("pattern", "")), int(request.get("limit", 42)), request.get("series"))
    if what == "info":
        return node_info(h, str(request.get("name", "")), request.get("series"))
    if what == "trace":
        return trace(h, request)
    raise ValueError(f"unknown graph request {what!r}: expected 'levels', 'search', 'info' or 'trace'")


def shape_label(shape: tuple[int, ...] | None) -> str:
    """How an edge's tensor is labelled: ``2×3×8×8`` (``?`` for an unknown size), ``scalar``."""
    if shape is None:
        return "?"
    if not shape:
        return "scalar"
    return "×".join("?" if d < 0 else str(d) for d in shape)


def _open_items(h: Hierarchy, d: Display, expanded: list[str]) -> tuple[np.ndarray, list[str]]:
    is_open = np.zeros(h.n_items, dtype=bool)
    is_open[h.root] = True
    unknown = []
    for name in expanded:
        try:
            item = h.item(name)
        except KeyError:
            unknown.append(name)
            continue
        if h.kind[item] == OP or not d.present(item):
            unknown.append(name)
        else:
            is_open[item] = True
    return is_open, unknown


def _templates(h: Hierarchy, items: list[int]) -> list[int]:
    table: dict[bytes, int] = h.cache.setdefault("templates", {})
    out = []
    for item in items:
        if h.kind[item] == OP:
            out.append(-1)
            continue
        ops = h.ops_in(item)
        ops = ops[~h.embedded[ops]]
        signature = np.bincount(h.op_codes[ops], minlength=len(h.op_table)).tobytes()
        out.append(table.setdefault(signature, len(table)))
    return out


def _devices(h: Hierarchy, items: list[int]) -> list[int]:
    out = []
    for item in items:
        if item < h.n_ops:
            out.append(int(h.device_codes[item]))
            continue
        ops = h.ops_in(item)
        ops = ops[~h.embedded[ops]]
        out.append(int(np.bincount(h.device_codes[ops]).argmax()) if len(ops) else -1)
    return out


def _annotations(h: Hierarchy, items: list[int]) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Per drawn node: how many constants and summaries are drawn beside it; and the table of
    the first ``MAX_ANNOTATIONS`` on each side."""
    n_in = np.zeros(len(items), np.int64)
    n_out = np.zeros(len(items), np.int64)
    node, ids, ops, sides = [], [], [], []
    hosts = set(np.intersect1d(np.array(items, dtype=np.int64), h.ann_host).tolist())
    for k, item in enumerate(items):
        for emb, side in h.annotations(item) if item in hosts else []:
            counter = n_in if side == IN_ANNOTATION else n_out
            if counter[k] < MAX_ANNOTATIONS:
                node.append(k)
                ids.append(h.names[emb])
                ops.append(h.graph.ops[emb])
                sides.append(side)
            counter[k] += 1
    table = {"node": np.array(node, np.int64), "id": ids, "op": ops, "side": np.array(sides, np.uint8)}
    return n_in, n_out, table


def _extraction(h: Hierarchy, request: Mapping[str, Any], items: list[int], parent: np.ndarray,
                open_levels: list[int], index: np.ndarray, lifted: Lifted, level: np.ndarray,
                annotated: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(extract state per drawn node, annotation flag per drawn edge), level by level."""
    include: dict[int, bool] = {}  # drawn node index -> keep in the main graph
    for name, keep in (request.get("include") or {}).items():
        k = int(index[h.item(name)]) if name in h else -1
        if k >= 0:
            include[k] = bool(keep)
    auto = bool(request.get("auto_extract", True))
    noop = np.array([h.kind[i] == OP and h.graph.ops[i] == NO_OP for i in items], dtype=bool)
    src_child, dst_child = index[lifted.src_child], index[lifted.dst_child]
    extract = np.zeros(len(items), np.uint8)
    annotation = np.zeros(len(lifted.src), bool)
    for lv in open_levels:
        lv_index = -1 if lv == h.root else int(index[lv])
        kids = np.flatnonzero(parent == lv_index)
        if not len(kids):
            continue
        local = np.full(len(items), -1, np.int64)
        local[kids] = np.arange(len(kids))
        on_level = np.flatnonzero(level == lv_index)
        pair = local[src_child[on_level]] * len(kids) + local[dst_child[on_level]]
        uniq, inverse = np.unique(pair, return_inverse=True)
        n_data = np.bincount(inverse, weights=lifted.n_data[on_level], minlength=len(uniq))
        user = {int(local[k]): keep for k, keep in include.items() if local[k] >= 0}
        state, pair_annotation = extract_level(len(kids), uniq // len(kids), uniq % len(kids), n_data, noop[kids],
                                               user, auto, annotated[0][kids] > 0, annotated[1][kids] > 0)
        extract[kids] = state
        annotation[on_level] = pair_annotation[inverse]
    return extract, annotation


def levels(h: Hierarchy, request: Mapping[str, Any]) -> dict[str, Any]:
    """The reply to a ``levels`` request."""
    d = display(h, request.get("series"))
    is_open, unknown = _open_items(h, d, list(request.get("expanded") or []))
    shown, rep = reps(d, is_open)
    shown[h.root] = False
    items = sorted(np.flatnonzero(shown).tolist(), key=lambda i: (int(d.depth[i]), h.names[i]))
    index = np.full(h.n_items, -1, dtype=np.int64)
    index[items] = np.arange(len(items))
    arr = np.array(items, dtype=np.int64)
    parent = index[d.parent[arr]]
    ops_table: dict[str, int] = {}
    op_col = np.array([ops_table.setdefault(h.op_table[h.op_codes[i]], len(ops_table)) if h.kind[i] == OP else -1
                       for i in items], dtype=np.int64)
    dev_table: dict[str, int] = {}
    dev_col = np.array([dev_table.setdefault(h.device_table[c], len(dev_table)) if c >= 0 else -1
                        for c in _devices(h, items)], dtype=np.int64)
    n_in, n_out, annotations = _annotations(h, items)
    lifted = lift(d, rep)
    level = np.where(lifted.level == h.root, -1, index[lifted.level])
    open_levels = [h.root] + [i for i in items if is_open[i]]
    extract, annotation = _extraction(h, request, items, parent, open_levels, index, lifted, level, (n_in, n_out))
    g = h.graph
    labels = [shape_label(g.edge_shape(e)) if k == 1 else f"{k} tensors" if k else ""
              for e, k in zip(lifted.edge.tolist(), lifted.n_data.tolist())]
    return {
        "what": "levels", "kind": g.kind, "ops_total": int((~h.embedded).sum()),
        "levels": [h.names[i] for i in open_levels], "unknown": unknown,
        "ops": list(ops_table), "devices": list(dev_table),
        "nodes": {
            "id": [h.names[i] for i in items], "label": [h.label(i) for i in items],
            "parent": parent.astype(np.int64), "kind": h.kind[arr].astype(np.uint8), "op": op_col, "device": dev_col,
            "count": h.total("count", arr).astype(np.int64),
            "expanded": is_open[arr].astype(np.uint8), "extract": extract,
            "compute_time": h.total("compute_time", arr), "memory": h.total("memory", arr),
            "template": np.array(_templates(h, items), dtype=np.int64),
            "in_annotations": n_in, "out_annotations": n_out,
        },
        "edges": {
            "src": index[lifted.src], "dst": index[lifted.dst], "level": level.astype(np.int64),
            "src_child": index[lifted.src_child], "dst_child": index[lifted.dst_child],
            "n_data": lifted.n_data.astype(np.int64), "n_control": lifted.n_control.astype(np.int64),
            "elements": lifted.elements.astype(np.float64), "annotation": annotation.astype(np.uint8),
            "label": labels,
        },
        "annotations": annotations,
    }
