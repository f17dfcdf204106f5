"""IoU of every segmentation as virtual scalar tags (virtual_scalars.py): ``TAG/iou/<class>`` and
``TAG/miou`` of each segmentation ``TAG`` logged by ``tbnb.log_segmentation``, computed in the
kernel from the logged masks at each step where image, label and prediction were all logged.

So the IoU has what a scalar card has (smoothing, the step table, run groups, findings, downloads)
with nothing more logged. A class's IoU is NaN at a step where it is in neither mask; ``miou`` is
the mean over the step's classes that have one (``Segmentation.iou``'s rule). The series follow
the masks: their input tags are ``TAG/label`` and ``TAG/prediction``, so new masks recompute them.
"""

from __future__ import annotations

import numpy as np

from ..reader.plugins.segmentation import (
    Segmentation,
    class_iou,
    classes_tag,
    parse_classes,
    segmentation,
    segmentation_tags,
)
from ..reader.runs.series import ScalarSeries
from .virtual_scalars import LoggedView

#: Where the IoU tags go under a segmentation tag, and the mean IoU's name.
IOU, MIOU = "iou", "miou"


class IouScalars:
    """The virtual-tag provider of segmentations' IoU (one per Board's source)."""

    def _names(self, logged: LoggedView, run: str, tag: str) -> list[str] | None:
        """The class names of the segmentation's latest classes record; None if unreadable."""
        name = classes_tag(logged.tags(run), tag)
        if name is None:
            return None
        series = logged.tensors(run, name)
        values = getattr(series, "values", ())
        if not len(values):
            return None
        try:
            return parse_classes(values[-1]).classes
        except ValueError:
            return None

    def virtual_tags(self, logged: LoggedView, run: str) -> dict[str, tuple[str, ...]]:
        found: dict[str, tuple[str, ...]] = {}
        for tag in segmentation_tags(logged, run):
            names = self._names(logged, run, tag)
            if not names:
                continue
            inputs = (f"{tag}/label", f"{tag}/prediction")
            for name in names:
                found[f"{tag}/{IOU}/{name}"] = inputs
            found[f"{tag}/{MIOU}"] = inputs
        return found

    def _split(self, logged: LoggedView, run: str, tag: str) -> tuple[str, str | None]:
        """(segmentation tag, class name or None for the mean IoU) of a virtual tag."""
        for seg in segmentation_tags(logged, run):
            if tag == f"{seg}/{MIOU}":
                return seg, None
            prefix = f"{seg}/{IOU}/"
            if tag.startswith(prefix):
                return seg, tag[len(prefix):]
        raise KeyError(f"run {run!r} has no tag {tag!r}")

    def compute(self, logged: LoggedView, run: str, tag: str) -> ScalarSeries:
        seg_tag, name = self._split(logged, run, tag)
        seg: Segmentation = segmentation(logged, run, seg_tag)
        label_series = logged.tensors(run, f"{seg_tag}/label")
        walls = {int(s): float(w) for s, w in zip(label_series.step, label_series.wall_time)}
        steps = [int(s) for s in seg.steps]
        values = np.full(len(steps), np.nan)
        for i, step in enumerate(steps):
            label, prediction, classes = seg.masks(step)
            per_class = class_iou(label, prediction, len(classes))
            if name is None:
                finite = per_class[~np.isnan(per_class)]
                values[i] = finite.mean() if len(finite) else np.nan
            elif name in classes:
                values[i] = per_class[classes.index(name)]
        return ScalarSeries(step=np.array(steps, dtype=np.int64),
                            wall_time=np.array([walls.get(s, np.nan) for s in steps], dtype=np.float64),
                            value=values)

    def describe(self, tag: str) -> str:
        what = "mean IoU over the classes present" if tag.endswith(f"/{MIOU}") else "IoU of one class"
        return f"segmentation: {what}, computed from the logged label and prediction masks"
