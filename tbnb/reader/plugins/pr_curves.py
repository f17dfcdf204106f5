"""PR curves: the pr_curves plugin's ``[6, T]`` tensors as precision–recall curves per step.

Each step of a ``pr_curves`` tag holds a float ``[6, T]`` tensor whose rows are TP, FP, TN, FN,
precision and recall at ``T`` thresholds spread evenly over ``[0, 1]`` (TensorBoard's layout;
``PrCurvePluginData.num_thresholds`` repeats ``T``). torch's and tensorboardX's ``add_pr_curve``
and TensorBoard's ``pr_curve`` summaries all write this form.

As TensorBoard's PR-curve dashboard does, the thresholds are ``linspace(0, 1, T)`` taken from the
tensor's own width, and the tail of thresholds where TP + FP is 0 (precision undefined: no
prediction reaches them) is cut off, keeping at least the first threshold. Counts stay float64:
a weighted curve has fractional counts, which TensorBoard would truncate.

A tensor of any other shape, or not numeric, is a ``PluginProblem`` for that step; the other
steps are still read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tbnb.format.proto import plugin_data_pb2

from .source import LogdirLike, PluginProblem, pick_step, plugin_content, tags_of_plugin

PLUGIN_NAME = "pr_curves"
#: The rows of the tensor, in order.
ROWS = ("true_positives", "false_positives", "true_negatives", "false_negatives", "precision", "recall")


class PrCurveError(ValueError):
    """A pr_curves tensor that is not a numeric ``[6, T]`` array."""


@dataclass(frozen=True)
class PrCurve:
    """One step of a PR curve: float64 arrays of equal length, one entry per threshold kept."""

    step: int
    wall_time: float
    thresholds: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    true_positives: np.ndarray
    false_positives: np.ndarray
    true_negatives: np.ndarray
    false_negatives: np.ndarray

    def __len__(self) -> int:
        return len(self.thresholds)

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-threshold arrays by name (``thresholds`` first, then the tensor's rows)."""
        return {"thresholds": self.thresholds, **{name: getattr(self, name) for name in ROWS}}


def decode(data: np.ndarray, step: int = 0, wall_time: float = 0.0, *, trim: bool = True) -> PrCurve:
    """One step's ``[6, T]`` tensor as a ``PrCurve``; raise ``PrCurveError`` if it is not one.

    ``trim`` drops the trailing thresholds where TP + FP is 0, as TensorBoard's dashboard does
    (counts are compared after truncation to integers, TensorBoard's test).
    """
    arr = np.asarray(data)
    if arr.dtype.kind not in "iuf":
        raise PrCurveError(f"pr_curves tensor has dtype {arr.dtype}; expected numbers")
    if arr.ndim != 2 or arr.shape[0] != len(ROWS) or arr.shape[1] < 1:
        raise PrCurveError(f"pr_curves tensor has shape {list(arr.shape)}; expected [6, num_thresholds] "
                           "(TP, FP, TN, FN, precision, recall)")
    arr = arr.astype(np.float64)
    width = arr.shape[1]
    end = width
    if trim:
        with np.errstate(invalid="ignore"):
            positives = np.trunc(arr[0]) + np.trunc(arr[1])
        nonzero = np.flatnonzero(positives != 0)
        end = int(nonzero[-1]) + 1 if nonzero.size else 1
    thresholds = np.linspace(0.0, 1.0, width)[:end]
    rows = [arr[i, :end].copy() for i in range(len(ROWS))]
    tp, fp, tn, fn, precision, recall = rows
    return PrCurve(int(step), float(wall_time), thresholds, precision, recall, tp, fp, tn, fn)


def num_thresholds(source: LogdirLike, run: str, tag: str) -> int | None:
    """``num_thresholds`` from the tag's ``PrCurvePluginData``; None if absent or unreadable."""
    content = plugin_content(source, run, tag)
    if not content:
        return None
    try:
        value = plugin_data_pb2.PrCurvePluginData.FromString(content).num_thresholds
    except Exception:  # noqa: BLE001 - protobuf raises its own DecodeError; unreadable is "absent"
        return None
    return int(value) or None


def pr_tags(source: LogdirLike, run: str) -> list[str]:
    """The run's pr_curves tags."""
    return tags_of_plugin(source, run, PLUGIN_NAME)


def read_curves(source: LogdirLike, run: str, tag: str, *,
                trim: bool = True) -> tuple[list[PrCurve], list[PluginProblem]]:
    """Every sampled step of a pr_curves tag, in step order, and the steps that could not be read."""
    series = source.tensors(run, tag)
    curves: list[PrCurve] = []
    problems: list[PluginProblem] = []
    declared = num_thresholds(source, run, tag)
    for i, (step, wall_time) in enumerate(zip(series.step.tolist(), series.wall_time.tolist())):
        try:
            data = series.values[i]
            curve = decode(data, step, wall_time, trim=trim)
        except ValueError as err:  # a PrCurveError, or a tensor that does not decode at all
            problems.append(PluginProblem(run, tag, step, str(err)))
            continue
        width = np.asarray(data).shape[1]
        if declared is not None and declared != width:
            message = f"metadata says {declared} thresholds, the tensor has {width}: its width is used"
            problems.append(PluginProblem(run, tag, step, message))
        curves.append(curve)
    return curves, problems


@dataclass(frozen=True)
class RunCurve:
    """What one run contributes to a PR card: its steps (for the slider) and the chosen step's curve."""

    run: str
    steps: np.ndarray
    curve: PrCurve | None
    problems: list[PluginProblem] = field(default_factory=list)


def card(source: LogdirLike, tag: str, runs: Sequence[str], steps: Mapping[str, int] | None = None,
         *, trim: bool = True) -> dict[str, RunCurve]:
    """A PR card's data: for each run that has ``tag``, its steps and its curve at the chosen step.

    ``steps`` maps a run to the step its slider shows (absent: the last step). Runs without the
    tag are left out; a run whose every step is malformed has ``curve=None`` and its problems.
    """
    out: dict[str, RunCurve] = {}
    for run in runs:
        if source.tags(run).get(tag) != PLUGIN_NAME:
            continue
        curves, problems = read_curves(source, run, tag, trim=trim)
        readable, curve = pick_step(curves, (steps or {}).get(run))
        out[run] = RunCurve(run, readable, curve, problems)
    return out
