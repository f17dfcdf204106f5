"""Train/validation pairs: which series of a logdir are the same metric on the two splits.

The conventions writers actually produce, tried in this order (``CONVENTIONS``):

========  ====================================  =================================================
name      training / validation                 who writes it
========  ====================================  =================================================
X/split   ``X/train`` + ``X/<val word>``        PyTorch tutorials (``Loss/train``, ``Loss/test``)
split/X   ``train/X`` + ``<val word>/X``        Hugging Face Trainer (``train/loss``, ``eval/loss``)
train_X   ``train_X`` + ``val_X``               Lightning's usual ``self.log`` names
X+val_X   ``X`` + ``val_X``                     Keras ``History`` names (``loss``, ``val_loss``)
keras     runs ``<r>/train`` + ``<r>/validation``  Keras's TensorBoard callback: the same tags
                                                (``epoch_loss``, ``epoch_accuracy``) in sibling runs
========  ====================================  =================================================

Validation words (``VAL_WORDS``), in order of preference: ``val, valid, validation, eval, test``;
the split words match case-insensitively (``Loss/Train``), tags are returned as written.

The rule for ambiguous cases: within one run a tag belongs to at most one pair. Conventions are
tried in the order above and a tag already paired is not paired again (so ``train_loss`` +
``val_loss`` wins over ``loss`` + ``val_loss``); where several validation tags fit one training
tag (``Loss/val`` and ``Loss/test``), the earliest validation word wins and the others stay
unpaired. Keras's sibling runs pair the tags both runs hold; their pair's ``run`` is the parent
run (``"."`` for the logdir itself).

Corrections from Python: ``add={"acc": ("acc_tr", "acc_te")}`` pairs two tags in every run
holding both (convention ``"user"``), replacing any guessed pair that used either tag there;
``drop=[...]`` removes pairs by metric or by tag. A pairs DataFrame edited by hand can also be
handed to ``diagnose(pairs=...)``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..source import LogdirLike
from .align import check_runs, scalar_tags

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("run", "metric", "train_run", "train_tag", "val_run", "val_tag", "convention")
VAL_WORDS = ("val", "valid", "validation", "eval", "test")
TRAIN_WORDS = ("train", "training")
CONVENTIONS = ("X/split", "split/X", "train_X", "X+val_X", "keras")
#: Sibling run names Keras's callback writes, training first.
KERAS_TRAIN_RUN = "train"
KERAS_VAL_RUNS = ("validation", "val", "eval")

Pair = dict


def _words(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in words)


_SUFFIX_TRAIN = re.compile(rf"^(?P<x>.+)/(?:{_words(TRAIN_WORDS)})$", re.IGNORECASE)
_PREFIX_TRAIN = re.compile(rf"^(?:{_words(TRAIN_WORDS)})/(?P<x>.+)$", re.IGNORECASE)
_UNDERSCORE_TRAIN = re.compile(r"^train_(?P<x>.+)$", re.IGNORECASE)


def _pair(run: str, metric: str, train_run: str, train_tag: str, val_run: str, val_tag: str,
          convention: str) -> Pair:
    return dict(zip(COLUMNS, (run, metric, train_run, train_tag, val_run, val_tag, convention)))


def _find_val(tags: set[str], lowered: dict[str, str], candidates: Iterable[str]) -> str | None:
    """The first of ``candidates`` (lower-cased tags) that the run has, as written there."""
    for name in candidates:
        if name in lowered and lowered[name] in tags:
            return lowered[name]
    return None


def run_pairs(run: str, tags: Iterable[str]) -> list[Pair]:
    """The pairs of one run's tags by the in-run conventions (module doc), in convention order."""
    free = set(tags)
    lowered = {tag.lower(): tag for tag in sorted(free, reverse=True)}  # first spelling wins
    found: list[Pair] = []

    def claim(metric: str, train: str, val: str | None, convention: str) -> None:
        if val is not None and train in free and val in free and train != val:
            free.discard(train)
            free.discard(val)
            found.append(_pair(run, metric, run, train, run, val, convention))

    for tag in sorted(free):
        if (m := _SUFFIX_TRAIN.match(tag)) is not None:
            x = m.group("x").lower()
            claim(m.group("x"), tag, _find_val(free, lowered, (f"{x}/{w}" for w in VAL_WORDS)), "X/split")
    for tag in sorted(free):
        if (m := _PREFIX_TRAIN.match(tag)) is not None:
            x = m.group("x").lower()
            claim(m.group("x"), tag, _find_val(free, lowered, (f"{w}/{x}" for w in VAL_WORDS)), "split/X")
    for tag in sorted(free):
        if (m := _UNDERSCORE_TRAIN.match(tag)) is not None:
            x = m.group("x").lower()
            claim(m.group("x"), tag, _find_val(free, lowered, (f"{w}_{x}" for w in VAL_WORDS)), "train_X")
    for tag in sorted(free):
        if "/" not in tag and not tag.lower().startswith(tuple(f"{w}_" for w in VAL_WORDS)):
            claim(tag, tag, _find_val(free, lowered, (f"{w}_{tag.lower()}" for w in VAL_WORDS)), "X+val_X")
    return found


