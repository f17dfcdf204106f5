"""The dashboards beyond scalars, computed in the kernel: histograms, distributions, and the
images, audio and text of a tag (protocol.py, "Dashboards beyond scalars").

Pure functions of a source (``MultiLogdir``), as view.py's: widget.py's handlers parse the
request and call one of these. Every function reads the tag's sampled steps (the reader's
reservoir, TensorBoard's ``samples_per_plugin``). A run or tag unknown to the source, or a tag
of another plugin, is a RequestError; a requested run without the tag is skipped, and so is a
run removed by the poller while the reply is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..reader.plugins.histograms import compress, rebin
from ..reader.series import TensorSeries
from . import media
from .protocol import BASIS_POINTS, HISTOGRAM_BINS
from .sources import MultiLogdir
from .view import RequestError, x_values

#: What ``blobs`` serves, and what ``blob`` sends bytes of.
BLOB_PLUGINS = ("images", "audio", "text")
MEDIA_PLUGINS = ("images", "audio")


def _check_runs(source: MultiLogdir, runs: Sequence[str]) -> None:
    known = set(source.runs())
    unknown = [r for r in runs if r not in known]
    if unknown:
        raise RequestError(f"unknown run(s) {unknown}")


def tag_runs(source: MultiLogdir, tag: str, runs: Sequence[str], plugins: Sequence[str]) -> tuple[str, list[str]]:
    """The plugin of ``tag`` and the requested runs that hold it (in request order).

    RequestError if a run is unknown, the tag is in no run, or it is not of one of ``plugins``.
    """
    _check_runs(source, runs)
    found: dict[str, str] = {}
    for run in source.runs():
        try:
            plugin = source.tags(run).get(tag)
        except KeyError:
            continue
        if plugin:
            found[run] = plugin
    kinds = set(found.values())
    if not kinds:
        raise RequestError(f"unknown tag {tag!r}")
    allowed = sorted(kinds & set(plugins))
    if not allowed:
        raise RequestError(f"tag {tag!r} is a {'/'.join(sorted(kinds))} tag; this request serves "
                           f"{'/'.join(plugins)}")
    plugin = allowed[0]
    return plugin, [r for r in runs if found.get(r) == plugin]


def _series(source: MultiLogdir, run: str, tag: str) -> TensorSeries | None:
    try:
        return source.tensors(run, tag)
    except KeyError:
        return None


def _start(source: MultiLogdir, run: str) -> float | None:
    try:
        return source.run_start_time(run)
    except KeyError:
        return None


# -- histograms and distributions ----------------------------------------------------------------

def _histogram_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str,
                       derive: Callable[[list[np.ndarray]], dict[str, np.ndarray]]) -> list[dict[str, Any]]:
    """Per run holding a histogram tag: its sampled steps, their x, and ``derive`` of its values."""
    _, holding = tag_runs(source, tag, runs, ("histograms",))
    entries = []
    for run in holding:
        series = _series(source, run, tag)
        if series is None:
            continue
        try:
            derived = derive(list(series.values))
        except ValueError as err:
            raise RequestError(f"run {run!r}, tag {tag!r}: {err}") from None
        entries.append({"run": run, "steps": series.step.astype(np.int64),
                        "x": x_values(series, axis, _start(source, run)).astype(np.float64), **derived})
    return entries


def histogram_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str) -> list[dict[str, Any]]:
    """Per run: the sampled steps, their x, and their counts rebinned to HISTOGRAM_BINS equal
    bins over the min/max of that run's non-empty steps (``edges`` [31], ``counts`` [S, 30])."""
    def derive(values: list[np.ndarray]) -> dict[str, np.ndarray]:
        edges, counts = rebin(values, HISTOGRAM_BINS)
        return {"edges": edges, "counts": counts}

    return _histogram_entries(source, tag, runs, axis, derive)


