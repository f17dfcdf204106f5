"""The distributions dashboard: each sampled step of a histogram tag compressed to the nine
basis points of TensorBoard's compressor (protocol.md, ``distributions``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...reader.plugins.histograms import compress
from ..protocol import BASIS_POINTS
from ..request import Handler, PushKey, Reply, Settings
from ..sources import MultiLogdir
from . import histograms
from .common import key_by_runs


def distribution_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str) -> list[dict[str, Any]]:
    """Per run: the sampled steps, their x, and TensorBoard's compression of each step at the
    nine basis points (``values`` [S, 9]; an empty step gives zeros)."""
    return histograms.per_run(source, tag, runs, axis, lambda values: {"values": compress(values, BASIS_POINTS)})


def answer(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``distributions``: the same request and reply shape as ``histograms``, other values."""
    return histograms.answer(source, content, settings, distribution_entries)


REQUESTS: dict[str, Handler] = {"distributions": answer}
PUSHED: dict[str, PushKey] = {"distributions": key_by_runs}
