"""Derived series: an expression over a run's scalar tags, as a series of its own.

``derive(source, "{loss/val} - {loss/train}")`` evaluates the expression (``expression.py``: the
language, its bounds and why it is never passed to ``eval``) in every run that holds all the
tags it names, at the steps where all of them have a point (``align.py``: one point per step, the
last; no interpolation). Runs lacking a tag are left out, not errors; a tag that *no* run has is
an error naming the closest existing tags, since it is almost always a typo.

Non-finite points (a division by zero, the log of a negative loss) are kept as inf/NaN: the value
is what the expression gives there, and a card counts them rather than the reader raising.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...runs.series import ScalarSeries
from ..source import LogdirLike
from .align import aligned, check_runs, closest, runs_holding, scalar_tags
from .expression import Expression, parse

if TYPE_CHECKING:
    import pandas as pd


class UnknownTagError(KeyError):
    """A tag named by an expression that no chosen run has as a scalar tag."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


def compile_expression(source: LogdirLike, text: str | Expression, runs: list[str]) -> Expression:
    """``text`` parsed, with every tag it names held by at least one of ``runs``."""
    expr = parse(text) if isinstance(text, str) else text
    if not expr.tags:
        raise ValueError(f"the expression {expr.text!r} names no tag: tags go in braces, e.g. {{loss}}")
    known = {tag for run in runs for tag in scalar_tags(source, run)}
    for tag in expr.tags:
        if tag not in known:
            raise UnknownTagError(f"no run has a scalar tag {tag!r}{closest(tag, known)}")
    return expr


def derived_series(source: LogdirLike, text: str | Expression,
                   runs: list[str] | None = None) -> dict[str, ScalarSeries]:
    """``{run: series}`` of the expression in every run (of ``runs``) holding all its tags."""
    chosen = check_runs(source, runs)
    expr = compile_expression(source, text, chosen)
    out: dict[str, ScalarSeries] = {}
    for run in runs_holding(source, expr.tags, chosen):
        steps, wall_time, values = aligned(source, run, expr.tags)
        out[run] = ScalarSeries(steps, wall_time, expr.evaluate(values))
    return out


def derive(source: LogdirLike, text: str, name: str | None = None,
           runs: list[str] | None = None) -> pd.DataFrame:
    """The derived series as a long DataFrame ``run, step, value, wall_time`` (runs in order);
    ``df.attrs`` holds its ``name`` (default: the expression text) and ``expression``."""
    import pandas as pd

    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty str, not {name!r}")
    found = derived_series(source, text, runs)
    frames = [pd.DataFrame({"run": run, "step": s.step, "value": s.value, "wall_time": s.wall_time})
              for run, s in found.items()]
    if frames:
        frame = pd.concat(frames, ignore_index=True)
    else:
        frame = pd.DataFrame({"run": pd.Series(dtype=str), "step": pd.Series(dtype=np.int64),
                              "value": pd.Series(dtype=float), "wall_time": pd.Series(dtype=float)})
    frame.attrs["name"] = name if name is not None else text
    frame.attrs["expression"] = text
    return frame