def distribution_entries(source: MultiLogdir, tag: str, runs: Sequence[str], axis: str) -> list[dict[str, Any]]:
    """Per run: the sampled steps, their x, and TensorBoard's compression of each step at the
    nine basis points (``values`` [S, 9]; an empty step gives zeros)."""
    return _histogram_entries(source, tag, runs, axis,
                              lambda values: {"values": compress(values, BASIS_POINTS)})


# -- images, audio, text ---------------------------------------------------------------------------

def blob_listing(source: MultiLogdir, tag: str, runs: Sequence[str]) -> tuple[str, list[dict[str, Any]]]:
    """The plugin and, per run, the sampled steps of an images, audio or text tag, no bytes.

    ``counts``: images in each step's batch; audio clips in each step (1 for the usual writers);
    1 for text. ``labels`` (audio only): each step's first clip's label, plain text.
    ``sample_rates`` (audio only): the first clip's WAV sample rate, null where it is not WAV.
    """
    plugin, holding = tag_runs(source, tag, runs, BLOB_PLUGINS)
    entries = []
    for run in holding:
        series = _series(source, run, tag)
        if series is None:
            continue
        entry: dict[str, Any] = {"run": run, "steps": series.step.tolist(),
                                 "wall_times": series.wall_time.tolist(), "counts": [],
                                 "labels": None, "sample_rates": None}
        if plugin == "images":
            entry["counts"] = [media.image_count(v) for v in series.values]
        elif plugin == "audio":
            values = list(series.values)
            entry["counts"] = [media.clip_count(v) for v in values]
            entry["labels"] = [media.clip_label(v) for v in values]
            entry["sample_rates"] = [media.wav_sample_rate(media.clip_bytes(v, 0)) if media.clip_count(v) else None
                                     for v in values]
        else:
            entry["counts"] = [1] * len(series)
        entries.append(entry)
    return plugin, entries


def _step_index(series: TensorSeries, run: str, tag: str, step: int) -> int:
    hits = np.flatnonzero(series.step == step)
    if not hits.size:
        raise RequestError(f"run {run!r} has no sampled step {step} of tag {tag!r}")
    return int(hits[-1])


def _one_series(source: MultiLogdir, tag: str, run: str, plugins: Sequence[str]) -> tuple[str, TensorSeries]:
    plugin, holding = tag_runs(source, tag, [run], plugins)
    series = _series(source, run, tag) if holding else None
    if series is None:
        raise RequestError(f"run {run!r} has no tag {tag!r}")
    return plugin, series


def blob_reply_fields(source: MultiLogdir, tag: str, run: str, step: int, index: int,
                      max_bytes: int) -> tuple[dict[str, Any], list[bytes]]:
    """The ``blob`` reply's fields (all but type and id) and buffers: one image (``index``
    within the step's batch) or audio clip, with its MIME type sniffed from the bytes.

    The bytes are sent only when the type is supported and the size at most ``max_bytes``.
    ``width``/``height``: an image tensor's first two entries when they are integers, else null
    (always null for audio).
    """
    plugin, series = _one_series(source, tag, run, MEDIA_PLUGINS)
    value = series.values[_step_index(series, run, tag, step)]
    width = height = None
    try:
        if plugin == "images":
            data = media.image_bytes(value, index)
            width, height = media.image_size(value)
            mime = media.sniff_image(data)
        else:
            data = media.clip_bytes(value, index)
            mime = media.sniff_audio(data)
    except IndexError as err:
        raise RequestError(f"run {run!r}, tag {tag!r}, step {step}: {err}") from None
    fields, buffers = media.blob_fields(data, mime, max_bytes)
    return {"tag": tag, "run": run, "step": step, "index": index, **fields, "width": width,
            "height": height}, buffers


def text_items(source: MultiLogdir, tag: str, run: str, max_bytes: int) -> list[dict[str, Any]]:
    """Every sampled step of a text tag: Markdown source (rank 0) or table rows (media.text_item)."""
    _, series = _one_series(source, tag, run, ("text",))
    return [{"step": int(step), "wall_time": float(wall), **media.text_item(value, max_bytes)}
            for step, wall, value in zip(series.step.tolist(), series.wall_time.tolist(), series.values)]
