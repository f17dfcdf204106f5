"""The learning-rate range test read from a logdir: loss against a rate that grows over the run
(fastai's ``lr_find``, Lightning's ``Tuner.lr_find``), with the steepest-descent suggestion.

Those tools plot the curve in their own process and never write it anywhere TensorBoard reads; a
run that logged its loss and its (growing) learning rate holds the same curve, and this module
computes the same suggestion from it, the way Lightning does (``_LRFinder``):

- **Smoothing**: an exponential moving average of the loss with ``beta`` (0.98) and bias
  correction, ``avg = beta * avg + (1 - beta) * loss``, ``smoothed = avg / (1 - beta ** (i + 1))``.
- **Divergence**: the curve stops at the first point whose smoothed loss is above ``diverge``
  (4) times the lowest smoothed loss before it, or at a non-finite loss (that point left out);
  what follows is the explosion, not information about good rates.
- **Suggestion**: the point of steepest descent of the smoothed loss, skipping the first
  ``skip_begin`` (10) and the last ``skip_end`` (1) points: the minimum of ``np.gradient`` of the
  smoothed loss against log10 of the rate. For the usual geometric schedule (equal steps in log
  rate) this is Lightning's gradient over the index; for any other growing schedule it is still
  the slope the log-x chart shows.

The curve is the run's loss and rate at the steps both have (``align.py``). A rate that does not
grow ``min_growth`` (10) times over the run, or ever falls, is not a range test: ValueError.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..source import LogdirLike
from .align import aligned, check_runs, scalar_tags
from .diagnose import loss_and_lr_tags
from .rules import Settings


@dataclass(frozen=True)
class RangeTest:
    """One run's range test: the curve (steps, rates, losses, smoothed losses; up to where it
    diverged) and the suggested rate (None when too few points remain after the skips)."""

    run: str
    loss_tag: str
    lr_tag: str
    step: np.ndarray
    lr: np.ndarray
    loss: np.ndarray
    smoothed: np.ndarray
    suggestion: float | None
    suggestion_step: int | None


def smooth(loss: np.ndarray, beta: float) -> np.ndarray:
    """The bias-corrected exponential moving average of ``loss`` (module doc)."""
    out = np.empty(len(loss))
    avg = 0.0
    for i, x in enumerate(loss):
        avg = beta * avg + (1 - beta) * x
        out[i] = avg / (1 - beta ** (i + 1))
    return out


def lr_range_test(source: LogdirLike, run: str, loss_tag: str | None = None, lr_tag: str | None = None, *,
                  beta: float = 0.98, diverge: float = 4.0, skip_begin: int = 10, skip_end: int = 1,
                  min_growth: float = 10.0) -> RangeTest:
    """The range test of ``run`` (module doc). Without ``loss_tag``/``lr_tag``, the run's first
    training loss and first learning-rate tag by ``diagnose``'s name rules."""
    check_runs(source, [run])
    if not 0 <= beta < 1 or diverge <= 1 or skip_begin < 0 or skip_end < 0:
        raise ValueError("need 0 <= beta < 1, diverge > 1 and skips >= 0")
    losses, rates = loss_and_lr_tags(source, run, [], Settings())
    loss_tag = loss_tag or (losses[0] if losses else None)
    lr_tag = lr_tag or (rates[0] if rates else None)
    held = scalar_tags(source, run)
    for what, tag in (("loss", loss_tag), ("learning-rate", lr_tag)):
        if tag is None or tag not in held:
            raise ValueError(f"run {run!r} has no {what} tag {tag!r}; pass it (scalar tags: {held[:20]})")
    assert loss_tag is not None and lr_tag is not None
    step, _, values = aligned(source, run, [loss_tag, lr_tag])
    loss, lr = values[loss_tag], values[lr_tag]
    if len(lr) < 2 or not (np.isfinite(lr).all() and (lr > 0).all() and (np.diff(lr) >= 0).all()
                           and lr[-1] >= min_growth * lr[0]):
        raise ValueError(f"{lr_tag!r} in run {run!r} does not grow {min_growth:g}x over the run without "
                         f"falling: not a learning-rate range test")
    finite = np.isfinite(loss)
    end = len(loss) if finite.all() else int(np.argmin(finite))
    step, lr, loss = step[:end], lr[:end], loss[:end]
    smoothed = smooth(loss, beta)
    best_before = np.minimum.accumulate(smoothed)
    over = np.flatnonzero(smoothed[1:] > diverge * best_before[:-1])
    if len(over):
        end = int(over[0]) + 2  # the diverging point is kept, as Lightning keeps it
        step, lr, loss, smoothed = step[:end], lr[:end], loss[:end], smoothed[:end]
    window = slice(skip_begin, len(smoothed) - skip_end)
    part, log_lr = smoothed[window], np.log10(lr[window])
    suggestion = suggestion_step = None
    if len(part) >= 3 and np.ptp(log_lr) > 0:
        keep = np.append(True, np.diff(log_lr) > 0)  # equal rates repeated: one point each
        grad = np.gradient(part[keep], log_lr[keep])
        i = int(np.flatnonzero(keep)[int(np.argmin(grad))]) + skip_begin
        suggestion, suggestion_step = float(lr[i]), int(step[i])
    return RangeTest(run, loss_tag, lr_tag, step, lr, loss, smoothed, suggestion, suggestion_step)
