"""The segmentation card's requests (answered by the images dashboard, whose tab shows the card):
the steps of a segmentation logged by ``tbnb.log_segmentation`` and, at one step, its image and
both masks as class ids, so that the page draws the three panes, the overlay and the errors
itself, pixel for pixel.

The page names a segmentation only by run, tag and step (never a path). ``segmentation_steps``
names the tag's prediction series (``TAG/prediction``, the last image ``log_segmentation`` writes
at a step): a ``changed`` message naming that series is what makes the remembered request due
again (pushed.py), so the card hears of new steps while training writes. The masks travel as
uint8 class ids (``log_segmentation`` allows at most 256 classes; a record naming more is sent as
int64), the image as RGBA bytes; the three together are held to ``max_blob_bytes``.

The card's view (and the "compare runs" row of image and audio cards) is not in the bundle saved
with every widget: ``media_code`` sends its script the first time a card needs it (js/build.mjs
LAZY), as the projector's view is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...reader.plugins.segmentation import (
    IMAGES,
    Segmentation,
    SegmentationError,
    class_iou,
    classes_tag,
    parse_classes,
    segmentation,
)
from .. import assets
from ..codec import encode
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from .common import check_runs

#: The media view's script (js/src/dashboards/images/media_view.js), built next to the bundle.
MEDIA_CODE = "media_view.js"
#: The series a ``segmentation_steps`` request names: the last image written at a step.
WATCHED = IMAGES[-1]


def segmentation_of(tag: str) -> str:
    """The segmentation tag of a ``segmentation_steps`` request's ``tag`` (``TAG/prediction``)."""
    suffix = f"/{WATCHED}"
    if not tag.endswith(suffix) or len(tag) == len(suffix):
        raise RequestError(f"'segmentation_steps' names a segmentation by its {WATCHED} series "
                           f"(TAG/{WATCHED}), got {tag!r}")
    return tag[: -len(suffix)]


def _open(source: MultiLogdir, run: str, tag: str) -> Segmentation | None:
    """The run's segmentation ``tag``, or None if the run has none (or went away meanwhile)."""
    try:
        return segmentation(source, run, tag)
    except (SegmentationError, KeyError):
        return None


def palette_at(source: MultiLogdir, run: str, tag: str, step: int) -> tuple[list[str], list[str]]:
    """(classes, "#rrggbb" colours) of the classes record the reader uses at ``step``: the
    step's own, else the latest before it, else the first. RequestError if unreadable."""
    name = classes_tag(source.tags(run), tag)
    if name is None:
        raise RequestError(f"run {run!r} has no segmentation {tag!r}")
    series = source.tensors(run, name)
    steps = np.asarray(series.step, dtype=np.int64)
    if not len(steps):
        raise RequestError(f"run {run!r}, tag {name!r}: no classes record")
    before = np.flatnonzero(steps <= step)
    i = int(before[-1]) if len(before) else 0
    try:
        palette = parse_classes(series.values[i])
    except ValueError as err:
        raise RequestError(f"run {run!r}, tag {name!r} at step {int(steps[i])}: {err}") from None
    return list(palette.classes), ["#" + "".join(f"{int(v):02x}" for v in c) for c in palette.colours]


def steps_entry(source: MultiLogdir, run: str, tag: str) -> dict[str, Any] | None:
    """A run's entry of a ``segmentation_steps`` reply, or None if it has no such segmentation."""
    seg = _open(source, run, tag)
    if seg is None:
        return None
    steps = [int(s) for s in seg.steps]
    entry: dict[str, Any] = {"run": run, "steps": steps, "classes": [], "palette": [], "error": None}
    try:
        entry["classes"], entry["palette"] = palette_at(source, run, tag, steps[-1] if steps else 0)
    except RequestError as err:
        entry["error"] = str(err)
    return entry


