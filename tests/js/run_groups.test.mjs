import test from "node:test";
import assert from "node:assert/strict";
import {
  appendGroups,
  compileGroups,
  groupCell,
  groupColor,
  groupFields,
  groupHoverTemplate,
  groupMap,
  groupTraces,
  jsPattern,
  memberList,
  mergeGroupZoom,
  selectorItems,
  translucent,
} from "../../js/src/run_groups.js";

const model = (traits) => ({ get: (name) => traits[name] });

test("the request's groups field follows the traits; off when empty", () => {
  assert.deepEqual(groupFields(model({ run_groups: "(?P<group>.*)/s\\d", group_line: "median", group_band: "ci95" })), {
    groups: { by: "(?P<group>.*)/s\\d", line: "median", band: "ci95" },
  });
  assert.deepEqual(groupFields(model({ run_groups: ["lr"] })), { groups: { by: ["lr"], line: "mean", band: "std" } });
  for (const off of [null, "", []]) assert.deepEqual(groupFields(model({ run_groups: off })), {});
});

test("Python regexes run in the browser, anchored; a pattern without `group` groups nothing", () => {
  assert.equal(jsPattern("(?P<group>a)(?P=group)"), "(?<group>a)\\k<group>");
  const items = selectorItems(["cfg_a/seed_1", "base", "cfg_a/seed_0", "cfg_b/seed_0", "x/cfg_c/seed_0/eval"], "(?P<group>[^/]*)/seed_\\d+");
  assert.deepEqual(items, [
    { group: "cfg_a", members: ["cfg_a/seed_1", "cfg_a/seed_0"] },
    { run: "base" },
    { group: "cfg_b", members: ["cfg_b/seed_0"] },
    { run: "x/cfg_c/seed_0/eval" },
  ]);
  assert.equal(compileGroups("(.*)/seed"), null);
  assert.equal(compileGroups("(?P<group>"), null);
  assert.deepEqual(selectorItems(["a", "b"], ["lr"]), [{ run: "a" }, { run: "b" }]);
});

const reply = {
  groups: [
    { group: "g", members: ["g/s0", "g/s1"], x: [0, 1, 2, 3], y: [1, 2, 3, 4], step: [0, 1, 2, 3], n: [2, 2, 1, 1], lower: [0, 1, 3, 4], upper: [2, 3, 3, 4], total: 4, sent: 4, exact: true },
    { group: "h", members: ["h/s0"], x: [0, 1], y: [5, 6], step: [0, 1], n: [1, 1], total: 2, sent: 2, exact: true },
  ],
};

test("a group with a band: lower edge, upper edge filled to it, then the line with n and members in hover", () => {
  const groups = groupMap(reply);
  const drawn = groupTraces({ groups, smoothing: 0, xAxis: "step", unit: null, colorOf: () => "#ff0000", line: "mean" });
  assert.equal(drawn.traces.length, 4); // g: lower, upper, line; h (band none): line
  const [lower, upper, line, h] = drawn.traces;
  assert.deepEqual(Array.from(lower.y), [0, 1, 3, 4]);
  assert.equal(upper.fill, "tonexty");
  assert.equal(upper.fillcolor, "rgba(255, 0, 0, 0.2)");
  assert.equal(lower.hoverinfo, "skip");
  assert.deepEqual(line.customdata[0], [1, 0, 2]);
  assert.match(line.hovertemplate, /g \(mean\).*n %\{customdata\[2\]\}\/2.*g\/s0, g\/s1/);
  assert.equal(h.fill, undefined);
  assert.deepEqual(drawn.lineTraces, [2, 3]);
  const all = appendGroups({ traces: [{}, {}], lines: [], shown: [{ run: "r" }], smoothedTraces: [1] }, drawn);
  assert.deepEqual(all.smoothedTraces, [1, 4, 5]);
  assert.deepEqual(all.shown.map((s) => s.run), ["r", "g", "h"]);
});

test("smoothing applies to the group line and its band edges", () => {
  const drawn = groupTraces({ groups: groupMap(reply), smoothing: 0.5, xAxis: "step", unit: null, colorOf: () => "#000" });
  assert.notDeepEqual(Array.from(drawn.traces[2].y), [1, 2, 3, 4]);
  assert.notDeepEqual(Array.from(drawn.traces[1].y), [2, 3, 3, 4]);
});

test("a zoom splices the exact group points into the overview, band and n included", () => {
  const [full] = groupMap(reply).values();
  const part = { x: [1, 1.5, 2], y: [9, 9, 9], step: [1, 1, 2], n: [3, 3, 3], lower: [8, 8, 8], upper: [10, 10, 10], exact: true };
  const merged = mergeGroupZoom(full, part, [1, 2]);
  assert.deepEqual(merged.y, [1, 9, 9, 9, 4]);
  assert.deepEqual(merged.n, [2, 3, 3, 3, 1]);
  assert.deepEqual(merged.upper, [2, 10, 10, 10, 4]);
});

test("colours, table cells and hover member lists", () => {
  const colorOf = (run) => (run === "g/s0" ? "#123456" : "#999999");
  assert.equal(groupColor("g", ["g/s0"], { runColors: {}, colorOf }), "#123456");
  assert.equal(groupColor("g", ["g/s0"], { runColors: { g: "#abc" }, colorOf }), "#abc");
  assert.equal(translucent("#abc", 0.5), "rgba(170, 187, 204, 0.5)");
  assert.equal(groupCell({ value: 1.5, spread: 0.25 }, "value", String), "1.5 ± 0.25");
  assert.equal(groupCell({ value: 1.5, spread: null }, "value", String), null);
  assert.equal(groupCell({ step: 3, spread: 0.25 }, "step", String), null);
  assert.equal(memberList(["a", "b"]), "a, b");
  assert.equal(memberList(["1", "2", "3", "4", "5", "6", "7", "8"]), "1, 2, 3, 4, 5, 6 and 2 more");
});

test("group and run names from logs stay text in the hover (no markup, no plotly %{...})", () => {
  const s = { members: ["<img src=x onerror=alert(1)>/seed_0", "%{y}/seed_1"] };
  const template = groupHoverTemplate("<b>cfg</b>%{x}", s, "mean");
  assert.ok(!template.includes("<img") && !template.includes("<b>cfg"));
  assert.ok(template.includes("&lt;b&gt;cfg&lt;/b&gt;&#37;{x}"));
  assert.ok(template.includes("&#37;{y}/seed_1"));
});
