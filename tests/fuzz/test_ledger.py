"""The fuzz ledger counts distinct inputs (overlapping and repeated ranges once) and every run
in it is well formed, a failing one explained."""

from __future__ import annotations

import json
from pathlib import Path

from . import ledger


def test_distinct_counts_each_index_once() -> None:
    runs = [{"seed": 16, "first": 0, "last": 99}, {"seed": 16, "first": 50, "last": 149},
            {"seed": 16, "first": 60, "last": 70}, {"seed": 16, "first": 200, "last": 209},
            {"seed": 3, "first": 0, "last": 9}]
    assert ledger.distinct(runs) == {3: 10, 16: 160}


def test_add_appends_a_summary(tmp_path: Path) -> None:
    book = tmp_path / "ledger.json"
    book.write_text(json.dumps({"runs": []}))
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"seed": 16, "first": 1000, "inputs": 500, "failing_inputs": 0}))
    entry = ledger.add(summary, "abc1234", path=book)
    assert (entry["first"], entry["last"], entry["failing"], entry["code"]) == (1000, 1499, 0, "abc1234")
    assert ledger.load(book) == [entry]


def test_the_committed_ledger_is_well_formed() -> None:
    runs = ledger.load()
    for run in runs:
        assert 0 <= run["first"] <= run["last"], run
        assert run["failing"] == 0 or run["note"], f"a run with failing inputs says why: {run}"
    assert sum(ledger.distinct(runs).values()) <= sum(r["last"] - r["first"] + 1 for r in runs)