def answer_steps(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``segmentation_steps``: per requested run holding the segmentation (``series``, as a
    pushed reply's ``runs`` are the request's), its steps (all three images logged) and the
    classes and colours of its latest classes record."""
    req = Fields(content)
    request_id, watched, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    tag = segmentation_of(watched)
    check_runs(source, runs)
    entries = [e for e in (steps_entry(source, run, tag) for run in runs) if e is not None]
    if not entries:
        raise RequestError(f"no requested run has a segmentation {tag!r}")
    return encode({"type": "segmentation_steps", "id": request_id, "tag": watched, "segmentation": tag,
                   "series": entries})


def rgba(image: np.ndarray) -> np.ndarray:
    """uint8 [H, W, 4] of a decoded image of 1 (grey), 2 (grey, alpha), 3 or 4 channels."""
    channels = image.shape[2]
    if channels == 4:
        return np.ascontiguousarray(image)
    out = np.empty(image.shape[:2] + (4,), dtype=np.uint8)
    out[..., :3] = image[..., :3] if channels >= 3 else image[..., :1]
    out[..., 3] = image[..., 1] if channels == 2 else 255
    return out


def step_fields(source: MultiLogdir, run: str, tag: str, step: int, max_bytes: int) -> dict[str, Any]:
    """The ``segmentation`` reply's data at ``step``: image (uint8 RGBA), label and prediction
    (class ids), each class's IoU at this step (NaN: in neither mask), classes and colours."""
    seg = _open(source, run, tag)
    if seg is None:
        raise RequestError(f"run {run!r} has no segmentation {tag!r}")
    try:
        label, prediction, classes = seg.masks(step)
    except SegmentationError as err:
        raise RequestError(str(err)) from None
    except ValueError as err:  # a mask in colours outside the palette, a damaged PNG
        raise RequestError(f"run {run!r}, segmentation {tag!r} at step {step}: {err}") from None
    height, width = label.shape
    ids = np.uint8 if len(classes) <= 256 else np.int64
    size = height * width * (4 + 2 * np.dtype(ids).itemsize)
    if size > max_bytes:
        raise RequestError(f"run {run!r}, segmentation {tag!r} at step {step}: {width}x{height} pixels take "
                           f"{size:,} bytes, over max_blob_bytes ({max_bytes:,})")
    try:
        image = seg.at(step).image
    except ValueError as err:
        raise RequestError(f"run {run!r}, segmentation {tag!r} at step {step}: {err}") from None
    if image.shape[:2] != label.shape:
        raise RequestError(f"run {run!r}, segmentation {tag!r} at step {step}: the image is "
                           f"{image.shape[1]}x{image.shape[0]}, its masks {width}x{height}")
    names, colours = palette_at(source, run, tag, step)
    return {"width": int(width), "height": int(height), "classes": names, "palette": colours,
            "image": rgba(image), "label": label.astype(ids), "prediction": prediction.astype(ids),
            "iou": class_iou(label, prediction, len(classes))}


def answer_step(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``segmentation``: one run's segmentation ``tag`` at ``step``."""
    req = Fields(content)
    request_id, tag, run, step = req.integer("id"), req.string("tag"), req.string("run"), req.integer("step")
    check_runs(source, [run])
    fields = step_fields(source, run, tag, step, settings.max_blob_bytes)
    return encode({"type": "segmentation", "id": request_id, "tag": tag, "run": run, "step": step, **fields})


def media_code(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``media_code``: the media view's script (a classic script, run once per page)."""
    request_id = Fields(content).integer("id")
    path = assets.BUNDLE.parent / MEDIA_CODE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RequestError(f"the media view's code is not built ({path} is missing): {assets.BUILD_HINT}") from None
    return {"type": "media_code", "id": request_id, "size": len(data)}, [data]


def steps_key(request: Mapping[str, Any]) -> tuple[Any, ...]:
    """A card's steps request replaces its previous one (same tag and runs)."""
    return (request["type"], request["tag"], tuple(request["runs"]))


REQUESTS: dict[str, Handler] = {"segmentation_steps": answer_steps, "segmentation": answer_step,
                                "media_code": media_code}
PUSHED: dict[str, PushKey] = {"segmentation_steps": steps_key}