def keras_pairs(source: LogdirLike, runs: list[str]) -> list[Pair]:
    """Pairs of Keras's sibling runs ``<r>/train`` + ``<r>/validation`` (or ``val``, ``eval``):
    one per tag both runs hold."""
    chosen = set(runs)
    found: list[Pair] = []
    for train_run in runs:
        parent, leaf = posixpath.split(train_run)
        if leaf.lower() != KERAS_TRAIN_RUN:
            continue
        siblings = [posixpath.join(parent, v) if parent else v for v in KERAS_VAL_RUNS]
        val_run = next((r for r in siblings if r in chosen), None)
        if val_run is None:
            continue
        common = set(scalar_tags(source, train_run)) & set(scalar_tags(source, val_run))
        found += [_pair(parent or ".", tag, train_run, tag, val_run, tag, "keras") for tag in sorted(common)]
    return found


def find_pairs(source: LogdirLike, runs: Iterable[str] | None = None, *,
               add: Mapping[str, tuple[str, str]] | None = None,
               drop: Iterable[str] = ()) -> list[Pair]:
    """Every pair of ``runs`` (default all) by the module doc's conventions and corrections."""
    chosen = check_runs(source, runs)
    user = _check_add(add)
    dropped = set(drop) if not isinstance(drop, str) else {drop}
    found: list[Pair] = []
    for run in chosen:
        tags = scalar_tags(source, run)
        held = set(tags)
        mine = [_pair(run, metric, run, tr, run, va, "user") for metric, (tr, va) in user.items()
                if tr in held and va in held]
        used = {tag for p in mine for tag in (p["train_tag"], p["val_tag"])}
        found += mine + run_pairs(run, [t for t in tags if t not in used])
    found += keras_pairs(source, chosen)
    return [p for p in found if not dropped & {p["metric"], p["train_tag"], p["val_tag"]}]


def _check_add(add: Mapping[str, tuple[str, str]] | None) -> dict[str, tuple[str, str]]:
    if add is None:
        return {}
    if not isinstance(add, Mapping):
        raise TypeError(f"add must map a metric name to (train_tag, val_tag), not {type(add).__name__}")
    out: dict[str, tuple[str, str]] = {}
    for metric, value in add.items():
        if (not isinstance(metric, str) or not isinstance(value, (tuple, list)) or len(value) != 2
                or not all(isinstance(t, str) for t in value) or value[0] == value[1]):
            raise ValueError(f"add[{metric!r}] must be two different tags (train_tag, val_tag), not {value!r}")
        out[metric] = (value[0], value[1])
    return out


def pairs_frame(source: LogdirLike, runs: Iterable[str] | None = None, *,
                add: Mapping[str, tuple[str, str]] | None = None,
                drop: Iterable[str] = ()) -> pd.DataFrame:
    """``find_pairs`` as a DataFrame with the columns ``COLUMNS``."""
    import pandas as pd

    found = find_pairs(source, runs, add=add, drop=drop)
    return pd.DataFrame(found, columns=list(COLUMNS)) if found else pd.DataFrame(
        {c: pd.Series(dtype=str) for c in COLUMNS})


def pairs_from_frame(frame: pd.DataFrame, source: LogdirLike) -> list[Pair]:
    """The rows of a (possibly hand-edited) pairs DataFrame, checked against the source."""
    missing = [c for c in COLUMNS if c not in frame.columns and c != "convention"]
    if missing:
        raise ValueError(f"a pairs DataFrame needs the columns {list(COLUMNS)}; missing: {missing}")
    known = set(source.runs())
    out: list[Pair] = []
    for row in frame.to_dict("records"):
        for side in ("train", "val"):
            run, tag = row[f"{side}_run"], row[f"{side}_tag"]
            if run not in known or tag not in scalar_tags(source, run):
                raise ValueError(f"pair {row['metric']!r}: run {run!r} has no scalar tag {tag!r}")
        out.append(_pair(row["run"], row["metric"], row["train_run"], row["train_tag"], row["val_run"],
                         row["val_tag"], row.get("convention", "user")))
    return out
