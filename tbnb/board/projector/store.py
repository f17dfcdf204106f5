"""Embeddings of a board's source, and projections of them, computed once and kept.

The projector's requests are answered from here: ``embeddings_of`` finds a run's embeddings in a
``Logdir`` or a ``MultiLogdir`` (the root of each logdir is a run too, as in TensorBoard), and
``project`` returns a projection from a small cache keyed by (run directory, embedding, method,
parameters), so that switching back to a layout, or asking for it from Python and from the page,
costs nothing. Entries of a run are re-read when its config or checkpoint files change.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import numpy as np

from ...reader.logdir.logdir import Logdir
from ...reader.plugins.embeddings import Embedding, Embeddings, embeddings
from ...reader.plugins.projector import find_configs
from ..sources import MultiLogdir
from .linear import custom_axes, pca, query_rows, spherize

Source = Union[Logdir, MultiLogdir]
METHODS = ("pca", "tsne", "umap", "custom")
#: TensorBoard spherizes by default from this many dimensions on.
SPHERIZE_FROM_DIMS = 50
MAX_PROJECTIONS = 12
MAX_RUNS = 8


def logdir_of(source: Source, run: str) -> tuple[Logdir, str]:
    """The logdir holding ``run`` and its name inside it (a named logdir's root is its name).

    KeyError for a run the source does not list (``projector_runs``): the run comes from the
    page, and a name such as ``../../elsewhere`` or ``/abs/path`` must never become a directory
    that is searched for projector configs and tensors.
    """
    if run not in projector_runs(source):
        raise KeyError(f"no run {run!r}")
    if isinstance(source, Logdir):
        return source, run
    single = source.single
    if single is not None:
        return single, run
    for name, lg in source.entries:
        if name is None:
            return lg, run
        if run == name:
            return lg, "."
        if run.startswith(name + "/"):
            return lg, run[len(name) + 1:]
    raise KeyError(f"no run {run!r}")


def projector_runs(source: Source) -> list[str]:
    """Runs that may hold embeddings: each logdir's root (``"."`` or its name) then the runs."""
    if isinstance(source, Logdir) or source.single is not None:
        roots = ["."]
    else:
        roots = ["." if name is None else name for name, _ in source.entries]
    return list(dict.fromkeys(roots + source.runs()))


def _signature(directory: Path) -> tuple[Any, ...]:
    files = find_configs(directory) + [directory / "checkpoint"]
    return tuple((str(p), p.stat().st_mtime_ns) for p in files if p.is_file())


class Store:
    """Per board source: embeddings by run, and projections by key."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._runs: OrderedDict[tuple[str, str], tuple[tuple[Any, ...], Embeddings]] = OrderedDict()
        self._projections: OrderedDict[tuple[Any, ...], Projection] = OrderedDict()

    def embeddings(self, source: Source, run: str) -> Embeddings:
        lg, inner = logdir_of(source, run)
        directory = lg.run_directory(inner)
        key = (str(directory), run)
        signature = _signature(directory) if not lg.storage.remote and directory.is_dir() else ()
        with self._lock:
            cached = self._runs.get(key)
            if cached is not None and cached[0] == signature:
                self._runs.move_to_end(key)
                return cached[1]
        found = embeddings(lg, inner) if signature else Embeddings()
        with self._lock:
            self._runs[key] = (signature, found)
            while len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)
        return found

    def embedding(self, source: Source, run: str, name: str) -> Embedding:
        found = self.embeddings(source, run)
        if name not in found:
            raise KeyError(f"run {run!r} has no embedding {name!r}")
        return found[name]

    def cached(self, key: tuple[Any, ...]) -> Projection | None:
        with self._lock:
            hit = self._projections.get(key)
            if hit is not None:
                self._projections.move_to_end(key)
            return hit

    def keep(self, key: tuple[Any, ...], projection: Projection) -> None:
        with self._lock:
            self._projections[key] = projection
            while len(self._projections) > MAX_PROJECTIONS:
                self._projections.popitem(last=False)


@dataclass(frozen=True)
class Projection:
    """A layout: positions [N, dims] float32, and PCA's variance shares (else empty)."""

    positions: np.ndarray
    variance: np.ndarray


def label_strings(emb: Embedding, column: str | None) -> list[str]:
    """The labels searched and shown: the column's values as text ("" when missing), or the row
    numbers when the embedding has no metadata."""
    meta = emb.metadata
    if meta is None or not len(meta.columns):
        return [str(i) for i in range(len(emb.tensor))]
    name = column if column in meta.columns else default_label_column(meta)
    values = meta[name]
    return ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in values.tolist()]


def default_label_column(meta: Any) -> str:
    """TensorBoard's default label: the first non-numeric column, else the first."""
    for name in meta.columns:
        if meta[name].dtype == object:
            return str(name)
    return str(meta.columns[0])


def linear_projection(emb: Embedding, method: str, dims: int, params: dict[str, Any]) -> Projection:
    """PCA or custom projection, as TensorBoard computes them (linear.py)."""
    x = emb.tensor
    sphere = params.get("spherize")
    sphere = x.shape[1] >= SPHERIZE_FROM_DIMS if sphere is None else bool(sphere)
    if method == "pca":
        wanted = list(params.get("components") or range(dims))[:dims]
        if len(wanted) != dims or any(not isinstance(c, int) or not 0 <= c < 10 for c in wanted):
            raise ValueError(f"components must be {dims} indices in 0..9, got {wanted}")
        result = pca(x, max(max(wanted) + 1, dims), spherized=sphere)
        cols = [c if c < result.coords.shape[1] else None for c in wanted]
        positions = np.stack([result.coords[:, c] if c is not None else np.zeros(len(x), np.float32)
                              for c in cols], axis=1)
        return Projection(np.ascontiguousarray(positions, dtype=np.float32), result.variance[:10])
    data = spherize(x) if sphere else x
    labels = label_strings(emb, params.get("column"))
    regex = bool(params.get("regex", True))
    rows = [query_rows(labels, str(params.get(side, "")), regex) for side in ("left", "right", "up", "down")]
    return Projection(custom_axes(data, *rows), np.zeros(0))
