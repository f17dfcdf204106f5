"""``diagnose``: every finding of a logdir as one table, the list the page will also show.

Columns ``run, metric, finding, step, evidence, advice, severity`` (``rules.KEYS``); one row per
finding, runs in the source's order, each run's learning-rate findings first, then its pairs',
then the update-ratio findings (``plugins/update_ratio.py``, issue 31). The rules, their
thresholds and their wording are all in ``rules.py``.

Which series are judged:

- **Losses**: the scalar tags whose name matches ``Settings.loss_pattern`` (``loss`` as a word:
  ``loss``, ``Loss/train``, ``train_loss_epoch``, ``epoch_loss``), or the tags ``loss_tags``
  names; validation losses are left out: the validation side of a pair, or a name matching
  ``Settings.val_pattern`` that is no pair's training side.
- **Learning rates**, quoted in the evidence: tags matching ``Settings.lr_pattern`` (``lr``,
  ``learning_rate``, Lightning's ``lr-SGD``, Keras's ``epoch_learning_rate``), or ``lr_tags``.
  The value quoted is the last logged at or before the finding's step.
- **Pairs**: ``pairs.find_pairs`` unless ``pairs`` is given (a pairs DataFrame, e.g. edited from
  ``Logdir.pairs()``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..source import LogdirLike
from ..update_ratio import update_ratio_findings
from .align import check_runs, scalar_tags, series
from .curves import fmt, value_at
from .pairs import Pair, find_pairs, pairs_from_frame
from .rules import KEYS, Settings, is_range_test, lr_finding, pair_finding

if TYPE_CHECKING:
    import pandas as pd


def diagnose(source: LogdirLike, runs: Iterable[str] | None = None, *,
             pairs: pd.DataFrame | None = None,
             loss_tags: Iterable[str] | None = None,
             lr_tags: Iterable[str] | None = None,
             update_ratio: Mapping[str, Any] | None = None,
             **settings: Any) -> pd.DataFrame:
    """The findings of ``runs`` (default: all) as a DataFrame (module doc). ``settings`` change
    ``rules.Settings`` (unknown names are a TypeError); ``update_ratio`` holds the keyword
    arguments of ``update_ratio_findings`` (``window``, ``low``, ``high``, ...)."""
    import pandas as pd

    found = findings(source, runs, pairs=pairs, loss_tags=loss_tags, lr_tags=lr_tags,
                     update_ratio=update_ratio, **settings)
    if not found:
        return pd.DataFrame({k: pd.Series(dtype="int64" if k == "step" else str) for k in KEYS})
    return pd.DataFrame(found, columns=list(KEYS))


def findings(source: LogdirLike, runs: Iterable[str] | None = None, *,
             pairs: pd.DataFrame | None = None,
             loss_tags: Iterable[str] | None = None,
             lr_tags: Iterable[str] | None = None,
             update_ratio: Mapping[str, Any] | None = None,
             **settings: Any) -> list[dict]:
    """``diagnose`` as a list of dicts with the keys ``rules.KEYS``."""
    s = Settings.of(**settings)
    chosen = check_runs(source, runs)
    pair_list = find_pairs(source, chosen) if pairs is None else [
        p for p in pairs_from_frame(pairs, source) if {p["run"], p["train_run"], p["val_run"]} & set(chosen)]
    by_run: dict[str, list[dict]] = {run: [] for run in chosen}
    for run in chosen:
        by_run[run] += _lr_findings(source, run, pair_list, s, _names(loss_tags), _names(lr_tags))
    for pair in pair_list:
        found = _pair_finding(source, pair, s)
        if found is not None:
            by_run.setdefault(found["run"], []).append(found)
    for found in update_ratio_findings(source, chosen, **dict(update_ratio or {})):
        by_run.setdefault(found["run"], []).append(found)
    return [f for run in by_run for f in by_run[run]]


def _names(tags: Iterable[str] | None) -> list[str] | None:
    if tags is None:
        return None
    return [tags] if isinstance(tags, str) else list(tags)


def loss_and_lr_tags(source: LogdirLike, run: str, pair_list: list[Pair], s: Settings,
                     loss_tags: list[str] | None = None, lr_tags: list[str] | None = None
                     ) -> tuple[list[str], list[str]]:
    """The run's training-loss tags and learning-rate tags (module doc)."""
    tags = scalar_tags(source, run)
    val_side = {p["val_tag"] for p in pair_list if p["val_run"] == run}
    train_side = {p["train_tag"] for p in pair_list if p["train_run"] == run}
    if loss_tags is not None:
        losses = [t for t in loss_tags if t in tags]
    else:
        losses = [t for t in tags if s.matches(s.loss_pattern, t) and t not in val_side
                  and (t in train_side or not s.matches(s.val_pattern, t))]
    if lr_tags is not None:
        rates = [t for t in lr_tags if t in tags]
    else:
        rates = [t for t in tags if s.matches(s.lr_pattern, t)]
    return losses, rates


def _lr_findings(source: LogdirLike, run: str, pair_list: list[Pair], s: Settings,
                 loss_tags: list[str] | None, lr_tags: list[str] | None) -> list[dict]:
    losses, rates = loss_and_lr_tags(source, run, pair_list, s, loss_tags, lr_tags)
    lr_series = {tag: series(source, run, tag) for tag in rates}
    if any(is_range_test(value, s) for _, _, value in lr_series.values()):
        return []
    out = []
    for tag in losses:
        step, _, value = series(source, run, tag)
        found = lr_finding(run, tag, step, value, s)
        if found is not None:
            for lr_tag, (lr_step, _, lr_value) in list(lr_series.items())[:1]:
                lr_at = value_at(lr_step, lr_value, found["step"])
                found["evidence"] += f" (logged learning rate {lr_tag}: {fmt(lr_at)} at that step)"
            out.append(found)
    return out


def _pair_finding(source: LogdirLike, pair: Pair, s: Settings) -> dict | None:
    t_step, _, t_value = series(source, pair["train_run"], pair["train_tag"])
    v_step, _, v_value = series(source, pair["val_run"], pair["val_tag"])
    if pair["train_run"] == pair["val_run"]:
        names = (pair["train_tag"], pair["val_tag"])
    else:
        names = (f"{pair['train_tag']} ({pair['train_run']})", f"{pair['val_tag']} ({pair['val_run']})")
    return pair_finding(pair["run"], pair["metric"], (t_step, t_value), (v_step, v_value), s, names)
