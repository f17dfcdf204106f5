import test from "node:test";
import assert from "node:assert/strict";
import {
  compileRunPatterns,
  filterTextToPatterns,
  isValidRunFilter,
  patternsToFilterText,
  runMatches,
  setListedVisible,
  setRunsVisible,
  shownRuns,
} from "../../js/src/runs.js";

const RUNS = ["mnist/lr_0.1", "mnist/lr_0.01", "cifar/lr_0.1", ".", "mnist/lr_0.1/eval"];

test("a run is shown when it fully matches one pattern", () => {
  assert.deepEqual(shownRuns(RUNS, ["mnist/.*"], []), ["mnist/lr_0.1", "mnist/lr_0.01", "mnist/lr_0.1/eval"]);
  assert.deepEqual(shownRuns(RUNS, ["lr_0.1"], []), [], "no partial matches");
  assert.deepEqual(shownRuns(RUNS, ["mnist/lr_0\\.1"], []), ["mnist/lr_0.1"]);
  assert.deepEqual(shownRuns(RUNS, ["cifar/.*", "\\."], []), ["cifar/lr_0.1", "."]);
  assert.deepEqual(shownRuns(RUNS, ["a|mnist/lr_0.01"], []), ["mnist/lr_0.01"], "alternation stays inside the anchors");
});

test("[.*], empty lists and invalid patterns show everything", () => {
  assert.deepEqual(shownRuns(RUNS, [".*"], []), RUNS);
  assert.deepEqual(shownRuns(RUNS, [], []), RUNS);
  assert.deepEqual(shownRuns(RUNS, undefined, undefined), RUNS);
  assert.deepEqual(shownRuns(RUNS, ["mnist/(lr"], []), RUNS);
  assert.equal(compileRunPatterns(["(", ".*"]), null);
  assert.equal(compileRunPatterns(["(", "cifar/.*"]).length, 1, "the valid pattern still filters");
});

test("hidden runs are removed after matching", () => {
  assert.deepEqual(shownRuns(RUNS, ["mnist/.*"], ["mnist/lr_0.01"]), ["mnist/lr_0.1", "mnist/lr_0.1/eval"]);
  assert.deepEqual(shownRuns(RUNS, [".*"], RUNS), []);
});

test("Python named groups are accepted", () => {
  const compiled = compileRunPatterns(["(?P<ds>mnist)/lr_(?P=ds)?0\\.1"]);
  assert.ok(runMatches("mnist/lr_0.1", compiled));
  assert.ok(!runMatches("cifar/lr_0.1", compiled));
});

test("filter box <-> runs trait", () => {
  assert.deepEqual(filterTextToPatterns(""), [".*"]);
  assert.deepEqual(filterTextToPatterns("  "), [".*"]);
  assert.deepEqual(filterTextToPatterns("mnist/.*"), ["mnist/.*"]);
  assert.equal(patternsToFilterText([".*"]), "");
  assert.equal(patternsToFilterText([]), "");
  assert.equal(patternsToFilterText(["a.*"]), "a.*");
  const joined = patternsToFilterText(["a", "b.*"]);
  assert.deepEqual(shownRuns(["a", "bc", "c"], [joined], []), ["a", "bc"]);
  assert.equal(isValidRunFilter("a("), false);
  assert.equal(isValidRunFilter("(?<ds>mnist)/.*"), false, "JS-only named group: the kernel's re would refuse it");
  assert.equal(isValidRunFilter("(?P<ds>mnist)/.*"), true);
  assert.equal(isValidRunFilter("(?<=a)b"), true);
  assert.equal(isValidRunFilter(""), true);
});

test("a run's box writes its name; ticking a run a pattern hides narrows the pattern", () => {
  const none = { hidden_runs: [], hidden_patterns: [] };
  assert.deepEqual(setRunsVisible(none, ["a"], false), { hidden_runs: ["a"], hidden_patterns: [] });
  assert.deepEqual(setRunsVisible({ hidden_runs: ["a", "b"], hidden_patterns: [] }, ["a"], true).hidden_runs, ["b"]);
  const s = setRunsVisible({ hidden_runs: [], hidden_patterns: ["mnist/.*"] }, ["mnist/lr_0.1"], true);
  assert.deepEqual(shownRuns(RUNS, [".*"], s.hidden_runs, s.hidden_patterns), ["mnist/lr_0.1", "cifar/lr_0.1", "."]);
});

test("the all box writes the filter, not the names it lists", () => {
  const none = { hidden_runs: ["x"], hidden_patterns: [] };
  const listed = RUNS.filter((r) => r.startsWith("mnist/"));
  const off = setListedVisible(none, listed, "mnist/.*", false);
  assert.deepEqual(off, { hidden_runs: ["x"], hidden_patterns: ["mnist/.*"] });
  assert.deepEqual(setListedVisible(off, listed, "mnist/.*", true).hidden_patterns, []);
  assert.deepEqual(setListedVisible(none, RUNS, "", false).hidden_patterns, [".*"]);
  assert.deepEqual(setListedVisible({ hidden_runs: [], hidden_patterns: [".*"] }, RUNS, "", true).hidden_patterns, []);
  const on = setListedVisible({ hidden_runs: [], hidden_patterns: [".*"] }, listed, "mnist/.*", true);
  assert.deepEqual(shownRuns(RUNS, [".*"], on.hidden_runs, on.hidden_patterns), ["mnist/lr_0.1", "mnist/lr_0.01", "mnist/lr_0.1/eval"]);
});

test("a filter with named groups can narrow a pattern holding the same names", () => {
  const state = { hidden_runs: [], hidden_patterns: ["(?P<ds>mnist)/lr_0\\.1.*"] };
  const runs = ["mnist/lr_0.1", "mnist/lr_0.1/eval", "mnist/lr_0.01"];
  const on = setListedVisible(state, ["mnist/lr_0.1"], "(?P<ds>mnist)/lr_0\\.1", true);
  assert.equal(on.hidden_patterns.length, 1);
  assert.ok((on.hidden_patterns[0].match(/\(\?P<ds>/g) || []).length <= 1, on.hidden_patterns[0]);
  assert.deepEqual(shownRuns(runs, [".*"], [], on.hidden_patterns), ["mnist/lr_0.1", "mnist/lr_0.01"]);
});
