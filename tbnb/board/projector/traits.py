"""The projector's settings on the Board (synced with the page) and its Python API.

``projector_search`` is run in the kernel (RE2, case-insensitive, over the label column: linear
time whatever the page writes, reader/user_regex.py) and sets ``projector_selection``, so that a search typed in the page and one set from
Python select the same rows; the page draws whatever ``projector_selection`` holds, and writes it
when the user clicks or lassos.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import traitlets
from traitlets import Dict, Enum, Int, List, TraitError, Unicode, observe, validate

from ..traits import check_regex
from . import service
from .bookmarks import bookmarks
from .jobs import DONE
from .linear import query_rows
from .neighbors import neighbors
from .store import METHODS, label_strings, projector_runs

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ...reader.plugins.embeddings import Embedding


class Traits(traitlets.HasTraits):
    """The projector dashboard's settings. ``projector_run`` and ``projector_embedding`` empty:
    the first run and embedding found."""

    projector_run = Unicode("").tag(sync=True)
    projector_embedding = Unicode("").tag(sync=True)
    projector_method = Enum(METHODS, default_value="pca").tag(sync=True)
    projector_dims = Int(3).tag(sync=True)
    #: The method's parameters (service.DEFAULTS: perplexity, neighbors, components, queries...).
    projector_params = Dict().tag(sync=True)
    projector_color_by = Unicode("").tag(sync=True)
    projector_label_by = Unicode("").tag(sync=True)
    projector_search = Unicode("").tag(sync=True)
    projector_selection = List(Int()).tag(sync=True)

    @validate("projector_dims")
    def _check_dims(self, proposal: dict[str, Any]) -> int:
        if proposal["value"] not in (2, 3):
            raise TraitError(f"projector_dims must be 2 or 3, got {proposal['value']!r}")
        return int(proposal["value"])

    @validate("projector_search")
    def _check_search(self, proposal: dict[str, Any]) -> str:
        return check_regex("projector_search", proposal["value"], ignore_case=True)

    @validate("projector_selection")
    def _check_selection(self, proposal: dict[str, Any]) -> list[int]:
        rows = list(dict.fromkeys(int(i) for i in proposal["value"]))
        if any(i < 0 for i in rows):
            raise TraitError("projector_selection: row indices must be >= 0")
        return rows

    @observe("projector_search", "projector_embedding", "projector_run", "projector_label_by")
    def _search_selects(self, change: dict[str, Any]) -> None:
        if change["name"] != "projector_search" and not self.projector_search:
            return
        if not self.projector_search:
            self.projector_selection = []
            return
        try:
            _, _, emb = self.projector_target()
            labels = label_strings(emb, self.projector_label_by or None)
        except (KeyError, ValueError):
            self.projector_selection = []
            return
        self.projector_selection = query_rows(labels, self.projector_search).tolist()

    # -- Python API ------------------------------------------------------------------------------

    def projector_target(self) -> tuple[str, str, Embedding]:
        """(run, tensor name, Embedding) the projector shows: the chosen ones, else the first."""
        source = self.logdir  # type: ignore[attr-defined]  # the Board's public property
        runs = [self.projector_run] if self.projector_run else projector_runs(source)
        for run in runs:
            found = service.STORE.embeddings(source, run)
            if self.projector_embedding in found:
                return run, self.projector_embedding, found[self.projector_embedding]
            if not self.projector_embedding and found:
                name = next(iter(found))
                return run, name, found[name]
        raise KeyError(f"no embedding {self.projector_embedding or ''!r} in runs {runs}")

    def projector_positions(self, rerun: bool = False) -> np.ndarray:
        """The layout the projector shows (float32 [N, dims]); waits for a t-SNE/UMAP job
        (``rerun``: start again one that was stopped)."""
        run, name, _ = self.projector_target()
        projection, status = service.layout(self.logdir, run, name, self.projector_method,  # type: ignore[attr-defined]
                                            self.projector_dims, dict(self.projector_params), wait=True, rerun=rerun)
        if projection is None or status["state"] != DONE:
            raise RuntimeError(f"{self.projector_method} layout not computed: {status['message'] or status['state']}")
        return projection.positions

    def projector_neighbors(self, i: int, k: int = 10, metric: str = "cosine") -> pd.DataFrame:
        """The ``k`` rows nearest to row ``i`` in the original space: index, distance, metadata."""
        import pandas as pd

        _, _, emb = self.projector_target()
        idx, dist = neighbors(emb.tensor, i, k, metric)
        frame = pd.DataFrame({"index": idx, "distance": dist})
        try:
            meta = emb.metadata
        except ValueError:
            meta = None
        if meta is not None:
            frame = pd.concat([frame, meta.iloc[idx].reset_index(drop=True)], axis=1)
        return frame

    def projector_bookmarks(self) -> list[dict[str, Any]]:
        """The shown embedding's bookmarks (TensorBoard's saved States) as settings (bookmarks.py)."""
        _, _, emb = self.projector_target()
        try:
            meta = emb.metadata
        except ValueError:
            meta = None
        columns = [str(c) for c in meta.columns] if meta is not None else []
        return bookmarks(emb.bookmarks, len(emb.tensor), columns)

    def projector_apply_bookmark(self, which: int | str) -> dict[str, Any]:
        """Show a bookmark (by position or label): its projection, parameters, columns and
        selection, as the page's bookmark list does; returns it."""
        marks = self.projector_bookmarks()
        found = [m for k, m in enumerate(marks) if which == k or which == m["label"]] \
            if not isinstance(which, bool) else []
        if not found:
            raise KeyError(f"no bookmark {which!r}; there are {[m['label'] for m in marks]}")
        mark = found[0]
        with self.hold_trait_notifications():
            if mark["method"] is not None:
                self.projector_method = mark["method"]
                self.projector_params = dict(mark["params"])
            if mark["dims"] is not None:
                self.projector_dims = mark["dims"]
            if mark["color_by"] is not None:
                self.projector_color_by = mark["color_by"]
            if mark["label_by"] is not None:
                self.projector_label_by = mark["label_by"]
        if mark["selection"] is not None:
            self.projector_search = ""
            self.projector_selection = mark["selection"]
        return mark

    def projector_stop(self) -> int:
        """Stop every running t-SNE/UMAP job; how many were stopped."""
        return service.JOBS.stop()
