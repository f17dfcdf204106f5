"""The ledger of long fuzz runs (ledger.json): which inputs of which seed were read, on what code,
with how many failing inputs, so that the total of distinct inputs is counted, not remembered.

``python -m tests.fuzz.ledger`` prints each seed's distinct inputs (ranges merged: a range read
again on newer code counts once) and the failing inputs; ``python -m tests.fuzz.ledger add
SUMMARY.json --code COMMIT [--note TEXT]`` appends the run a ``summary.json`` (written by
``python -m tests.fuzz`` under ``--out``) describes. An input is named by seed and index; new
draws come after the earlier ones (checks.py), but a new seed set (seeds.VERSION) changes the
files an index draws, so the count is of distinct indices, each read on the code its run names.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

LEDGER = Path(__file__).with_name("ledger.json")


def load(path: Path = LEDGER) -> list[dict]:
    """The runs, each {seed, first, last (inclusive), failing, code, date, note}."""
    return json.loads(path.read_text())["runs"]


def distinct(runs: list[dict]) -> dict[int, int]:
    """Distinct inputs read, by seed: the size of the union of the runs' ranges."""
    out: dict[int, int] = {}
    for seed in sorted({r["seed"] for r in runs}):
        spans = sorted((r["first"], r["last"]) for r in runs if r["seed"] == seed)
        total, end = 0, -1
        for first, last in spans:
            if last > end:
                total += last - max(first, end + 1) + 1
                end = last
        out[seed] = total
    return out


def add(summary: Path, code: str, note: str = "", path: Path = LEDGER) -> dict:
    """Append the run of ``summary`` (a summary.json) to the ledger; return its entry."""
    s = json.loads(summary.read_text())
    entry = {"seed": s["seed"], "first": s["first"], "last": s["first"] + s["inputs"] - 1,
             "failing": s["failing_inputs"], "code": code, "date": time.strftime("%Y-%m-%d", time.gmtime()),
             "note": note}
    data = json.loads(path.read_text())
    data["runs"].append(entry)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return entry


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.ledger", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command")
    a = sub.add_parser("add", help="append a run's summary.json")
    a.add_argument("summary", type=Path)
    a.add_argument("--code", required=True, help="the commit the run read with")
    a.add_argument("--note", default="")
    args = p.parse_args(argv)
    if args.command == "add":
        print(add(args.summary, args.code, args.note))
        return
    runs = load()
    for seed, n in distinct(runs).items():
        failing = sum(r["failing"] for r in runs if r["seed"] == seed)
        print(f"seed {seed}: {n:,} distinct inputs in {sum(r['seed'] == seed for r in runs)} runs, "
              f"{failing} failing inputs recorded")


if __name__ == "__main__":
    main()
