"""What the images, audio and text dashboards share: their tags are listed by step with
``blobs`` and one image or audio clip is fetched with ``blob`` (protocol.md), and bytes reach
the page only when safe to show.

The page is handed bytes only when their type is one it can show safely. The type comes from
the bytes' first bytes, never from a writer's claim (``content_type``, a file name): an SVG or
HTML "image" can carry script, so anything that is not one of the raster image or audio
formats the dashboards sniff is "unsupported" and no bytes are sent. Text is sent as Markdown
source or as table cells of plain text; the kernel never produces HTML (the page renders and
sanitises).

A dashboard whose tags are such blobs declares ``BLOBS = BlobKind(...)`` (dashboards/__init__.py
collects them and builds the two shared handlers with ``blob_requests``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..codec import encode
from ..request import Fields, Handler, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import one_series, step_index, tag_runs, tensor_series

#: ``status`` values of ``blob`` replies and text items (protocol.md).
OK, TOO_LARGE, UNSUPPORTED = "ok", "too_large", "unsupported"
#: One item's bytes, MIME type (None: unsupported), width and height (None where unknown).
Item = tuple[bytes, "str | None", "int | None", "int | None"]


@dataclass(frozen=True)
class BlobKind:
    """How one plugin's tensors are listed and fetched.

    ``listing(values)``: the per-run fields of a ``blobs`` reply beyond run, steps and wall
    times: ``counts`` (items per step) and, where the plugin has them, ``labels`` and
    ``sample_rates``. ``item(value, index)``: one item of a step for ``blob`` (IndexError if
    there is no such item); None for a plugin whose items are not fetched one by one (text).
    """

    plugin: str
    listing: Callable[[list[np.ndarray]], dict[str, Any]]
    item: Callable[[np.ndarray, int], Item] | None = None


def as_bytes(item: Any) -> bytes:
    """One element of a string tensor as bytes (the reader gives bytes; str is encoded)."""
    if isinstance(item, bytes):
        return item
    if isinstance(item, (bytearray, memoryview)):
        return bytes(item)
    if isinstance(item, np.bytes_):
        return bytes(item)
    return str(item).encode("utf-8")


def as_text(item: Any) -> str:
    """One element of a string tensor as text: UTF-8, invalid bytes replaced (U+FFFD)."""
    if isinstance(item, (bytes, bytearray, memoryview, np.bytes_)):
        return bytes(item).decode("utf-8", errors="replace")
    return str(item)


def blob_fields(data: bytes, mime: str | None, max_bytes: int) -> tuple[dict[str, Any], list[bytes]]:
    """``mime``, ``size``, ``status`` of a blob reply and its buffers (the bytes only if "ok").

    Unsupported wins over too large: enlarging ``max_blob_bytes`` would not make it showable.
    """
    size = len(data)
    if mime is None:
        status = UNSUPPORTED
    elif size > max_bytes:
        status = TOO_LARGE
    else:
        status = OK
    return {"mime": mime, "size": size, "status": status}, [data] if status == OK else []


def blobs_entries(source: MultiLogdir, tag: str, runs: Sequence[str],
                  kinds: Mapping[str, BlobKind]) -> tuple[str, list[dict[str, Any]]]:
    """The plugin and, per run, the sampled steps of a blob tag, no bytes (``blobs``)."""
    plugin, holding = tag_runs(source, tag, runs, tuple(kinds))
    entries = []
    for run in holding:
        series = tensor_series(source, run, tag, as_written=True)  # audio labels (audio.py)
        if series is None:
            continue
        entries.append({"run": run, "steps": series.step.tolist(), "wall_times": series.wall_time.tolist(),
                        "counts": [], "labels": None, "sample_rates": None,
                        **kinds[plugin].listing(list(series.values))})
    return plugin, entries


def blob_reply_fields(source: MultiLogdir, tag: str, run: str, step: int, index: int, max_bytes: int,
                      kinds: Mapping[str, BlobKind]) -> tuple[dict[str, Any], list[bytes]]:
    """The ``blob`` reply's fields (all but type and id) and buffers: one image (``index``
    within the step's batch) or audio clip, with its MIME type sniffed from the bytes.

    The bytes are sent only when the type is supported and the size at most ``max_bytes``.
    ``width``/``height``: an image tensor's first two entries when they are integers, else null
    (always null for audio).
    """
    fetchable = {plugin: kind.item for plugin, kind in kinds.items() if kind.item is not None}
    plugin, series = one_series(source, tag, run, tuple(fetchable), as_written=True)
    value = series.values[step_index(series, run, tag, step)]
    try:
        data, mime, width, height = fetchable[plugin](value, index)
    except IndexError as err:
        raise RequestError(f"run {run!r}, tag {tag!r}, step {step}: {err}") from None
    fields, buffers = blob_fields(data, mime, max_bytes)
    return {"tag": tag, "run": run, "step": step, "index": index, **fields, "width": width,
            "height": height}, buffers


def blob_requests(kinds: Mapping[str, BlobKind]) -> dict[str, Handler]:
    """The ``blobs`` and ``blob`` handlers over the given plugins (in listing order)."""

    def answer_blobs(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
        req = Fields(content)
        request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
        plugin, entries = blobs_entries(source, tag, runs, kinds)
        return encode({"type": "blobs", "id": request_id, "tag": tag, "plugin": plugin, "runs": entries})

    def answer_blob(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
        req = Fields(content)
        request_id, tag, run, step = req.integer("id"), req.string("tag"), req.string("run"), req.integer("step")
        index = req.integer("index") if "index" in content else 0
        fields, buffers = blob_reply_fields(source, tag, run, step, index, settings.max_blob_bytes, kinds)
        return encode({"type": "blob", "id": request_id, **fields})[0], list(buffers)  # raw bytes, no descriptor

    return {"blobs": answer_blobs, "blob": answer_blob}
