"""Every diagnostic rule and threshold, in one module: what each finding means, when it fires and
what it advises (the Korean guide's reading of training metrics; CS231n's loss-curve regimes).

A false alarm costs more than silence: every rule needs enough points, reads robust levels
(``curves.chunk_medians``: medians of ``bins`` equal chunks, so one spike never decides) and fires
only on a clear shape. A healthy run gets no finding. All thresholds are fields of ``Settings``
(``diagnose(..., **settings)`` sets them); each is named in the rule that reads it.

Learning-rate rules, on each training loss of a run (``start``: its first point; ``end``: the
median of its last chunk; ``fall = start - end``; they need ``min_points`` points and a positive
start, and a run whose logged learning rate grows ``range_test_growth`` times or more over the run
is a learning-rate range test and is skipped):

- ``lr_too_high`` (error), the first that holds, ``step`` where it happened: a non-finite point;
  a point above ``explode_factor`` x start; a chunk median above ``(1 + rise)`` x start (the
  loss rose above its start); or, after a point above ``(1 + spike)`` x start, an end within
  ``stuck`` x start of the start (it sticks at its starting level after spikes). Advice: lower the
  rate (by 3-10x).
- ``lr_low`` (warning), ``step``: the last: the loss fell less than ``barely`` x start (it barely
  moves), or it fell slowly and roughly linearly and is still falling: the first half of the run
  gave at most ``low_first_half`` of the fall and the last fifth at least ``low_last_fifth``.
  Advice: raise the rate.
- ``lr_high`` (warning), ``step``: where the plateau starts: a fast fall (half of the fall within
  the first ``high_fast`` of the run), then a plateau (the second half gave at most ``high_flat``
  of the fall) at a level still ``high_level`` x start or more: well above where a loss that fell
  that fast was heading. Advice: lower the rate a little, or decay it.

Pair rules, on each train/validation pair (``pairs.py``) of a metric whose direction is known from
its name (``lower_better`` / ``higher_better`` words; others are skipped), read at the validation
steps (``curves.train_at``), needing ``min_val_points`` validation points:

- ``overfitting`` (warning), ``step``: the best validation step. At least ``overfit_after``
  validation points came after the best, and validation ended (the median of its last up to 3
  points) worse than its best by at least ``overfit_worse`` of the best value (a loss 10% above
  its minimum, an accuracy 10% below its maximum), while training improved after the best step by
  at least ``overfit_train_gain`` of its value there. Relative to the best level, not to the
  improvement from the start, so that a validation loss that climbs steadily from its minimum
  counts however far it had fallen before. Advice: regularise or get more data; early stopping
  would have stopped at ``step``.
- ``no_gap`` (info), ``step``: the last validation step. Never with ``overfitting``. Over the last
  half of the validation points, training and validation stayed within ``no_gap_max`` of the
  training curve's whole improvement of each other. Advice: the network can grow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

import numpy as np

from .curves import chunk_medians, fmt, train_at

SEVERITIES = ("info", "warning", "error")
KEYS = ("run", "metric", "finding", "step", "evidence", "advice", "severity")


@dataclass(frozen=True)
class Settings:
    """The thresholds of every rule (the module doc says what each one does)."""

    loss_pattern: str = r"(?:^|[/_.\- ])loss(?:$|[/_.\- ])"
    lr_pattern: str = r"(?:^|[/_.\- ])(?:lr|learning[_\- ]?rate)(?:$|[/_.\- ])"
    val_pattern: str = r"(?:^|[/_.\- ])(?:val|valid|validation|eval|test)(?:$|[/_.\- ])"
    lower_better: tuple[str, ...] = ("loss", "error", "err", "mse", "mae", "rmse", "nll", "perplexity",
                                     "ppl", "wer", "cer")
    higher_better: tuple[str, ...] = ("acc", "accuracy", "f1", "auc", "auroc", "precision", "recall",
                                      "iou", "miou", "dice", "map", "bleu", "r2", "top1", "top5")
    bins: int = 50
    min_points: int = 8
    range_test_growth: float = 100.0
    explode_factor: float = 3.0
    rise: float = 0.10
    spike: float = 0.5
    stuck: float = 0.05
    barely: float = 0.05
    low_first_half: float = 0.75
    low_last_fifth: float = 0.10
    high_fast: float = 0.10
    high_flat: float = 0.03
    high_level: float = 0.30
    min_val_points: int = 3
    overfit_worse: float = 0.10
    overfit_after: int = 3
    overfit_train_gain: float = 0.05
    no_gap_max: float = 0.03

    @classmethod
    def of(cls, **changes: object) -> Settings:
        """The defaults with ``changes``; TypeError naming the settings for an unknown key."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"unknown diagnostic setting {unknown[0]!r}; settings: {', '.join(sorted(names))}")
        return cls(**changes)  # type: ignore[arg-type]

    def matches(self, pattern: str, tag: str) -> bool:
        return re.search(pattern, tag, re.IGNORECASE) is not None

    def direction(self, metric: str) -> int:
        """+1 when lower is better, -1 when higher is better, 0 when the name does not say."""
        words = set(re.split(r"[^a-z0-9]+", metric.lower()))
        if words & set(self.lower_better):
            return 1
        return -1 if words & set(self.higher_better) else 0


