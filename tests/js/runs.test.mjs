import test from "node:test";
import assert from "node:assert/strict";
import {
  compileRunPatterns,
  filterTextToPatterns,
  isValidRunFilter,
  patternsToFilterText,
  runMatches,
  setAllHidden,
  shownRuns,
  toggleHidden,
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

test("toggling hidden runs", () => {
  assert.deepEqual(toggleHidden([], "a", false), ["a"]);
  assert.deepEqual(toggleHidden(["a", "b"], "a", true), ["b"]);
  assert.deepEqual(toggleHidden(["a"], "a", false), ["a"]);
  assert.deepEqual(setAllHidden(["x"], ["a", "b"], false).sort(), ["a", "b", "x"]);
  assert.deepEqual(setAllHidden(["a", "x"], ["a", "b"], true), ["x"]);
});
