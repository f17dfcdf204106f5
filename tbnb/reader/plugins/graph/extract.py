"""Auxiliary nodes: the children of one drawn level that are set beside its main graph.

TensorBoard's rules, on the level's children and the edges between them (degrees count the
neighbours joined by at least one data edge; a node joined only by control edges counts those):

1. The user's choice first: a node removed from the main graph goes beside it (on the output
   side when it has more out- than in-edges), a node added to it stays whatever its degree.
2. ``NoOp`` ops go on the output side.
3. With at least ``MIN_NODES`` candidates: in-degree above ``Q3 + (Q3 - Q1)`` goes on the input
   side, out-degree above ``Q3 + 4 (Q3 - Q1)`` on the output side (quartiles of the candidates'
   degrees; both bounds at least ``MIN_BOUND``).
4. A node left with no edge in the main graph but with annotations on one side only (edges to
   extracted nodes, constants, summaries) goes to the other side.

Control-only edges of a node with more than ``MAX_CONTROL_DEGREE`` of them are drawn as
annotations rather than paths.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

MAIN, EXTRACT_IN, EXTRACT_OUT = 0, 1, 2
MIN_NODES = 15
MIN_BOUND = 4
MAX_CONTROL_DEGREE = 4
NO_OP = "NoOp"


def _degree(node: np.ndarray, data: np.ndarray, n: int) -> np.ndarray:
    """Distinct neighbours per node by data edges, or by any edge where there is no data edge
    (pairs are already distinct: one drawn edge per pair)."""
    by_data = np.bincount(node[data], minlength=n)
    by_any = np.bincount(node, minlength=n)
    return np.where(by_data > 0, by_data, by_any)


def _bound(degrees: np.ndarray, factor: int) -> float:
    ordered = np.sort(degrees)
    count = len(ordered)
    q3 = ordered[min(int(count * 0.75 + 0.5), count - 1)]
    q1 = ordered[min(int(count * 0.25 + 0.5), count - 1)]
    return max(float(q3 + factor * (q3 - q1)), MIN_BOUND)


def extract_level(n: int, src: np.ndarray, dst: np.ndarray, n_data: np.ndarray, is_noop: np.ndarray,
                  user: Mapping[int, bool], auto: bool, in_annotated: np.ndarray,
                  out_annotated: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(state per child: MAIN, EXTRACT_IN or EXTRACT_OUT; bool per edge: drawn as an annotation).

    Children are numbered ``0..n-1``; ``src``/``dst``/``n_data`` are the level's drawn edges
    between children (one per ordered pair); ``user`` maps a child to True (keep in the main
    graph) or False (set beside it); ``in_annotated``/``out_annotated`` flag children with
    constant or summary annotations.
    """
    state = np.zeros(n, dtype=np.uint8)
    forced = np.zeros(n, dtype=bool)
    ins = np.bincount(dst, minlength=n)
    outs = np.bincount(src, minlength=n)
    for child, keep in user.items():
        forced[child] = True
        if not keep:
            state[child] = EXTRACT_OUT if outs[child] > ins[child] else EXTRACT_IN
    if auto:
        state[is_noop & ~forced] = EXTRACT_OUT
        candidates = np.flatnonzero(~forced & (state == MAIN))
        if len(candidates) >= MIN_NODES:
            data = n_data > 0
            live = (state[src] == MAIN) & (state[dst] == MAIN)
            in_deg = _degree(dst[live], data[live], n)
            out_deg = _degree(src[live], data[live], n)
            high_in = candidates[in_deg[candidates] > _bound(in_deg[candidates], 1)]
            state[high_in] = EXTRACT_IN
            rest = candidates[state[candidates] == MAIN]
            high_out = rest[out_deg[rest] > _bound(out_deg[candidates], 4)]
            state[high_out] = EXTRACT_OUT
        main_edge = (state[src] == MAIN) & (state[dst] == MAIN)
        linked = np.zeros(n, dtype=bool)
        linked[src[main_edge]] = True
        linked[dst[main_edge]] = True
        to_aux = np.zeros(n, dtype=bool)
        from_aux = np.zeros(n, dtype=bool)
        to_aux[src[~main_edge]] = True
        from_aux[dst[~main_edge]] = True
        has_out = to_aux | out_annotated
        has_in = from_aux | in_annotated
        lonely = (state == MAIN) & ~forced & ~linked
        state[lonely & has_out & ~has_in] = EXTRACT_IN
        state[lonely & has_in & ~has_out] = EXTRACT_OUT
    annotation = (state[src] != MAIN) | (state[dst] != MAIN)
    control_only = n_data == 0
    per_node = np.bincount(src[control_only], minlength=n) + np.bincount(dst[control_only], minlength=n)
    busy = per_node > MAX_CONTROL_DEGREE
    annotation |= control_only & (busy[src] | busy[dst])
    return state, annotation