def finding(run: str, metric: str, name: str, step: int, evidence: str, advice: str, severity: str) -> dict:
    return dict(zip(KEYS, (run, metric, name, int(step), evidence, advice, severity)))


# -- learning-rate rules --------------------------------------------------------------------------

ADVICE_TOO_HIGH = ("The learning rate is far too high: the network does not learn. Lower it (by 3-10x) "
                   "and check again; a learning-rate range test finds a good value.")
ADVICE_LOW = ("The learning rate looks too low: the loss falls slowly and almost linearly. Raise it "
              "(by 3-10x) to train faster.")
ADVICE_HIGH = ("The learning rate looks somewhat too high: the loss fell fast, then stopped improving "
               "well above where it was heading. Lower it a little, or decay it (a schedule).")


def lr_finding(run: str, tag: str, step: np.ndarray, value: np.ndarray, s: Settings) -> dict | None:
    """The learning-rate finding of one training loss curve (module doc), or None. The caller
    adds the logged learning rate to the evidence (``diagnose``)."""
    if len(value) < s.min_points:
        return None
    bad = np.flatnonzero(~np.isfinite(value))
    if len(bad):
        at = int(bad[0])
        return finding(run, tag, "lr_too_high", step[at],
                       f"{tag} became {value[at]} at step {step[at]}", ADVICE_TOO_HIGH, "error")
    start = float(value[0])
    if start <= 0:  # relative rules assume a positive loss
        return None
    too_high = _too_high(run, tag, step, value, start, s)
    if too_high is not None:
        return too_high
    chunks = chunk_medians(value, s.bins)
    end = float(chunks.median[-1])
    fall = start - end
    n = len(value)
    if fall < s.barely * start:
        return finding(run, tag, "lr_low", step[-1],
                       f"{tag} barely moved: from {fmt(start)} to {fmt(end)} (a change of {_pct(-fall / start)}) "
                       f"over {n} points (steps {step[0]}-{step[-1]})", ADVICE_LOW, "warning")
    first_half = (start - chunks.at(0.5)) / fall
    last_fifth = (chunks.at(0.8) - end) / fall
    if first_half <= s.low_first_half and last_fifth >= s.low_last_fifth:
        return finding(run, tag, "lr_low", step[-1],
                       f"{tag} fell slowly and almost linearly, from {fmt(start)} to {fmt(end)}: the first "
                       f"half of the run gave {_pct(first_half)} of the fall and the last fifth "
                       f"{_pct(last_fifth)}, still falling at step {step[-1]}", ADVICE_LOW, "warning")
    halfway = start - fall / 2
    reached = int(np.argmax(chunks.median <= halfway))  # some chunk is: the last one is ``end``
    fast = chunks.last[reached] <= s.high_fast * (n - 1)
    second_half = (chunks.at(0.5) - end) / fall
    if fast and second_half <= s.high_flat and end >= s.high_level * start:
        plateau = int(np.argmax(chunks.median <= end + (start - end) * s.high_flat))
        at = int(chunks.first[plateau])
        return finding(run, tag, "lr_high", step[at],
                       f"{tag} fell fast (half of its fall by step {step[chunks.last[reached]]}), then "
                       f"stalled from step {step[at]} at {fmt(end)}, still {_pct(end / start)} of its start "
                       f"{fmt(start)} (the second half of the run gave {_pct(second_half)} of the fall)",
                       ADVICE_HIGH, "warning")
    return None


