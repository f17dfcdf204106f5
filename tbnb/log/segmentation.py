"""``tbnb.log_segmentation``: an image, its label mask and the model's prediction at one step,
written so that TensorBoard shows them as ordinary images and tbnb reads the masks back exactly.

What one call writes, through the writer's own ``add_image`` and ``add_text``:

* ``TAG/image``: the image, uint8 RGB (or RGBA) as torch's ``add_image`` would have written it;
* ``TAG/label`` and ``TAG/prediction``: each mask coloured by the class palette (RGB PNG, lossless);
* ``TAG/classes`` (torch's and tensorboardX's ``add_text`` name it ``TAG/classes/text_summary``):
  a text summary holding JSON, ``{"format": "tbnb.segmentation", "version": 1,
  "classes": [...], "palette": ["#rrggbb", ...]}``. TensorBoard shows it in its Text dashboard; tbnb
  reads the palette from it and maps each pixel's colour back to its class id.

The palette's colours are distinct, so colour -> class id is a bijection and the masks read back
exactly (``tbnb.reader.plugins.segmentation``). At most ``MAX_CLASSES`` (256) classes; the default
palette is the PASCAL VOC colour map (class 0 black, 1 dark red, 2 dark green, ...), distinct for
all 256 ids. The class name ``"mean"`` is reserved: ``Segmentation.iou()`` names its mean-IoU rows
so.

``log_filters`` and ``log_activations`` (``grids``) are re-exported here: ``tbnb`` maps all three
names to this module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from .grids import log_activations, log_filters
from .images import image_hwc, to_numpy, write_image, write_text

__all__ = ["FORMAT", "MAX_CLASSES", "MEAN", "log_activations", "log_filters", "log_segmentation",
           "voc_palette"]

#: The ``format`` field of the ``TAG/classes`` JSON: how the reader recognises a segmentation.
FORMAT = "tbnb.segmentation"
VERSION = 1
#: Classes one segmentation may have: the size of the default palette.
MAX_CLASSES = 256
#: The class name ``Segmentation.iou()`` uses for its mean-IoU rows, so no class may take it.
MEAN = "mean"
#: The sub-tags one call writes under ``TAG/``.
SUFFIXES = ("image", "label", "prediction", "classes")


def voc_palette(count: int = MAX_CLASSES) -> np.ndarray:
    """The PASCAL VOC colour map, uint8 [count, 3]: the bits of each id spread over the high bits
    of R, G and B, so the colours are distinct and neighbouring ids far apart."""
    ids = np.arange(count, dtype=np.int64)
    palette = np.zeros((count, 3), dtype=np.int64)
    for shift in range(8):
        for channel in range(3):
            bit = (ids >> (3 * shift + channel)) & 1
            palette[:, channel] |= bit << (7 - shift)
    return palette.astype(np.uint8)


def _colour(entry: Any, index: int) -> tuple[int, int, int]:
    if isinstance(entry, str):
        text = entry.strip().lstrip("#")
        if len(text) != 6:
            raise ValueError(f"palette[{index}]: {entry!r} is not a colour '#rrggbb'")
        try:
            return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)
        except ValueError:
            raise ValueError(f"palette[{index}]: {entry!r} is not a colour '#rrggbb'") from None
    rgb = np.asarray(entry)
    if rgb.shape != (3,) or rgb.dtype.kind not in "iu" or rgb.min() < 0 or rgb.max() > 255:
        raise ValueError(f"palette[{index}]: {entry!r} is not an (r, g, b) triple of integers in 0..255")
    return int(rgb[0]), int(rgb[1]), int(rgb[2])


def class_palette(classes: Sequence[str], palette: Sequence[Any] | np.ndarray | None) -> np.ndarray:
    """The checked palette for ``classes``, uint8 [len(classes), 3], one distinct colour each."""
    if isinstance(classes, str) or not isinstance(classes, Sequence) or not classes:
        raise ValueError(f"classes must be a non-empty list of class names, got {classes!r}")
    names = list(classes)
    if not all(isinstance(c, str) for c in names):
        raise TypeError(f"class names must be strings, got {names!r}")
    if len(names) > MAX_CLASSES:
        raise ValueError(f"{len(names)} classes: at most {MAX_CLASSES} can be logged")
    if len(set(names)) != len(names):
        repeated = sorted({c for c in names if names.count(c) > 1})
        raise ValueError(f"class names must be distinct; repeated: {repeated}")
    if MEAN in names:
        raise ValueError(f"the class name {MEAN!r} is reserved for the mean IoU; rename that class")
    if palette is None:
        return voc_palette(len(names))
    entries = list(palette)
    if len(entries) < len(names):
        raise ValueError(f"palette has {len(entries)} colours for {len(names)} classes")
    colours = [_colour(e, i) for i, e in enumerate(entries[: len(names)])]
    if len(set(colours)) != len(colours):
        raise ValueError("palette colours must be distinct, so that each colour names one class")
    return np.array(colours, dtype=np.uint8)


def _mask(value: Any, name: str, shape: tuple[int, int], count: int) -> np.ndarray:
    """A class-id mask as int64 [H, W]: [1, H, W] and [H, W, 1] are squeezed; whole-number floats
    are accepted (an ``argmax`` over float scores is one); ids must be in 0..count-1."""
    arr = to_numpy(value, name)
    if arr.ndim == 3 and 1 in (arr.shape[0], arr.shape[2]):
        arr = arr[0] if arr.shape[0] == 1 else arr[:, :, 0]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a mask [H, W] of class ids, got shape {arr.shape}")
    if arr.shape != shape:
        raise ValueError(f"{name}: mask shape {arr.shape} does not match the image's {shape} (H, W)")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all() or not np.array_equal(arr, np.round(arr)):
            raise ValueError(f"{name}: a mask holds whole class ids; got non-integer values")
    elif arr.dtype.kind not in "biu":
        raise TypeError(f"{name}: a mask holds class ids, got dtype {arr.dtype}")
    ids = arr.astype(np.int64)
    bad = (ids < 0) | (ids >= count)
    if bad.any():
        wrong = np.unique(ids[bad])
        shown = ", ".join(str(int(i)) for i in wrong[:10]) + (", ..." if len(wrong) > 10 else "")
        raise ValueError(f"{name}: class id(s) {shown} outside the {count} classes (ids 0..{count - 1}), "
                         f"in {int(bad.sum())} pixel(s)")
    return ids


def classes_json(classes: Sequence[str], palette: np.ndarray) -> str:
    """The ``TAG/classes`` text: what the reader needs to turn colours back into class ids."""
    colours = ["#{:02x}{:02x}{:02x}".format(*map(int, rgb)) for rgb in palette]
    return json.dumps({"format": FORMAT, "version": VERSION, "classes": list(classes), "palette": colours},
                      ensure_ascii=False)


def log_segmentation(writer: Any, tag: str, image: Any, label: Any, prediction: Any, step: int, *,
                     classes: Sequence[str], palette: Sequence[Any] | np.ndarray | None = None,
                     dataformats: str = "CHW") -> None:
    """Write ``TAG/image``, ``TAG/label``, ``TAG/prediction`` (PNG images) and ``TAG/classes``.

    ``writer``: anything with ``add_image`` and ``add_text`` (torch's or tensorboardX's
    ``SummaryWriter``, tbnb's ``EventWriter``). ``image``: numpy or torch, laid out as
    ``dataformats`` says ("CHW", as torch's default, "HWC" or "HW"), float in [0, 1] or uint8, 1, 3
    or 4 channels. ``label``, ``prediction``: class ids [H, W] (integers) of the image's size, each
    in ``range(len(classes))``. ``palette``: one distinct colour per class, ``(r, g, b)`` or
    ``"#rrggbb"`` (default: the PASCAL VOC colour map). Everything is checked before anything is
    written, so a bad call leaves the log as it was.
    """
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"tag must be a non-empty string, got {tag!r}")
    colours = class_palette(classes, palette)
    pixels = image_hwc(image, dataformats, "image")
    shape = (pixels.shape[0], pixels.shape[1])
    masks = {name: _mask(value, name, shape, len(colours))
             for name, value in (("label", label), ("prediction", prediction))}
    write_image(writer, f"{tag}/image", pixels, step)
    for name, ids in masks.items():
        write_image(writer, f"{tag}/{name}", colours[ids], step)
    write_text(writer, f"{tag}/classes", classes_json(classes, colours), step)
