"""Image, audio and text cards: one step of each shown run, as HTML with the bytes inlined.

Images and audio become data URLs, and only when their bytes sniff as a type the board shows
(PNG, JPEG, GIF, WebP, BMP; WAV, OGG, MP3, FLAC) and are no larger than ``max_blob_bytes``;
otherwise the card says why. Text from logs is always escaped: a text step is shown as its
Markdown source (not rendered: the kernel has no sanitiser) or as a table of plain cells.
The step is the last sampled one unless ``step=`` names another.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable

import numpy as np

from ..board.dashboards.audio import clip_bytes, clip_count, clip_label, sniff_audio
from ..board.dashboards.common import tensor_series
from ..board.dashboards.images import image_bytes, image_count, sniff_image
from ..board.dashboards.media import OK
from ..board.dashboards.text import text_item
from .output import Card, heading
from .view import CardView

#: Images of one step's batch shown per run (TensorBoard shows one, with a slider for the rest).
MAX_ITEMS = 8


def data_url(data: bytes, mime: str) -> str:
    """``data:<mime>;base64,...``."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _step_of(steps: np.ndarray, step: int | None) -> int | None:
    """Index of ``step`` in a run's sampled steps (its last one if repeated), or the last index."""
    if not len(steps):
        return None
    if step is None:
        return len(steps) - 1
    hits = np.flatnonzero(steps == step)
    return int(hits[-1]) if hits.size else None


def _blob(data: bytes, mime: str | None, max_bytes: int) -> tuple[str | None, str]:
    """(data URL or None, a note when it is not shown)."""
    if mime is None:
        return None, f"not shown: a type the board does not show ({len(data):,} bytes)"
    if len(data) > max_bytes:
        return None, f"not shown: {len(data):,} bytes is over max_blob_bytes ({max_bytes:,})"
    return data_url(data, mime), ""


def _image_items(value: np.ndarray, run: str, step: int, max_bytes: int) -> list[str]:
    out = []
    for i in range(min(image_count(value), MAX_ITEMS)):
        data = image_bytes(value, i)
        url, note = _blob(data, sniff_image(data), max_bytes)
        caption = html.escape(f"{run} · step {step}" + (f" · image {i + 1}" if image_count(value) > 1 else ""))
        media = (f'<img src="{url}" alt="{caption}" style="max-width:100%;image-rendering:pixelated;min-width:128px">'
                 if url else f"<div>{html.escape(note)}</div>")
        out.append(f"<figure>{media}<figcaption>{caption}</figcaption></figure>")
    return out


def _audio_items(value: np.ndarray, run: str, step: int, max_bytes: int) -> list[str]:
    out = []
    for i in range(min(clip_count(value), MAX_ITEMS)):
        data = clip_bytes(value, i)
        url, note = _blob(data, sniff_audio(data), max_bytes)
        label = clip_label(value, i)
        caption = html.escape(f"{run} · step {step}" + (f" · {label}" if label else ""))
        media = f'<audio controls src="{url}"></audio>' if url else f"<div>{html.escape(note)}</div>"
        out.append(f"<figure>{media}<figcaption>{caption}</figcaption></figure>")
    return out


def _text_items(value: np.ndarray, run: str, step: int, max_bytes: int) -> list[str]:
    item = text_item(value, max_bytes)
    caption = html.escape(f"{run} · step {step}")
    if item["status"] != OK:
        note = f"not shown: {item['size']:,} bytes is over max_blob_bytes ({max_bytes:,})"
        body = f"<div>{html.escape(note)}</div>"
    elif item["kind"] == "markdown":
        body = f"<pre>{html.escape(item['markdown'])}</pre>"
    else:
        rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in item["rows"])
        body = f"<table>{rows}</table>"
    return [f'<figure style="display:block">{body}<figcaption>{caption}</figcaption></figure>']


_KINDS: dict[str, tuple[str, Callable[[np.ndarray, str, int, int], list[str]]]] = {
    "images": ("images", _image_items), "audio": ("audio", _audio_items), "text": ("text", _text_items)}


def media_card(view: CardView, tag: str, kind: str, step: int | None = None) -> Card:
    """The ``kind`` ("images", "audio", "text") card of ``tag`` at ``step`` (default: each run's last)."""
    plugin, items_of = _KINDS[kind]
    runs = [r for r, p in view.tag_plugins(tag).items() if p == plugin]
    if not runs:
        raise ValueError(f"no shown run has {kind} tag {tag!r}")
    parts, shown = [], {}
    for run in runs:
        series = tensor_series(view.source, run, tag)
        if series is None:
            continue
        at = _step_of(series.step, step)
        if at is None:
            parts.append(f"<div>{html.escape(f'{run}: no sampled step {step}')}</div>")
            continue
        shown[run] = int(series.step[at])
        parts += items_of(series.values[at], run, int(series.step[at]), view.max_blob_bytes)
    which = "last sampled step" if step is None else f"step {step}"
    sub = f"{kind} · {len(runs)} run(s) · {which}"
    body = heading(tag, sub) + "\n<div>" + "\n".join(parts) + "</div>"
    summary = f"tbnb {kind} card {tag!r}: {len(runs)} run(s), " + ", ".join(
        f"{run} step {s}" for run, s in shown.items())
    return Card(kind, tag, tag, summary, body=body, info={"runs": runs, "steps": shown})


def images_card(view: CardView, tag: str, step: int | None = None) -> Card:
    return media_card(view, tag, "images", step)


def audio_card(view: CardView, tag: str, step: int | None = None) -> Card:
    return media_card(view, tag, "audio", step)


def text_card(view: CardView, tag: str, step: int | None = None) -> Card:
    return media_card(view, tag, "text", step)

