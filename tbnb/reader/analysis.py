"""The reading of training that ``Logdir`` offers beside its raw series: derived series,
train/validation pairs, findings, segmentation masks.

A mixin, so that ``logdir.py`` stays the reader's loading and series API while each analysis
lives in its own module under ``plugins/`` (pure functions over ``source.LogdirLike``); the
methods here only delegate, importing their module when first called (pandas and the analysis
code are paid for only by a user who asks).
"""

from __future__ import annotations


class Analysis:
    """Methods of ``tbnb.Logdir`` that read training rather than load it (see the module doc)."""
