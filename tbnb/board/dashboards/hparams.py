"""The hparams dashboard: the experiment's trials as one table (protocol.md, ``hparams``).

The reply carries every trial, whatever the ``runs`` trait selects: the page draws the table,
the parallel coordinates and the scatter-plot matrix from it and shows the selected trials
highlighted, so that selecting rows (which sets ``runs``) never hides the other rows.

Each trial names its run and the run above it (``parent``) when the logdir has that run: torch's
``add_hparams`` writes a trial into a timestamped sub-run while the training curves stay in the
run above, so selecting a trial selects both (see ``Traits.select_trials``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import traitlets

from ...reader.plugins.hparams_table import HParamsTable, hparams_table, parent_run
from ..codec import encode
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir

#: The ``hparams_join`` trait's values: "" (each trial's own runs) or "parent" (also the scalars
#: of the run above the trial's, pytorch issue 32651).
JOINS = ("", "parent")


def trial_patterns(runs: Sequence[str], known: Sequence[str], parents: bool = True) -> list[str]:
    """Regexes for the ``runs`` trait matching exactly ``runs`` (and, with ``parents``, the run
    above each one when ``known`` has it). Escaped so that Python's ``re`` and JS both read them."""
    have = set(known)
    chosen: list[str] = []
    for run in runs:
        up = parent_run(run)
        for name in (run, up) if parents and up in have else (run,):
            if name not in chosen:
                chosen.append(name)
    return [re.sub(r"([\\^$.*+?()\[\]{}|])", r"\\\1", name) for name in chosen]


class Traits(traitlets.HasTraits):
    """The hparams dashboard's settings and the Python side of selecting trials."""

    hparams_join = traitlets.Enum(JOINS, default_value="").tag(sync=True)

    def select_trials(self, runs: Sequence[str], parents: bool = True) -> None:
        """Show only these trials' runs on every dashboard (and their parent runs, where the
        training curves of torch's sweeps live); what selecting table rows on the page does."""
        known = self.logdir.runs()  # type: ignore[attr-defined]
        unknown = [r for r in runs if r not in known]
        if unknown:
            raise ValueError(f"unknown run(s) {unknown}")
        self.runs = trial_patterns(runs, known, parents) or [".*"]  # type: ignore[attr-defined]


def columns(table: HParamsTable) -> list[dict[str, Any]]:
    """The table's columns as the reply describes them: fixed, then hparams, then metrics."""
    out: list[dict[str, Any]] = [
        {"key": "run", "kind": "run", "type": "string"},
        {"key": "status", "kind": "status", "type": "string"},
        {"key": "start_time", "kind": "start_time", "type": "float64"},
    ]
    for h in table.hparam_columns:
        d = h.definition
        out.append({"key": h.key, "kind": "hparam", "type": d.type, "name": d.name,
                    "display_name": d.display_name, "description": d.description,
                    "domain": list(d.domain_values) if d.domain_values is not None else None,
                    "interval": list(d.domain_interval) if d.domain_interval is not None else None})
    for m in table.metric_columns:
        out.append({"key": m.key, "kind": "metric", "type": "float64", "tag": m.tag, "group": m.group,
                    "source": m.source, "display_name": m.display_name})
    return out


def hparams_reply(source: MultiLogdir, join: str) -> dict[str, Any]:
    """Every trial with its hparams and metrics' last values (NaN travels as null)."""
    table = hparams_table(source, join or None)
    cols = columns(table)
    known = set(source.runs())
    trials = []
    for row, trial in zip(table.rows(), table.trials):
        up = parent_run(trial.session.run)
        trials.append({"run": trial.session.run, "parent": up if up in known else None,
                       "values": [row[c["key"]] for c in cols]})
    e = table.experiment
    return {"experiment": {"name": e.name, "description": e.description, "user": e.user,
                           "time_created": e.time_created},
            "columns": cols, "trials": trials, "problems": [str(p) for p in table.problems]}


def answer(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``hparams``: the whole table, joined as asked."""
    req = Fields(content)
    request_id = req.integer("id")
    join = req.choice("join", JOINS, default="")
    try:
        body = hparams_reply(source, join)
    except (KeyError, ValueError) as err:
        raise RequestError(f"hparams: {err}") from None
    return encode({"type": "hparams", "id": request_id, "join": join, **body})


REQUESTS: dict[str, Handler] = {"hparams": answer}
PUSHED: dict[str, PushKey] = {}
