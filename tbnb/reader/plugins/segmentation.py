"""Segmentations logged by ``tbnb.log_segmentation``: the image, label and prediction of each
step, the masks read back as the class ids that were logged, and their IoU.

A segmentation ``TAG`` is four series of one run: the images ``TAG/image``, ``TAG/label`` and
``TAG/prediction`` (masks as palette colours) and the text ``TAG/classes`` (JSON naming the classes
and their distinct colours, so colour -> class id is exact). Its steps are the steps all three
image series hold: the sampled ones, as for any image tag (TensorBoard's default keeps 10 per tag;
``tbnb.load(..., samples_per_plugin={"images": "all", "text": "all"})`` keeps every step). The three
image series see the same steps, so the reservoir keeps the same steps of each.

Pure: it reads through ``source.LogdirLike``'s public methods only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .png import decode_image
from .source import LogdirLike

if TYPE_CHECKING:
    import pandas as pd

#: The ``format`` the ``TAG/classes`` JSON must name (``tbnb.log.segmentation.FORMAT``).
FORMAT = "tbnb.segmentation"
#: The image sub-tags of a segmentation, in the order ``at()`` returns them.
IMAGES = ("image", "label", "prediction")
CLASSES = "classes"
#: What torch's and tensorboardX's ``add_text`` append to a text tag.
TEXT_SUFFIX = "/text_summary"
#: The ``class`` of ``iou()``'s mean-IoU rows (a name ``log_segmentation`` refuses for a class).
MEAN = "mean"


class SegmentationError(LookupError):
    """A tag that is not a segmentation of the run, or a step it did not log."""


@dataclass(frozen=True)
class Palette:
    """The classes of one ``TAG/classes`` record and their colours (uint8 [K, 3], distinct)."""

    classes: list[str]
    colours: np.ndarray

    def ids(self, pixels: np.ndarray, what: str) -> np.ndarray:
        """The class id of each pixel of a mask image [H, W, 3+] (int64 [H, W]); a colour not in
        the palette is a ValueError (the mask was not written with this palette)."""
        if pixels.ndim != 3 or pixels.shape[2] < 3:
            raise ValueError(f"{what}: a mask image must be RGB, got shape {pixels.shape}")
        keys = _keys(pixels[:, :, :3])
        palette_keys = _keys(self.colours)
        order = np.argsort(palette_keys)
        sorted_keys = palette_keys[order]
        at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
        unknown = sorted_keys[at] != keys
        if unknown.any():
            raise ValueError(f"{what}: {int(unknown.sum())} pixel(s) have colours outside the palette of "
                             f"{len(self.classes)} classes")
        return order[at].astype(np.int64)


def _keys(rgb: np.ndarray) -> np.ndarray:
    rgb = rgb.astype(np.int64)
    return (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]


def parse_classes(value: Any) -> Palette:
    """A ``TAG/classes`` text value (a string tensor) as a Palette; ValueError if it is not one."""
    arr = np.asarray(value, dtype=object).ravel()
    if arr.size != 1:
        raise ValueError(f"expected one string, got {arr.size}")
    raw = arr[0]
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON: {err}") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} record")
    classes, colours = record.get("classes"), record.get("palette")
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes) or not classes:
        raise ValueError("its classes are not a list of names")
    if not isinstance(colours, list) or len(colours) != len(classes):
        raise ValueError("its palette does not give one colour per class")
    try:
        rgb = np.array([[int(str(c).lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)] for c in colours],
                       dtype=np.uint8)
    except ValueError:
        raise ValueError("its palette holds something other than '#rrggbb' colours") from None
    if len(np.unique(_keys(rgb))) != len(rgb):
        raise ValueError("its palette colours are not distinct")
    return Palette(list(classes), rgb)


def classes_tag(tags: dict[str, str], tag: str) -> str | None:
    """The text series holding segmentation ``tag``'s classes: ``TAG/classes`` as tbnb's writer
    names it, ``TAG/classes/text_summary`` as torch and tensorboardX name it; None if neither."""
    for name in (f"{tag}/{CLASSES}", f"{tag}/{CLASSES}{TEXT_SUFFIX}"):
        if tags.get(name) == "text":
            return name
    return None


def is_segmentation(tags: dict[str, str], tag: str) -> bool:
    """Whether ``tags`` (a run's ``{tag: plugin}``) has the four series of segmentation ``tag``."""
    return all(tags.get(f"{tag}/{name}") == "images" for name in IMAGES) and classes_tag(tags, tag) is not None


def segmentation_tags(source: LogdirLike, run: str) -> list[str]:
    """The segmentation tags of a run (by their series' names and plugins), sorted."""
    tags = source.tags(run)
    suffix = f"/{IMAGES[0]}"
    return sorted(t[: -len(suffix)] for t in tags if t.endswith(suffix) and is_segmentation(tags, t[: -len(suffix)]))


@dataclass(frozen=True)
class SegmentationStep:
    """One logged step: the image (uint8 [H, W, 3] or [H, W, 4], as logged) and the label and
    prediction masks (int64 [H, W] class ids, exactly as logged)."""

    step: int
    image: np.ndarray
    label: np.ndarray
    prediction: np.ndarray
    classes: list[str]


def _last_index(steps: np.ndarray) -> dict[int, int]:
    """step -> the index of its last item (a step written twice shows its latest value)."""
    return {int(s): i for i, s in enumerate(steps)}


class Segmentation:
    """The logged steps of one segmentation tag; masks are decoded when asked for (``at``)."""

    def __init__(self, run: str, tag: str, series: dict[str, Any], classes_series: Any) -> None:
        self.run = run
        self.tag = tag
        self._series = series
        self._index = {name: _last_index(s.step) for name, s in series.items()}
        common = set.intersection(*(set(index) for index in self._index.values()))
        #: The steps that have all three images, ascending (int64).
        self.steps: np.ndarray = np.array(sorted(common), dtype=np.int64)
        self._classes_steps = np.asarray(classes_series.step, dtype=np.int64)
        self._classes_values = classes_series.values
        self._palettes: dict[int, Palette] = {}

    def _palette_at(self, step: int) -> Palette:
        """The classes record written with ``step``, else the latest before it, else the first
        (records are sampled like the images, so the step's own is usually there)."""
        if not len(self._classes_steps):
            raise ValueError(f"run {self.run!r}, tag {self.tag}/{CLASSES}: no readable classes record")
        before = np.nonzero(self._classes_steps <= step)[0]
        i = int(before[-1]) if len(before) else 0
        if i not in self._palettes:
            try:
                self._palettes[i] = parse_classes(self._classes_values[i])
            except ValueError as err:
                raise ValueError(f"run {self.run!r}, tag {self.tag}/{CLASSES} at step "
                                 f"{int(self._classes_steps[i])}: {err}") from None
        return self._palettes[i]

    @property
    def classes(self) -> list[str]:
        """The class names (of the latest classes record): class id i is ``classes[i]``."""
        return list(self._palette_at(int(self.steps[-1]) if len(self.steps) else 0).classes)

    def _pixels(self, name: str, step: int) -> np.ndarray:
        value = np.asarray(self._series[name].values[self._index[name][step]], dtype=object).ravel()
        if value.size < 3:
            raise ValueError(f"run {self.run!r}, tag {self.tag}/{name} at step {step}: no image in the value")
        raw = value[2]
        return decode_image(raw if isinstance(raw, bytes) else bytes(raw))

    def _check_step(self, step: int) -> int:
        wanted = int(step)
        if wanted not in self._index["image"] or not all(wanted in index for index in self._index.values()):
            shown = ", ".join(str(int(s)) for s in self.steps[:20]) + (", ..." if len(self.steps) > 20 else "")
            raise SegmentationError(f"run {self.run!r}, segmentation {self.tag!r} has no step {wanted}; "
                                    f"steps: [{shown}]")
        return wanted

    def masks(self, step: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(label, prediction, classes) at ``step``, without decoding the image."""
        step = self._check_step(step)
        palette = self._palette_at(step)
        where = f"run {self.run!r}, tag {self.tag}/%s at step {step}"
        label = palette.ids(self._pixels("label", step), where % "label")
        prediction = palette.ids(self._pixels("prediction", step), where % "prediction")
        if label.shape != prediction.shape:
            raise ValueError(f"{where % 'prediction'}: shape {prediction.shape} differs from the label's "
                             f"{label.shape}")
        return label, prediction, palette.classes

    def at(self, step: int) -> SegmentationStep:
        """The image and both masks at ``step`` (SegmentationError if the step was not logged)."""
        label, prediction, classes = self.masks(step)
        return SegmentationStep(int(step), self._pixels("image", int(step)), label, prediction, list(classes))

    def iou(self) -> pd.DataFrame:
        """Intersection over union per step and class: columns ``step``, ``class``, ``iou``; NaN
        where a class is in neither mask. After each step's classes, a row with ``class`` "mean"
        holds the mean IoU: the mean over that step's classes with an IoU (NaN ones left out)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Segmentation.iou needs pandas: pip install 'tbnb[pandas]'") from None
        steps: list[int] = []
        names: list[str] = []
        values: list[float] = []
        for step in self.steps:
            label, prediction, classes = self.masks(int(step))
            per_class = class_iou(label, prediction, len(classes))
            finite = per_class[~np.isnan(per_class)]
            steps += [int(step)] * (len(classes) + 1)
            names += [*classes, MEAN]
            values += [*per_class.tolist(), float(finite.mean()) if len(finite) else float("nan")]
        return pd.DataFrame({"step": np.array(steps, dtype=np.int64), "class": names,
                             "iou": np.array(values, dtype=np.float64)})

    def __repr__(self) -> str:
        return f"Segmentation(run={self.run!r}, tag={self.tag!r}, steps={len(self.steps)})"


def class_iou(label: np.ndarray, prediction: np.ndarray, count: int) -> np.ndarray:
    """float64 [count]: |label == c and prediction == c| / |label == c or prediction == c| for
    each class c, NaN where the union is empty. One pass: the confusion matrix by ``bincount``."""
    confusion = np.bincount((label.ravel() * count + prediction.ravel()).astype(np.int64),
                            minlength=count * count)[: count * count].reshape(count, count)
    inter = np.diag(confusion).astype(np.float64)
    union = confusion.sum(axis=0) + confusion.sum(axis=1) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), np.nan)


def segmentation(source: LogdirLike, run: str, tag: str) -> Segmentation:
    """The segmentation ``tag`` of ``run``; SegmentationError if the run has no such segmentation."""
    tags = source.tags(run)
    if not is_segmentation(tags, tag):
        known = segmentation_tags(source, run)
        missing = [f"{tag}/{n}" for n in IMAGES if f"{tag}/{n}" not in tags]
        missing += [] if classes_tag(tags, tag) else [f"{tag}/{CLASSES}"]
        why = f"missing {', '.join(missing)}" if missing else "its series are not images and text"
        raise SegmentationError(f"run {run!r} has no segmentation {tag!r} ({why}); "
                                f"segmentations: {known}")
    series = {name: source.tensors(run, f"{tag}/{name}") for name in IMAGES}
    return Segmentation(run, tag, series, source.tensors(run, str(classes_tag(tags, tag))))
