"""The Graph object: one op graph or conceptual graph, held as columns.

Every source (a GraphDef from TensorFlow, torch or tensorboardX, a run-metadata graph, a Keras
model) is turned into the same columns: node names, ops and devices as lists, edges as integer
arrays. The hierarchy, the view sent to the page and the DataFrames are all computed from these
columns, so none of them depends on where the graph came from. Attributes are decoded on demand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .attrs import Shape, elements

if TYPE_CHECKING:
    import pandas as pd


#: The one key of a node's attributes when they cannot be decoded (its value says why).
ATTRS_ERROR = "_error"


class GraphError(ValueError):
    """A graph payload that cannot be read: damaged bytes, the wrong message, malformed JSON."""


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("Graph.nodes and Graph.edges need pandas: pip install 'tbnb[pandas]'") from None
    return pandas


@dataclass
class Graph:
    """A graph as columns. Node ``i`` is ``names[i]``; edge ``e`` runs from node ``edge_src[e]``
    (its output ``edge_output[e]``) to node ``edge_dst[e]``, a control edge if ``edge_control[e]``.

    ``kind`` is ``"op"`` (a GraphDef), ``"run_metadata"`` (graphs from RunMetadata) or ``"keras"``
    (a conceptual graph). ``graph_def`` holds the GraphDef bytes the graph was read from, if any.
    ``compute_time`` (microseconds) and ``memory`` (bytes) are NaN where no step stats name the node.
    ``problems`` lists what was skipped (an input naming no node, unreadable stats), never silently.
    """

    kind: str
    names: list[str]
    ops: list[str]
    devices: list[str]
    inputs: Sequence[list[str]]
    output_shapes: list[list[Shape]]
    edge_src: np.ndarray
    edge_dst: np.ndarray
    edge_output: np.ndarray
    edge_control: np.ndarray
    attrs_of: Callable[[int], dict[str, Any]]
    graph_def: bytes | None = None
    problems: list[str] = field(default_factory=list)
    compute_time: np.ndarray = field(default_factory=lambda: np.empty(0))
    memory: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self) -> None:
        n = len(self.names)
        if self.compute_time.shape != (n,):
            self.compute_time = np.full(n, np.nan)
        if self.memory.shape != (n,):
            self.memory = np.full(n, np.nan)
        self._index: dict[str, int] | None = None
        self._edge_elements: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"<tbnb.Graph {self.kind}: {len(self.names)} nodes, {len(self.edge_src)} edges>"

    # -- lookups ------------------------------------------------------------------------------

    def adopt_index(self, index: dict[str, int]) -> None:
        """Use ``index`` (name -> first node of that name), already built by the reader."""
        self._index = index

    def index(self, name: str) -> int:
        """The node number of ``name`` (KeyError if there is no such node)."""
        if self._index is None:
            self._index = {}
            for i, n in enumerate(self.names):
                self._index.setdefault(n, i)
        return self._index[name]

    def has(self, name: str) -> bool:
        """Whether a node is named ``name``."""
        try:
            self.index(name)
        except KeyError:
            return False
        return True

    def attrs(self, i: int) -> dict[str, Any]:
        """Node ``i``'s attributes decoded to Python values (``{"_error": why}`` if damaged)."""
        return self.attrs_of(i)

    def edge_shape(self, e: int) -> Shape:
        """The shape of the tensor on edge ``e`` (None if unknown or a control edge)."""
        if self.edge_control[e]:
            return None
        shapes = self.output_shapes[self.edge_src[e]]
        k = int(self.edge_output[e])
        return shapes[k] if 0 <= k < len(shapes) else None

    @property
    def edge_elements(self) -> np.ndarray:
        """Elements carried by each edge (float64; 0 for control edges, NaN where the shape is
        unknown): what edge widths and the summed tensor sizes of lifted edges are made of."""
        if self._edge_elements is None:
            # Nodes of one shape share one list (the GraphDef reader decodes each distinct
            # ``_output_shapes`` once): sizes are worked out per distinct list, then indexed.
            shapes = self.output_shapes
            ident = np.fromiter(map(id, shapes), dtype=np.uint64, count=len(shapes))
            _, first, inverse = np.unique(ident, return_index=True, return_inverse=True)
            sizes = [[elements(s) for s in shapes[i]] for i in first.tolist()]
            own_counts = np.fromiter(map(len, sizes), dtype=np.int64, count=len(sizes))
            own_starts = np.cumsum(own_counts) - own_counts
            flat = [v for one in sizes for v in one]
            counts, starts = own_counts[inverse.ravel()], own_starts[inverse.ravel()]
            values = np.array(flat + [np.nan], dtype=np.float64)
            src, port = self.edge_src.astype(np.int64), self.edge_output.astype(np.int64)
            valid = (port >= 0) & (port < counts[src]) if len(src) else np.zeros(0, bool)
            out = np.where(valid, values[np.where(valid, starts[src] + port, len(flat))], np.nan)
            self._edge_elements = np.where(self.edge_control, 0.0, out)
        return self._edge_elements

    # -- tables -------------------------------------------------------------------------------

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node: name, op, device, inputs (as written), output_shapes, attrs (decoded),
        compute_time (µs) and memory (bytes)."""
        pd = _pandas()
        return pd.DataFrame({
            "name": pd.Series(self.names, dtype=object),
            "op": pd.Series(self.ops, dtype=object),
            "device": pd.Series(self.devices, dtype=object),
            "inputs": pd.Series(self.inputs, dtype=object),
            "output_shapes": pd.Series(self.output_shapes, dtype=object),
            "attrs": pd.Series([self.attrs_of(i) for i in range(len(self.names))], dtype=object),
            "compute_time": self.compute_time,
            "memory": self.memory,
        })

    @property
    def edges(self) -> pd.DataFrame:
        """One row per edge: src, dst (names), src_output, control, shape (tuple or None), elements."""
        pd = _pandas()
        names = np.array(self.names, dtype=object)
        return pd.DataFrame({
            "src": pd.Series(names[self.edge_src] if len(names) else [], dtype=object),
            "dst": pd.Series(names[self.edge_dst] if len(names) else [], dtype=object),
            "src_output": self.edge_output.astype(np.int64),
            "control": self.edge_control.astype(bool),
            "shape": pd.Series([self.edge_shape(e) for e in range(len(self.edge_src))], dtype=object),
            "elements": self.edge_elements,
        })

    def scopes(self, prefix: str = "") -> pd.DataFrame:
        """The children of scope ``prefix`` ("" is the top): name, kind ("scope" or "op") and the
        number of ops inside (1 for an op), in name order."""
        pd = _pandas()
        rows = scope_children(self.names, prefix)
        return pd.DataFrame({"name": [r[0] for r in rows], "kind": [r[1] for r in rows],
                             "ops": np.array([r[2] for r in rows], dtype=np.int64)})


class Ragged(Sequence[list[str]]):
    """Lists of strings stored flat: item ``i`` is ``flat[offsets[i]:offsets[i+1]]``."""

    def __init__(self, flat: list[str], offsets: np.ndarray) -> None:
        self.flat = flat
        self.offsets = offsets.tolist()

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> list[str]:  # type: ignore[override]
        return self.flat[self.offsets[i]:self.offsets[i + 1]]


def scope_children(names: Sequence[str], prefix: str) -> list[tuple[str, str, int]]:
    """(full name, "scope" | "op", ops inside) for each child of scope ``prefix``.

    A name that is both an op and a scope (``A`` beside ``A/b``) is listed as the scope, and its
    op as the child ``A/(A)`` of that scope, as TensorBoard shows it.
    """
    prefix = prefix.strip("/")
    start = prefix + "/" if prefix else ""
    counts: dict[str, int] = {}
    is_scope: dict[str, bool] = {}
    for name in names:
        if prefix and name == prefix:  # an op named like the scope: inside it, as "(leaf)"
            child = f"{prefix}/({prefix.rpartition('/')[2]})"
            counts[child] = counts.get(child, 0) + 1
            continue
        if not name.startswith(start):
            continue
        rest = name[len(start):]
        head, sep, _ = rest.partition("/")
        child = start + head
        counts[child] = counts.get(child, 0) + 1
        if sep:
            is_scope[child] = True
    if prefix and not counts:
        raise KeyError(f"no scope {prefix!r} in the graph")
    return [(c, "scope" if is_scope.get(c) else "op", counts[c]) for c in sorted(counts)]


def empty_columns() -> dict[str, np.ndarray]:
    """Edge columns of a graph with no edges, in their dtypes."""
    return {"edge_src": np.zeros(0, np.int32), "edge_dst": np.zeros(0, np.int32),
            "edge_output": np.zeros(0, np.int32), "edge_control": np.zeros(0, bool)}
