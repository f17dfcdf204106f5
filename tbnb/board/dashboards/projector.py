"""The projector dashboard: embeddings laid out by PCA, t-SNE, UMAP or a custom projection, with
metadata for colour and labels, neighbours, and selections read back in Python (protocol.md,
"Projector"). The computations are in ``tbnb.board.projector``; this module parses requests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import assets
from ..codec import encode
from ..projector import service
from ..projector.bookmarks import bookmarks
from ..projector.neighbors import METRICS, neighbors
from ..projector.store import default_label_column, projector_runs
from ..projector.traits import Traits
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir

__all__ = ["REQUESTS", "PUSHED", "Traits"]

#: Categorical colouring takes at most this many distinct values (TensorBoard's limit).
MAX_CATEGORIES = 50


def index(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_index``: every run with embeddings, their names, and what could not be read."""
    request_id = Fields(content).integer("id")
    runs = []
    for run in projector_runs(source):
        found = service.STORE.embeddings(source, run)
        if not found and not found.problems:
            continue
        runs.append({"run": run, "embeddings": [{"name": name, "source": emb.source} for name, emb in found.items()],
                     "problems": list(found.problems)})
    return {"type": "projector_index", "id": request_id, "runs": runs}, []


def _target(content: dict[str, Any]) -> tuple[Fields, str, str]:
    req = Fields(content)
    return req, req.string("run"), req.string("embedding")


def _layout_args(req: Fields, content: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    method = req.choice("method", service.METHODS, default="pca")
    dims = req.integer("dims")
    params = content.get("params") or {}
    if not isinstance(params, dict):
        raise RequestError(f"'params' must be an object, got {params!r}")
    return method, dims, params


def points(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_points``: a layout's positions (float32 [N, dims]) or its job's progress."""
    req, run, name = _target(content)
    request_id = req.integer("id")
    method, dims, params = _layout_args(req, content)
    try:
        projection, status = service.layout(source, run, name, method, dims, params,
                                            rerun=content.get("rerun") is True)
    except (KeyError, ValueError) as err:
        raise RequestError(str(err.args[0] if isinstance(err, KeyError) else err)) from None
    reply: dict[str, Any] = {"type": "projector_points", "id": request_id, "run": run, "embedding": name,
                             "method": method, "dims": dims, **status}
    if projection is not None:
        reply["positions"] = projection.positions
        reply["variance"] = projection.variance.astype(np.float64)
    return encode(reply)


def column_payload(name: str, values: Any) -> dict[str, Any]:
    """One metadata column for the page: numbers as float64 (NaN missing), else categories: the
    distinct texts and each row's code (-1 missing). Texts stay texts: the page never parses them."""
    if values.dtype.kind in "iuf":
        return {"name": name, "kind": "number", "data": values.to_numpy(dtype=np.float64, na_value=np.nan)}
    texts = ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in values.tolist()]
    missing = np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in values.tolist()])
    uniques, codes = np.unique(np.array(texts, dtype=object), return_inverse=True)
    codes = codes.astype(np.int64)
    codes[missing] = -1
    return {"name": name, "kind": "category", "values": [str(u) for u in uniques], "codes": codes,
            "categorical": len(uniques) <= MAX_CATEGORIES}


def metadata(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_metadata``: the embedding's shape, metadata columns, sprite size, problems."""
    req, run, name = _target(content)
    request_id = req.integer("id")
    try:
        emb = service.STORE.embedding(source, run, name)
        tensor = emb.tensor
    except (KeyError, ValueError) as err:
        raise RequestError(str(err.args[0] if isinstance(err, KeyError) else err)) from None
    problems: list[str] = []
    columns: list[dict[str, Any]] = []
    label = None
    try:
        meta = emb.metadata
    except ValueError as err:
        meta = None
        problems.append(str(err))
    if meta is not None:
        columns = [column_payload(str(c), meta[c]) for c in meta.columns]
        label = default_label_column(meta)
    sprite = None
    try:
        if emb.sprite is not None:
            h, w = emb.sprite.image.shape[:2]
            sprite = {"width": w, "height": h, "single_image_dim": list(emb.sprite.single_image_dim)}
    except ValueError as err:
        problems.append(str(err))
    try:
        marks = bookmarks(emb.bookmarks, len(tensor), [c["name"] for c in columns])
    except ValueError as err:
        marks = []
        problems.append(str(err))
    return encode({"type": "projector_metadata", "id": request_id, "run": run, "embedding": name,
                   "shape": list(tensor.shape), "columns": columns, "label_column": label,
                   "sprite": sprite, "bookmarks": marks, "problems": problems})


def sprite_image(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_sprite``: the sprite atlas file's bytes (PNG or JPEG), for the page to decode
    and draw the points as their thumbnails; sent once per embedding."""
    req, run, name = _target(content)
    request_id = req.integer("id")
    try:
        sprite = service.STORE.embedding(source, run, name).sprite
    except (KeyError, ValueError) as err:
        raise RequestError(str(err.args[0] if isinstance(err, KeyError) else err)) from None
    if sprite is None:
        raise RequestError(f"the embedding {name!r} of run {run!r} has no sprite")
    if len(sprite.data) > settings.max_blob_bytes:
        raise RequestError(f"the sprite image is {len(sprite.data)} bytes, over the board's limit of "
                           f"{settings.max_blob_bytes} (max_blob_bytes)")
    h, w = sprite.image.shape[:2]
    return {"type": "projector_sprite", "id": request_id, "width": w, "height": h,
            "single_image_dim": list(sprite.single_image_dim), "size": len(sprite.data)}, [sprite.data]


def nearest(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_neighbors``: the k nearest rows to one row in the original space."""
    req, run, name = _target(content)
    request_id, row, k = req.integer("id"), req.integer("index"), req.integer("k")
    metric = req.choice("metric", METRICS, default="cosine")
    try:
        emb = service.STORE.embedding(source, run, name)
        idx, dist = neighbors(emb.tensor, row, k, metric)
    except (KeyError, ValueError) as err:
        raise RequestError(str(err.args[0] if isinstance(err, KeyError) else err)) from None
    return encode({"type": "projector_neighbors", "id": request_id, "index": row, "metric": metric,
                   "indices": idx, "distances": dist.astype(np.float64)})


def stop(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_stop``: stop the t-SNE/UMAP job of a layout."""
    req, run, name = _target(content)
    request_id = req.integer("id")
    method, dims, params = _layout_args(req, content)
    try:
        stopped = service.stop(source, run, name, method, dims, params)
    except ValueError as err:
        raise RequestError(str(err)) from None
    return {"type": "projector_stop", "id": request_id, "stopped": stopped}, []


#: The view's code, built apart from the bundle (js/build.mjs, LAZY) and sent on first use.
VIEW_CODE = "projector_view.js"


def code(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``projector_code``: the projector view's script (a classic script, run once per page)."""
    request_id = Fields(content).integer("id")
    path = assets.BUNDLE.parent / VIEW_CODE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RequestError(f"the projector's code is not built ({path} is missing): {assets.BUILD_HINT}") from None
    return {"type": "projector_code", "id": request_id, "size": len(data)}, [data]


REQUESTS: dict[str, Handler] = {
    "projector_code": code,
    "projector_index": index,
    "projector_points": points,
    "projector_metadata": metadata,
    "projector_neighbors": nearest,
    "projector_stop": stop,
    "projector_sprite": sprite_image,
}
PUSHED: dict[str, PushKey] = {}
