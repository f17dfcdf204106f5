"""TensorBoard's projector bookmarks read as the Board's projector settings.

A bookmarks file is a JSON array of TensorBoard ``State`` objects (its projector's "save
bookmark"): each names the projection shown (``selectedProjection`` and that method's fields),
the selected rows, the colour and label columns, and a camera. A bookmark here restores the
projection, its parameters, the selection and the columns; the camera is not restored (our
renderer's camera is not TensorBoard's). Fields that are missing or out of range are left out,
so that applying a bookmark changes only what it validly says.
"""

from __future__ import annotations

from typing import Any

TSNE_PERPLEXITY = (2, 100)
UMAP_NEIGHBORS = (5, 50)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def _projection(state: dict[str, Any]) -> tuple[str | None, int | None, dict[str, Any]]:
    """(method, dims, params) of a State; None where it says nothing usable."""
    method = state.get("selectedProjection")
    if method == "pca":
        comps = state.get("pcaComponentDimensions")
        if isinstance(comps, list) and len(comps) in (2, 3) and len(set(comps)) == len(comps) and all(
                isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 10 for c in comps):
            return "pca", len(comps), {"components": [int(c) for c in comps]}
        return "pca", None, {}
    if method == "tsne":
        params: dict[str, Any] = {}
        perplexity = _number(state.get("tSNEPerplexity"))
        if perplexity is not None and TSNE_PERPLEXITY[0] <= perplexity <= TSNE_PERPLEXITY[1]:
            params["perplexity"] = perplexity
        rate = _number(state.get("tSNELearningRate"))
        if rate is not None and rate > 0:
            params["learning_rate"] = rate
        dims = state.get("tSNEis3d")
        return "tsne", (3 if dims else 2) if isinstance(dims, bool) else None, params
    if method == "umap":
        neighbors = _number(state.get("umapNeighbors"))
        params = {"neighbors": int(neighbors)} if neighbors is not None and neighbors == int(neighbors) and (
            UMAP_NEIGHBORS[0] <= neighbors <= UMAP_NEIGHBORS[1]) else {}
        dims = state.get("umapIs3d")
        return "umap", (3 if dims else 2) if isinstance(dims, bool) else None, params
    if method == "custom":
        params = {}
        for side, key in (("left", "customXLeftText"), ("right", "customXRightText"),
                          ("up", "customYUpText"), ("down", "customYDownText")):
            if isinstance(state.get(key), str):
                params[side] = state[key]
        if isinstance(state.get("customXLeftRegex"), bool):
            params["regex"] = state["customXLeftRegex"]
        if isinstance(state.get("customSelectedSearchByMetadataOption"), str):
            params["column"] = state["customSelectedSearchByMetadataOption"]
        return "custom", 2, params
    return None, None, {}


def bookmark(state: dict[str, Any], rows: int, columns: list[str]) -> dict[str, Any]:
    """One State as settings: ``label``, ``method``, ``dims``, ``params`` (for
    ``projector_params``), ``selection`` (rows within [0, rows)), ``color_by`` and ``label_by``
    (only names of existing metadata columns); None where the bookmark says nothing usable."""
    method, dims, params = _projection(state)
    picked = state.get("selectedPoints")
    selection = None
    if isinstance(picked, list):
        selection = list(dict.fromkeys(int(i) for i in picked
                                       if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < rows))
    label = state.get("label")

    def column(key: str) -> str | None:
        value = state.get(key)
        return value if isinstance(value, str) and value in columns else None

    return {"label": label if isinstance(label, str) else "", "method": method, "dims": dims, "params": params,
            "selection": selection, "color_by": column("selectedColorOptionName"),
            "label_by": column("selectedLabelOption")}


def bookmarks(states: list[dict[str, Any]], rows: int, columns: list[str]) -> list[dict[str, Any]]:
    """Every State of a bookmarks file as settings; unnamed ones are called "Bookmark <n>"."""
    out = []
    for k, state in enumerate(states):
        mark = bookmark(state, rows, columns)
        mark["label"] = mark["label"] or f"Bookmark {k + 1}"
        out.append(mark)
    return out
