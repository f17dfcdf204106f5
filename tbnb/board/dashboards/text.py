"""The text dashboard: every sampled step of a text tag as Markdown source or table rows
(protocol.md, ``text``); its steps are listed with the shared ``blobs`` request (media.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..codec import encode
from ..request import Fields, Handler, PushKey, Reply, Settings
from ..sources import MultiLogdir
from .common import one_series
from .media import OK, TOO_LARGE, BlobKind, as_bytes, as_text


def text_item(arr: np.ndarray, max_bytes: int) -> dict[str, Any]:
    """One step of a text tag as the ``text`` reply's item fields (protocol.md).

    Rank 0: Markdown source. Rank 1: a one-column table; rank 2: a table; rank > 2: the table
    ``arr[0, ..., 0, :, :]`` (TensorBoard's reduction). A single string of any rank (torch's
    ``add_text`` writes a one-element list) is Markdown too: TensorBoard renders table cells as
    Markdown, so a one-cell table would look the same. ``size`` counts the UTF-8 bytes of the
    strings that would be sent; over ``max_bytes`` the item is "too_large" without them.
    """
    arr = np.asarray(arr, dtype=object)
    if arr.ndim > 2:
        arr = arr[(0,) * (arr.ndim - 2)]
    if arr.size == 1:
        arr = arr.reshape(())
    kind = "markdown" if arr.ndim == 0 else "table"
    size = sum(len(as_bytes(x)) for x in arr.reshape(-1))
    item: dict[str, Any] = {"kind": kind, "markdown": None, "rows": None, "size": size}
    if size > max_bytes:
        item["status"] = TOO_LARGE
        return item
    item["status"] = OK
    if arr.ndim == 0:
        item["markdown"] = as_text(arr[()])
    elif arr.ndim == 1:
        item["rows"] = [[as_text(x)] for x in arr]
    else:
        item["rows"] = [[as_text(x) for x in row] for row in arr]
    return item


def text_items(source: MultiLogdir, tag: str, run: str, max_bytes: int) -> list[dict[str, Any]]:
    """Every sampled step of a text tag: Markdown source (rank 0) or table rows (``text_item``)."""
    _, series = one_series(source, tag, run, ("text",))
    return [{"step": int(step), "wall_time": float(wall), **text_item(value, max_bytes)}
            for step, wall, value in zip(series.step.tolist(), series.wall_time.tolist(), series.values)]


def answer(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``text``: one run's text steps."""
    req = Fields(content)
    request_id, tag, run = req.integer("id"), req.string("tag"), req.string("run")
    items = text_items(source, tag, run, settings.max_blob_bytes)
    return encode({"type": "text", "id": request_id, "tag": tag, "run": run, "items": items})


def listing(values: list[np.ndarray]) -> dict[str, Any]:
    """``blobs`` fields of a text run: one item a step."""
    return {"counts": [1] * len(values)}


REQUESTS: dict[str, Handler] = {"text": answer}
PUSHED: dict[str, PushKey] = {}
BLOBS = BlobKind("text", listing)
