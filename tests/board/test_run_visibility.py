"""Switching runs on and off in the run selector (js/src/runs.js) against a plain model of which
runs the user switched off, with the kernel's reading of the same traits (``shown_runs``): the
three agree after every click, and what the clicks write stays as small as the clicks, however
many runs they switch."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tbnb.board.dashboards.common import shown_runs

RUNS_JS = Path(__file__).resolve().parents[2] / "js" / "src" / "runs.js"

# Applies each action with runs.js as the selector does, and to a model: the set of runs off.
SCRIPT = """
const m = await import(process.argv[1]);
const {runs, actions} = JSON.parse(await new Promise((ok) => {
  let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", () => ok(s));
}));
let state = {hidden_runs: [], hidden_patterns: []};
const off = new Set();
const out = [];
for (const a of actions) {
  if (a.kind === "run" || a.kind === "group") {
    state = m.setRunsVisible(state, a.runs, a.visible);
    for (const r of a.runs) a.visible ? off.delete(r) : off.add(r);
  } else {
    const filter = a.filter;
    const patterns = m.filterTextToPatterns(filter);
    const compiled = m.compileRunPatterns(patterns);
    const listed = runs.filter((r) => m.runMatches(r, compiled));
    state = m.setListedVisible(state, listed, m.patternsToFilterText(patterns), a.visible);
    for (const r of listed) a.visible ? off.delete(r) : off.add(r);
  }
  out.push({state, page: m.shownRuns(runs, [".*"], state.hidden_runs, state.hidden_patterns),
            model: runs.filter((r) => !off.has(r))});
}
console.log(JSON.stringify(out));
"""

FILTERS = ["", "lr_0\\.1.*", "sweep/.*", ".*seed_[13]", "(?P<ds>mnist)/.*", "a|b", "sweep/lr_0.01/seed_2",
           ".*(x)"]


def _runs(rng: random.Random, n: int) -> list[str]:
    names = {f"sweep/lr_{lr}/seed_{s}" for lr in ("0.1", "0.01", "0.001") for s in range(4)}
    names |= {"mnist/a", "mnist/b", "a", "b", "lr_0.1", "lr_0.1x", "x(y)", "q[1]|*+?", "ünï/cødé", "a$b"}
    names |= {f"trial_{k:05d}" for k in range(n)}
    return sorted(names)


def _actions(rng: random.Random, runs: list[str], count: int) -> list[dict]:
    actions = []
    for _ in range(count):
        kind = rng.choice(["run", "run", "all", "all", "group"])
        visible = rng.random() < 0.5
        if kind == "run":
            actions.append({"kind": "run", "runs": [rng.choice(runs)], "visible": visible})
        elif kind == "group":
            actions.append({"kind": "group", "runs": rng.sample(runs, rng.randrange(1, 5)), "visible": visible})
        else:
            actions.append({"kind": "all", "filter": rng.choice(FILTERS), "visible": visible})
    return actions


def _play(runs: list[str], actions: list[dict]) -> list[dict]:
    out = subprocess.run(["node", "--input-type=module", "-e", SCRIPT, RUNS_JS.as_uri()],
                         input=json.dumps({"runs": runs, "actions": actions}), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's run selection")
@pytest.mark.parametrize("seed", range(8))
def test_page_kernel_and_model_agree_after_every_click(seed: int) -> None:
    rng = random.Random(seed)
    runs = _runs(rng, 40)
    actions = _actions(rng, runs, 40)
    for k, step in enumerate(_play(runs, actions)):
        state = step["state"]
        kernel = shown_runs(runs, [".*"], state["hidden_runs"], state["hidden_patterns"])
        assert step["page"] == step["model"], f"seed {seed}, action {k}: {actions[k]}"
        assert kernel == step["model"], f"seed {seed}, action {k}: {actions[k]}, {state}"


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's run selection")
def test_what_the_all_box_writes_does_not_grow_with_the_runs_it_switches() -> None:
    sizes = []
    for n in (100, 5000):
        runs = _runs(random.Random(0), n)
        actions = [{"kind": "all", "filter": "", "visible": False},
                   {"kind": "run", "runs": ["trial_00007"], "visible": True},
                   {"kind": "all", "filter": "trial_.*", "visible": True},
                   {"kind": "all", "filter": "trial_000.*", "visible": False},
                   {"kind": "run", "runs": ["trial_00003"], "visible": True}]
        steps = _play(runs, actions)
        for step in steps:
            assert step["page"] == step["model"]
        assert len(steps[0]["page"]) == 0 and steps[0]["state"] == {"hidden_runs": [], "hidden_patterns": [".*"]}
        assert "trial_00003" in steps[-1]["page"] and "trial_00004" not in steps[-1]["page"]
        sizes.append([len(json.dumps(step["state"])) for step in steps])
    assert sizes[0] == sizes[1], sizes  # 100 or 5,000 runs: the same messages
    assert max(sizes[1]) < 200, sizes
