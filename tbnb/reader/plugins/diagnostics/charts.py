"""What each finding's chart draws: the data behind a sentence, for the Board's diagnostics tab and
its static cards alike (pure numpy over ``source.LogdirLike``; no widget code).

- ``items``: the findings of ``diagnose`` grouped by the chart that proves them (a pair's curves,
  a loss with its learning rate, a run's update ratios), plus each learning-rate range test's
  suggestion (``lr_find``), and the runs with nothing found.
- ``pair_chart``: the training and validation curves of one pair and the best validation step
  (where early stopping would stop: the lowest of a lower-is-better metric, the highest else).
- ``lr_chart``: a training loss and the run's first learning-rate tag (``diagnose``'s name rules);
  for a range test, the loss against the rate with the steepest-descent suggestion.
- ``ratio_chart``: every ``update_ratio/*`` series of a run *ordered as in the model* (the order
  of each tag's first point in time: ``tbnb.watch`` and ``tbnb.keras.Watch`` write a step's
  tensors in the model's order; ties by name, numbers read as numbers), each with the median of
  its recent points (``update_ratio.WINDOW``) and whether it lies outside the band LOW..HIGH;
  with more than ``MAX_LINES`` tensors, a heatmap of tensors x steps: the steps cut into at most
  ``columns`` equal spans, each cell the mean of log10 of the ratio (a geometric mean), NaN where
  a tensor has no point.

Series are one point per step (``align.py``: the last).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..source import LogdirLike
from ..update_ratio import ALL_TAG, HIGH, LOW, WINDOW, update_ratio_tags
from .align import aligned, check_runs, scalar_tags, series
from .curves import fmt
from .diagnose import findings as all_findings
from .diagnose import loss_and_lr_tags
from .lr_find import lr_range_test
from .pairs import Pair, find_pairs
from .rules import Settings, finding, is_range_test

#: More tensors than this: the ratio chart is a heatmap (lines would be unreadable).
MAX_LINES = 24
PAIR_FINDINGS = ("overfitting", "no_gap")
RATIO_FINDINGS = ("update_ratio_low", "update_ratio_high")

Chart = dict[str, Any]


def _curve(step: np.ndarray, value: np.ndarray) -> dict[str, np.ndarray]:
    return {"step": np.asarray(step, dtype=np.int64), "value": np.asarray(value, dtype=np.float64)}


def _natural(name: str) -> list[Any]:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name) if p]


def pair_chart(source: LogdirLike, pair: Pair) -> Chart:
    """The pair's two curves and its best validation step (None for a metric whose name does not
    say which way is better, or no finite validation point)."""
    t_step, _, t_value = series(source, pair["train_run"], pair["train_tag"])
    v_step, _, v_value = series(source, pair["val_run"], pair["val_tag"])
    sign = Settings().direction(pair["metric"])
    finite = np.isfinite(v_value)
    best_step = best_value = None
    if sign and finite.any():
        k = int(np.argmin(np.where(finite, sign * v_value, np.inf)))
        best_step, best_value = int(v_step[k]), float(v_value[k])
    return {"kind": "pair", **{k: pair[k] for k in ("run", "metric", "train_run", "train_tag", "val_run",
                                                        "val_tag")},
            "train": _curve(t_step, t_value), "val": _curve(v_step, v_value),
            "lower_better": sign > 0, "best_step": best_step, "best_value": best_value}


def lr_chart(source: LogdirLike, run: str, loss_tag: str, lr_tag: str | None) -> Chart:
    """A loss and its learning rate (None: the run logs none), one point per step each."""
    step, _, value = series(source, run, loss_tag)
    out: Chart = {"kind": "lr", "run": run, "loss_tag": loss_tag, "lr_tag": lr_tag, "loss": _curve(step, value),
                  "lr": None}
    if lr_tag is not None:
        lr_step, _, lr_value = series(source, run, lr_tag)
        out["lr"] = _curve(lr_step, lr_value)
    return out


def lr_find_chart(source: LogdirLike, run: str, loss_tag: str, lr_tag: str) -> Chart:
    """A range test: loss against rate (at the steps both have, up to where it diverged), the
    smoothed loss and the suggestion (``lr_find``); the raw pairs beyond the cut are kept too."""
    test = lr_range_test(source, run, loss_tag, lr_tag)
    _, _, values = aligned(source, run, [loss_tag, lr_tag])
    return {"kind": "lr_find", "run": run, "loss_tag": loss_tag, "lr_tag": lr_tag,
            "all_lr": values[lr_tag], "all_loss": values[loss_tag], "step": test.step, "lr": test.lr,
            "loss": test.loss, "smoothed": test.smoothed, "suggestion": test.suggestion,
            "suggestion_step": test.suggestion_step}


def loss_vs_lr_chart(source: LogdirLike, run: str, loss_tag: str, lr_tag: str) -> Chart:
    """The loss against its learning rate at the steps both have: a range test's chart (with the
    suggestion) when the rate grows as one does, else the plain pairs (no suggestion)."""
    _, _, lr = series(source, run, lr_tag)
    if is_range_test(lr, Settings()):
        try:
            return lr_find_chart(source, run, loss_tag, lr_tag)
        except ValueError:
            pass
    step, _, values = aligned(source, run, [loss_tag, lr_tag])
    return {"kind": "lr_find", "run": run, "loss_tag": loss_tag, "lr_tag": lr_tag, "all_lr": values[lr_tag],
            "all_loss": values[loss_tag], "step": step, "lr": values[lr_tag], "loss": values[loss_tag],
            "smoothed": values[loss_tag], "suggestion": None, "suggestion_step": None}


def model_order(source: LogdirLike, run: str, tags: list[str]) -> list[str]:
    """``tags`` ordered as the model's tensors (module doc), ``update_ratio/all`` first."""
    first: dict[str, float] = {}
    for tag in tags:
        s = source.scalars(run, tag)
        first[tag] = float(np.min(s.wall_time)) if len(s) else np.inf
    return sorted(tags, key=lambda t: (t != ALL_TAG, first[t], _natural(t)))