def _too_high(run: str, tag: str, step: np.ndarray, value: np.ndarray, start: float,
              s: Settings) -> dict | None:
    exploded = np.flatnonzero(value > s.explode_factor * start)
    if len(exploded):
        at = int(exploded[0])
        return finding(run, tag, "lr_too_high", step[at],
                       f"{tag} exploded to {fmt(value[at])} at step {step[at]}, "
                       f"{value[at] / start:.3g}x its start {fmt(start)}", ADVICE_TOO_HIGH, "error")
    chunks = chunk_medians(value, s.bins)
    risen = np.flatnonzero(chunks.median > (1 + s.rise) * start)
    if len(risen):
        a, b = int(chunks.first[risen[0]]), int(chunks.last[risen[0]])
        at = a + int(np.argmax(value[a:b + 1] > (1 + s.rise) * start))
        return finding(run, tag, "lr_too_high", step[at],
                       f"{tag} rose above its start {fmt(start)} at step {step[at]} "
                       f"(to {fmt(chunks.median[risen[0]])} around there)", ADVICE_TOO_HIGH, "error")
    spikes = np.flatnonzero(value > (1 + s.spike) * start)
    end = float(chunks.median[-1])
    if len(spikes) and end >= (1 - s.stuck) * start:
        at = int(spikes[0])
        return finding(run, tag, "lr_too_high", step[at],
                       f"{tag} spiked to {fmt(value[at])} at step {step[at]} and stuck at its starting level: "
                       f"{fmt(end)} at the end against {fmt(start)} at the start",
                       ADVICE_TOO_HIGH, "error")
    return None


def is_range_test(lr_value: np.ndarray, s: Settings) -> bool:
    """Whether a logged learning rate grew ``range_test_growth`` times or more over the run (an LR
    range test, which the learning-rate rules do not judge)."""
    lr = lr_value[np.isfinite(lr_value) & (lr_value > 0)]
    return len(lr) >= 2 and lr[-1] >= s.range_test_growth * lr[0] and bool(np.all(np.diff(lr) >= 0))


# -- pair rules -----------------------------------------------------------------------------------

ADVICE_OVERFIT = ("Overfitting: the model learns the training set at the expense of validation. "
                  "Regularise (weight decay, dropout, augmentation) or train on more data; early stopping "
                  "would have stopped at step {step}.")
ADVICE_NO_GAP = ("Validation follows training closely: the network has room to grow. Try more units or "
                 "layers, and watch the gap.")


def pair_finding(run: str, metric: str, train: tuple[np.ndarray, np.ndarray],
                 val: tuple[np.ndarray, np.ndarray], s: Settings, names: tuple[str, str]) -> dict | None:
    """``overfitting`` or ``no_gap`` for one pair (module doc), or None. ``train``/``val``: (step,
    value), one point per step; ``names``: how the two curves are called in the evidence."""
    sign = s.direction(metric)
    if sign == 0:
        return None
    t_step, t_value = _finite(*train)
    v_step, v_value = _finite(*val)
    if len(v_value) < s.min_val_points or len(t_value) < 2:
        return None
    t_at = train_at(v_step, t_step, t_value)
    keep = np.isfinite(t_at)
    v_step, v_value, t_at = v_step[keep], v_value[keep], t_at[keep]
    if len(v_value) < s.min_val_points:
        return None
    vb, tb = sign * v_value, sign * t_at  # "badness": lower is better for both directions
    worse = "rose" if sign > 0 else "fell"
    better = "fell" if sign > 0 else "rose"
    k = int(np.argmin(vb))
    after = len(vb) - 1 - k
    if after >= s.overfit_after:
        v_end = float(np.median(vb[-min(3, after):]))
        t_end = float(np.median(tb[-min(3, after):]))
        if (v_end - vb[k] >= s.overfit_worse * abs(vb[k]) > 0
                and tb[k] - t_end >= s.overfit_train_gain * abs(tb[k]) > 0):
            train_name, val_name = names
            evidence = (f"{val_name} was best at step {v_step[k]} ({fmt(v_value[k])}); since then it {worse} "
                        f"to {fmt(sign * v_end)} ({_pct((v_end - vb[k]) / abs(vb[k]))} worse) while "
                        f"{train_name} {better} from {fmt(t_at[k])} to {fmt(sign * t_end)}")
            return finding(run, metric, "overfitting", v_step[k], evidence,
                           ADVICE_OVERFIT.format(step=v_step[k]), "warning")
    t_range = tb[0] - tb.min()
    if t_range <= 0:
        return None
    half = max(s.min_val_points, (len(vb) + 1) // 2)
    gap = np.abs(vb[-half:] - tb[-half:])
    if gap.max() <= s.no_gap_max * t_range:
        train_name, val_name = names
        evidence = (f"{train_name} and {val_name} stayed within {fmt(gap.max())} of each other over the last "
                    f"{half} validation points (steps {v_step[-half]}-{v_step[-1]}), {_pct(gap.max() / t_range)} "
                    f"of the training improvement; they end at {fmt(t_at[-1])} and {fmt(v_value[-1])}")
        return finding(run, metric, "no_gap", v_step[-1], evidence, ADVICE_NO_GAP, "info")
    return None


def _finite(step: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = np.isfinite(value)
    return step[keep], value[keep]


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"
