"""The reading of training that ``Logdir`` offers beside its raw series: derived series,
train/validation pairs, findings, segmentation masks.

A mixin, so that ``logdir.py`` stays the reader's loading and series API while each analysis
lives in its own module under ``plugins/`` (pure functions over ``source.LogdirLike``); the
methods here only delegate, importing their module when first called (pandas and the analysis
code are paid for only by a user who asks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import pandas as pd

    from ..plugins.segmentation import Segmentation
    from ..plugins.source import LogdirLike


class Analysis:
    """Methods of ``tbnb.Logdir`` that read training rather than load it (see the module doc)."""

    def derive(self, expr: str, name: str | None = None, runs: list[str] | None = None) -> pd.DataFrame:
        """A derived series such as ``"{loss/val} - {loss/train}"``: DataFrame ``run, step, value,
        wall_time`` (``plugins.diagnostics.derive`` and ``.expression``: the language and the rule)."""
        from ..plugins.diagnostics.derive import derive

        return derive(cast("LogdirLike", self), expr, name=name, runs=runs)

    def pairs(self, runs: list[str] | None = None, *, add: dict[str, tuple[str, str]] | None = None,
              drop: list[str] | tuple[str, ...] = ()) -> pd.DataFrame:
        """Train/validation pairs: ``run, metric, train_run, train_tag, val_run, val_tag, convention``
        (``plugins.diagnostics.pairs``: the conventions, ``add``/``drop``, the ambiguity rule)."""
        from ..plugins.diagnostics.pairs import pairs_frame

        return pairs_frame(cast("LogdirLike", self), runs, add=add, drop=drop)

    def diagnose(self, runs: list[str] | None = None, **options: Any) -> pd.DataFrame:
        """Findings in words: ``run, metric, finding, step, evidence, advice, severity``
        (``plugins.diagnostics.diagnose``: options; ``.rules``: every rule and threshold)."""
        from ..plugins.diagnostics.diagnose import diagnose

        return diagnose(cast("LogdirLike", self), runs, **options)

    def segmentation(self, run: str, tag: str) -> Segmentation:
        """What ``tbnb.log_segmentation`` wrote as ``tag`` in ``run``: ``.steps``, ``.classes``,
        ``.at(step)`` (``.image``, ``.label``, ``.prediction``: the masks as logged) and ``.iou()``
        (``plugins.segmentation``). SegmentationError for a tag that is not a segmentation."""
        from ..plugins.segmentation import segmentation

        return segmentation(cast("LogdirLike", self), run, tag)