def ratio_chart(source: LogdirLike, run: str, window: int = WINDOW, low: float = LOW, high: float = HIGH,
                columns: int = 400) -> Chart:
    """A run's update ratios (module doc): ``lines`` (tag, step, value, median, outside) in model
    order, and with more than MAX_LINES tensors ``heatmap`` {tags, x (span starts), z}."""
    tags = model_order(source, run, update_ratio_tags(source, run))
    lines = []
    for tag in tags:
        step, _, value = series(source, run, tag)
        recent = value[np.isfinite(value)][-window:]
        median = float(np.median(recent)) if len(recent) else None
        lines.append({"tag": tag, **_curve(step, value), "median": median,
                      "outside": median is not None and not low <= median <= high})
    out: Chart = {"kind": "update_ratio", "run": run, "band": [low, high], "guide": 1e-3, "window": window,
                  "lines": lines, "heatmap": None}
    tensors = [line for line in lines if line["tag"] != ALL_TAG]
    if len(tensors) > MAX_LINES:
        out["heatmap"] = heatmap(tensors, columns)
    return out


def heatmap(lines: list[dict], columns: int) -> dict[str, Any]:
    """Tensors x step spans: the mean of log10(ratio) of each tensor's points in each span."""
    steps = [line["step"] for line in lines if len(line["step"])]
    if not steps:
        return {"tags": [line["tag"] for line in lines], "x": np.empty(0), "z": np.empty((len(lines), 0))}
    lo = min(int(s[0]) for s in steps)
    hi = max(int(s[-1]) for s in steps)
    n = max(1, min(columns, len(np.unique(np.concatenate(steps)))))
    width = (hi - lo + 1) / n
    z = np.full((len(lines), n), np.nan)
    for i, line in enumerate(lines):
        value = line["value"]
        keep = np.isfinite(value) & (value > 0)
        if not keep.any():
            continue
        col = np.minimum(((line["step"][keep] - lo) / width).astype(np.int64), n - 1)
        total = np.bincount(col, np.log10(value[keep]), minlength=n)
        count = np.bincount(col, minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            z[i] = np.where(count > 0, total / count, np.nan)
    return {"tags": [line["tag"] for line in lines], "x": lo + width * np.arange(n), "z": z}


def chart_of(source: LogdirLike, spec: dict[str, Any], columns: int = 400) -> Chart:
    """The chart a spec of ``items`` names (its ``kind`` and the fields it lists); ValueError
    (KeyError for a run the source lacks) for one that names what is not there. ``columns``: of
    a ratio heatmap."""
    kind = spec.get("kind")
    if kind == "pair":
        pair = {k: spec[k] for k in ("run", "metric", "train_run", "train_tag", "val_run", "val_tag")}
        for side in ("train", "val"):
            if pair[f"{side}_tag"] not in scalar_tags(source, pair[f"{side}_run"]):
                raise ValueError(f"run {pair[f'{side}_run']!r} has no scalar tag {pair[f'{side}_tag']!r}")
        return pair_chart(source, {**pair, "convention": ""})  # type: ignore[arg-type]
    if kind in ("lr", "lr_find"):
        held = scalar_tags(source, spec["run"])
        for tag in (spec["loss_tag"], spec.get("lr_tag")):
            if tag is not None and tag not in held:
                raise ValueError(f"run {spec['run']!r} has no scalar tag {tag!r}")
        if kind == "lr_find":
            return lr_find_chart(source, spec["run"], spec["loss_tag"], spec["lr_tag"])
        return lr_chart(source, spec["run"], spec["loss_tag"], spec.get("lr_tag"))
    if kind == "update_ratio":
        if not update_ratio_tags(source, spec["run"]):
            raise ValueError(f"run {spec['run']!r} has no update_ratio/* scalar tags")
        return ratio_chart(source, spec["run"], columns=columns)
    raise ValueError(f"unknown chart kind {kind!r}; kinds: pair, lr, lr_find, update_ratio")


def items(source: LogdirLike, runs: list[str] | None = None) -> tuple[list[dict], list[str]]:
    """(the findings grouped by chart: ``[{"chart": spec, "findings": [...]}]`` in ``diagnose``'s
    order, range tests after each run's findings; the runs with nothing found)."""
    chosen = check_runs(source, runs)
    pair_list = find_pairs(source, chosen)
    found = all_findings(source, chosen, pairs=None)
    grouped: dict[str, dict] = {}
    for f in found:
        spec = _spec_of(source, f, pair_list)
        key = repr(sorted(spec.items()))
        grouped.setdefault(key, {"chart": spec, "findings": []})["findings"].append(f)
    for run in chosen:
        test = _range_test_item(source, run)
        if test is not None:
            grouped[repr(sorted(test["chart"].items()))] = test
    listed = list(grouped.values())
    order = {run: i for i, run in enumerate(chosen)}
    listed.sort(key=lambda item: order.get(item["chart"]["run"], len(order)))
    with_items = {item["chart"]["run"] for item in listed} | {f["run"] for f in found}
    return listed, [run for run in chosen if run not in with_items]


def _spec_of(source: LogdirLike, f: dict, pair_list: list[Pair]) -> dict[str, Any]:
    run = f["run"]
    if f["finding"] in RATIO_FINDINGS:
        return {"kind": "update_ratio", "run": run}
    if f["finding"] in PAIR_FINDINGS:
        pair = next((p for p in pair_list if p["run"] == run and p["metric"] == f["metric"]), None)
        if pair is not None:
            return {"kind": "pair", **{k: pair[k] for k in ("run", "metric", "train_run", "train_tag", "val_run",
                                                           "val_tag")}}
    _, rates = loss_and_lr_tags(source, run, pair_list, Settings())
    return {"kind": "lr", "run": run, "loss_tag": f["metric"], "lr_tag": rates[0] if rates else None}


def _range_test_item(source: LogdirLike, run: str) -> dict | None:
    losses, rates = loss_and_lr_tags(source, run, [], Settings())
    s = Settings()
    for lr_tag in rates:
        _, _, lr = series(source, run, lr_tag)
        if losses and is_range_test(lr, s):
            try:
                test = lr_range_test(source, run, losses[0], lr_tag)
            except ValueError:
                return None
            if test.suggestion is None:
                evidence = f"{losses[0]} against {lr_tag}: too few points before the loss diverged to suggest a rate"
                step = int(test.step[-1]) if len(test.step) else 0
            else:
                evidence = (f"{losses[0]} against {lr_tag} (a learning-rate range test): the smoothed loss falls "
                            f"fastest at {lr_tag} = {fmt(test.suggestion)} (step {test.suggestion_step})")
                step = int(test.suggestion_step or 0)
            advice = ("Start training near the suggested rate (the steepest descent of the smoothed loss, as "
                      "fastai's and Lightning's lr_find suggest), below where the loss turns up.")
            return {"chart": {"kind": "lr_find", "run": run, "loss_tag": losses[0], "lr_tag": lr_tag},
                    "findings": [finding(run, losses[0], "lr_range_test", step, evidence, advice, "info")]}
    return None
