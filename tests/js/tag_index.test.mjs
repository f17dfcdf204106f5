// The kernel's index -> runs in order, tags per plugin, colours and problems.
import test from "node:test";
import assert from "node:assert/strict";
import { parseIndex, sameLayout } from "../../js/src/core/tag_index.js";

test("runs keep the kernel's order; runs only named by tags come last; bad entries are skipped", () => {
  const index = parseIndex({
    runs: [{ name: "b", color: "#111111" }, "a", { name: "b" }, null, { name: 3 }],
    tags: [
      { tag: "loss", runs: ["a", "b", "c", 7] },
      { tag: "w", plugin: "histograms", runs: ["c", "a"], points: { a: 2 } },
      { tag: 5 },
      { tag: "bad", plugin: 1, runs: ["d"] },
    ],
    problems: ["damaged record", 4],
  });
  assert.deepEqual(index.runs, ["b", "a", "c"]);
  assert.equal(index.colors.get("b"), "#111111");
  assert.equal(index.colors.get("c"), undefined);
  assert.deepEqual([...index.order], [["b", 0], ["a", 1], ["c", 2]]);
  assert.deepEqual([...index.plugins.keys()], ["scalars", "histograms"], "no plugin: a scalar tag");
  assert.deepEqual(index.plugins.get("scalars").get("loss").runs, ["b", "a", "c"], "runs in index order");
  assert.deepEqual(index.plugins.get("histograms").get("w"), { runs: ["a", "c"], points: { a: 2 } });
  assert.deepEqual(index.problems, ["damaged record", "4"]);
});

test("a tag listed twice for one plugin is merged", () => {
  const index = parseIndex({
    runs: ["a", "b"],
    tags: [
      { tag: "loss", runs: ["b"], points: { b: 3 } },
      { tag: "loss", plugin: "scalars", runs: ["a", "b"], points: { a: 1 } },
    ],
  });
  assert.deepEqual(index.plugins.get("scalars").get("loss"), { runs: ["a", "b"], points: { b: 3, a: 1 } });
  assert.deepEqual(parseIndex({}).runs, []);
});

test("sameLayout: the same runs, colours and tags with their runs; point counts and problems do not count", () => {
  const base = {
    runs: [{ name: "a", color: "#111111" }, { name: "b", color: "#222222" }],
    tags: [{ tag: "loss", runs: ["a", "b"], points: { a: 10, b: 3 } }, { tag: "w", plugin: "histograms", runs: ["a"] }],
    problems: [],
  };
  const again = parseIndex({ ...base, tags: [{ ...base.tags[0], points: { a: 9000, b: 7 } }, base.tags[1]], problems: ["x"] });
  assert.equal(sameLayout(parseIndex(base), again), true);
  assert.equal(sameLayout(null, again), false, "no index before");
  const changes = [
    { ...base, runs: [...base.runs, { name: "c" }] }, // a new run
    { ...base, runs: [base.runs[1], base.runs[0]] }, // another order
    { ...base, runs: [base.runs[0], { name: "b", color: "#333333" }] }, // another colour
    { ...base, tags: [base.tags[0]] }, // a tag gone
    { ...base, tags: [{ ...base.tags[0], runs: ["a"] }, base.tags[1]] }, // a tag's runs
    { ...base, tags: [...base.tags, { tag: "img", plugin: "images", runs: ["b"] }] }, // a new plugin
    { ...base, tags: [base.tags[0], { ...base.tags[1], tag: "v" }] }, // a renamed tag
  ];
  for (const changed of changes) assert.equal(sameLayout(parseIndex(base), parseIndex(changed)), false, JSON.stringify(changed));
});
