// Custom cards (board.add_card): the run colours a trace named after a run takes, the theme laid
// under the user's layout, and the "Custom" section the time series tab lays out for them.
import test from "node:test";
import assert from "node:assert/strict";
import { runColored, themedLayout } from "../../js/src/cards/custom_card.js";
import { emptyMessage, kindOf, layoutItems } from "../../js/src/core/layout.js";

const colorOf = (run) => ({ a: "#111111", b: "#222222" })[run];

test("a trace named after a shown run takes its colour unless it set one", () => {
  const traces = [
    { name: "a", type: "scatter" },
    { name: "b", line: { color: "#000000" } },
    { name: "b", marker: { color: [1, 2, 3], size: 4 } },
    { name: "other" },
    { name: "a", marker: { size: 3 } },
  ];
  const out = runColored(traces, ["a", "b"], colorOf);
  assert.deepEqual(out[0], { name: "a", type: "scatter", marker: { color: "#111111" }, line: { color: "#111111" } });
  assert.equal(out[1], traces[1]);
  assert.equal(out[2], traces[2]);
  assert.equal(out[3], traces[3]);
  assert.deepEqual(out[4].marker, { size: 3, color: "#111111" });
  assert.deepEqual(runColored([{ name: "a" }], [], colorOf), [{ name: "a" }]); // not a shown run
});

test("the Board's theme goes under the figure's layout; the card keeps its height", () => {
  const base = { height: 260, font: { family: "F", size: 11, color: "white" }, margin: { l: 48, r: 24 }, paper_bgcolor: "rgba(0,0,0,0)" };
  const out = themedLayout(base, { title: { text: "t" }, font: { size: 14 }, height: 900, margin: { l: 80 } });
  assert.deepEqual(out.font, { family: "F", size: 14, color: "white" });
  assert.deepEqual(out.margin, { l: 80, r: 24 });
  assert.equal(out.height, 260);
  assert.equal(out.paper_bgcolor, "rgba(0,0,0,0)");
  assert.equal(out.showlegend, true);
});

test("the time series tab lays out a Custom section first, one card per title", () => {
  const tags = new Map([["scalars", new Map([["loss", { runs: ["a"] }]])]]);
  const spec = { dashboard: "timeseries", cardTypes: ["scalars"], tags, shown: new Set(["a"]), custom: ["acc vs loss", "table"] };
  const layout = layoutItems(spec);
  assert.equal(layout.groups[0].name, "Custom");
  assert.deepEqual(layout.groups[0].items.map((i) => [i.kind, i.tag, i.run]), [["custom", "acc vs loss", null], ["custom", "table", null]]);
  assert.equal(layout.groups[1].items[0].tag, "loss");
  assert.equal(kindOf("custom").label, "Custom");
  assert.equal(layoutItems({ ...spec, dashboard: "scalars" }).groups.some((g) => g.name === "Custom"), false);
  // custom cards and no scalar yet: the cards, not "No scalar data yet"
  const empty = layoutItems({ ...spec, tags: new Map() });
  assert.equal(empty.groups.length, 1);
  assert.equal(emptyMessage(empty, { tags: new Map(), filter: "" }), null);
});
