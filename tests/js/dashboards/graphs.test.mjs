// The graph explorer's pure parts: the kernel's levels reply read into levels, the nested
// layout's input and result (with the real dagre), edge widths and node colours.
import test from "node:test";
import assert from "node:assert/strict";
import * as dagre from "../../../js/node_modules/@dagrejs/dagre/dist/dagre.esm.js";
import { edgeWidth, layoutInput, leafWidth, levelModel, mergedEdges, place, MAX_WIDTH } from "../../../js/src/dashboards/graphs/levels.js";
import { nestedLayout, warmInput } from "../../../js/src/dashboards/graphs/nested_layout.js";
import { nodeColors, ramp, RAMP, NEUTRAL } from "../../../js/src/dashboards/graphs/colors.js";

// Top level: scope "Net" (open) and op "input"; inside Net: "Net/a", "Net/b" (scopes with the
// same structure) and "Net/aux" (extracted). Edges: input -> Net (top), a -> b (inside Net).
function reply() {
  return {
    ops: ["Placeholder", "NoOp"],
    devices: ["/cpu:0"],
    nodes: {
      id: ["Net", "input", "Net/a", "Net/aux", "Net/b"],
      label: ["Net", "input", "a", "aux", "b"],
      parent: [-1, -1, 0, 0, 0],
      kind: [1, 0, 1, 0, 1],
      op: [-1, 0, -1, 1, -1],
      device: [0, 0, 0, -1, 0],
      count: [5, 1, 2, 1, 2],
      expanded: [1, 0, 0, 0, 0],
      extract: [0, 0, 0, 2, 0],
      compute_time: [30, NaN, 10, NaN, 20],
      memory: [NaN, NaN, NaN, NaN, NaN],
      template: [0, -1, 1, -1, 1],
      in_annotations: [0, 0, 0, 0, 0],
      out_annotations: [0, 0, 0, 0, 0],
    },
    edges: {
      src: [1, 2, 2],
      dst: [0, 4, 4],
      level: [-1, 0, 0],
      src_child: [1, 2, 2],
      dst_child: [0, 4, 4],
      n_data: [1, 1, 0],
      n_control: [0, 0, 1],
      elements: [1000, 64, NaN],
      annotation: [0, 0, 0],
      label: ["1×10", "8×8", ""],
    },
  };
}

test("the levels reply is read into nodes and open levels", () => {
  const m = levelModel(reply());
  assert.equal(m.n, 5);
  assert.deepEqual([...m.levels.keys()].sort(), [-1, 0]);
  assert.deepEqual(m.levels.get(-1).children, [0, 1]);
  assert.deepEqual(m.levels.get(0).children, [2, 3, 4]);
  assert.equal(m.nodes[1].op, "Placeholder");
  assert.equal(m.nodes[3].device, null);
  assert.equal(m.nodes[4].depth, 1);
  assert.equal(m.byId.get("Net/b").kind, "scope");
});

test("layout input: deepest level first, open children sized later, extracted nodes without edges", () => {
  const input = layoutInput(levelModel(reply()));
  assert.deepEqual(input.levels.map((lv) => lv.level), [0, -1]);
  const inner = input.levels[0];
  assert.deepEqual(inner.edges, [{ s: 2, t: 4, label: "8×8" }]); // one per pair; aux is extracted
  assert.equal(inner.nodes.find((n) => n.i === 3).extract, 2);
  const top = input.levels[1];
  assert.equal(top.nodes.find((n) => n.i === 0).w, null); // open: sized by its children
  assert.equal(leafWidth("x".repeat(500)), MAX_WIDTH);
});

test("nested layout with dagre: children inside their open scope, edges run downwards", () => {
  const m = levelModel(reply());
  const result = nestedLayout(layoutInput(m), dagre);
  const placed = place(m, result);
  const net = placed.boxes.get(0);
  for (const i of [2, 3, 4]) {
    const b = placed.boxes.get(i);
    assert.ok(b.x >= net.x && b.y >= net.y && b.x + b.w <= net.x + net.w + 1e-6 && b.y + b.h <= net.y + net.h + 1e-6, `node ${i} inside Net`);
  }
  const a = placed.boxes.get(2);
  const b = placed.boxes.get(4);
  assert.ok(b.y > a.y, "b below a (a feeds b)");
  const aux = placed.boxes.get(3);
  assert.ok(aux.x > Math.max(a.x + a.w, b.x + b.w), "extracted node beside the main graph");
  assert.ok(placed.width >= net.w && placed.height >= net.h);
  assert.equal(placed.paths.length, 2); // input -> Net at the top, a -> b inside Net
});

test("edges between the same children merge; widths grow with tensor size", () => {
  const merged = mergedEdges(levelModel(reply()));
  const ab = merged.get("2,4");
  assert.equal(ab.nData, 1);
  assert.equal(ab.nControl, 1);
  assert.equal(edgeWidth(NaN), 1);
  assert.equal(edgeWidth(1e6, true), 1);
  assert.ok(edgeWidth(1e6) > edgeWidth(1e3) && edgeWidth(1e3) > 1);
  assert.ok(edgeWidth(1e30) <= 8);
});

test("colours: structure shares a colour, compute time ramps, unknown is grey", () => {
  const m = levelModel(reply());
  const s = nodeColors(m, "structure");
  assert.equal(s.fill[2], s.fill[4]);
  assert.notEqual(s.fill[0], s.fill[2]);
  assert.equal(s.fill[1], NEUTRAL.op);
  assert.equal(s.legend.items.length, 1);
  const t = nodeColors(m, "compute_time");
  assert.equal(t.fill[0], RAMP[1]);
  assert.equal(t.fill[2], RAMP[0]);
  assert.equal(t.legend.max, 30);
  assert.equal(t.fill[1], "#e0e0e0");
  assert.equal(ramp(0.5).length, 7);
  const op = nodeColors(m, "op");
  assert.deepEqual(op.legend.items.map((x) => x.label).sort(), ["NoOp", "Placeholder"]);
  assert.equal(nodeColors(m, "none").legend.kind, "none");
});

test("the graphs tab is one whole card, shown when a run has a graph of any kind", async () => {
  const { layoutItems, emptyMessage, isWhole, kindOf } = await import("../../../js/src/core/layout.js");
  assert.ok(isWhole("graphs") && !isWhole("scalars"));
  assert.ok(kindOf("graph").plugins.includes("graph_keras_model"));
  assert.deepEqual(kindOf("scalars").plugins, ["scalars"]);
  const tags = new Map([["graph_keras_model", new Map([["model", { runs: ["k"] }]])], ["scalars", new Map([["loss", { runs: ["a"] }]])]]);
  const layout = layoutItems({ dashboard: "graphs", cardTypes: [], tags, shown: new Set(["k", "a"]), pinned: ["loss"] });
  assert.deepEqual(layout.pinned, []);
  assert.deepEqual(layout.groups[0].items, [{ kind: "graph", tag: "graphs", run: null, rowStart: false }]);
  assert.equal(emptyMessage(layout, { tags, filter: "" }), null);
  const none = layoutItems({ dashboard: "graphs", cardTypes: [], tags: new Map([["scalars", tags.get("scalars")]]), shown: new Set(["a"]), pinned: [] });
  assert.deepEqual(none.groups, []);
  assert.match(emptyMessage(none, { tags: new Map(), filter: "" }), /No graph data yet/);
});

test("opening and closing scopes: closing closes what is open inside", async () => {
  const { toggled, withOpened, tagLabel } = await import("../../../js/src/dashboards/graphs/explorer.js");
  assert.deepEqual(toggled(["Net"], "Net/a"), ["Net", "Net/a"]);
  assert.deepEqual(toggled(["Net", "Net/a", "Net/a/b", "Netx"], "Net"), ["Netx"]);
  assert.deepEqual(withOpened(["Net"], ["Net", "Net/a"]), ["Net", "Net/a"]);
  assert.equal(tagLabel(""), "Op graph");
  assert.equal(tagLabel("<b>k</b>"), "<b>k</b>");
});

test("the layout cache: an unchanged level is not laid out again, and lands where it was", () => {
  const m = levelModel(reply());
  const cache = new Map();
  const first = nestedLayout(layoutInput(m), dagre, cache);
  assert.equal(cache.size, 2);
  let calls = 0;
  const counting = { ...dagre, layout: (g) => { calls += 1; return dagre.layout(g); } };
  const again = nestedLayout(layoutInput(m), counting, cache);
  assert.equal(calls, 0);
  assert.deepEqual(again.pos, first.pos);
  assert.deepEqual(again.edges, first.edges);
  assert.deepEqual(again.size, first.size);
});

test("the worker's warm-up layout runs dagre on every node and edge, nested and not", () => {
  let calls = 0;
  const counting = { ...dagre, layout: (g) => { calls += 1; return dagre.layout(g); } };
  const result = nestedLayout(warmInput(), counting);
  assert.equal(calls, 2); // both levels go through dagre (no grid, no cache)
  for (const i of [0, 1, 2, 3, 4, 5, 6]) assert.ok(Number.isFinite(result.pos[i].x), `node ${i} placed`);
  assert.ok(result.pos[0].w > result.size[0].w, "the open scope is sized around its children");
  assert.equal(result.edges[-1].length, 4);
  assert.equal(result.edges[0].length, 2);
});

test("info panel switches: group or ungroup a series, remove from or add to the main graph", async () => {
  const { nodeActions } = await import("../../../js/src/dashboards/graphs/panel.js");
  const op = { id: "s/add_3", kind: "op", series: "s/add_[1-6]", series_grouped: false };
  const [group, extract] = nodeActions(op, { extract: 0 });
  assert.deepEqual([group.trait, group.id, group.value, group.text], ["graph_series", "s/add_[1-6]", true, "Group series"]);
  assert.deepEqual([extract.trait, extract.id, extract.value, extract.text], ["graph_include", "s/add_3", false, "Remove from main graph"]);
  const series = { id: "s/add_[1-6]", kind: "series", series_grouped: true };
  const [ungroup, add] = nodeActions(series, { extract: 2 });
  assert.deepEqual([ungroup.id, ungroup.value, ungroup.text], ["s/add_[1-6]", false, "Ungroup series"]);
  assert.deepEqual([add.id, add.value, add.text], ["s/add_[1-6]", true, "Add to main graph"]);
  // a scope that is not drawn (e.g. inside a closed one): no switch
  assert.deepEqual(nodeActions({ id: "a/b", kind: "scope" }, undefined), []);
});

test("many unconnected children go in a grid below the connected ones, not in one endless row", async () => {
  const { GRID_MIN } = await import("../../../js/src/dashboards/graphs/nested_layout.js");
  const n = 3 + 30;
  const nodes = Array.from({ length: n }, (_, i) => ({ i, id: `s/${i}`, open: false, extract: 0, w: 80, h: 26 }));
  const edges = [{ s: 0, t: 1 }, { s: 1, t: 2 }];
  const result = nestedLayout({ pad: 10, header: 22, levels: [{ level: -1, nodes, edges }] }, dagre);
  const chainBottom = Math.max(...[0, 1, 2].map((i) => result.pos[i].y + result.pos[i].h / 2));
  const loose = nodes.slice(3).map((node) => result.pos[node.i]);
  assert.ok(loose.every((p) => p.y - p.h / 2 > chainBottom), "the grid is below the chain");
  const rows = new Set(loose.map((p) => p.y));
  assert.ok(rows.size > 1 && rows.size < loose.length, `a grid of rows: ${rows.size}`);
  const { w, h } = result.size[-1];
  assert.ok(w < 30 * 80 && h < 30 * 26 * 2, `roughly square: ${w} x ${h}`);
  for (let a = 0; a < n; a += 1) {
    for (let b = a + 1; b < n; b += 1) {
      const p = result.pos[a];
      const q = result.pos[b];
      assert.ok(Math.abs(p.x - q.x) >= (p.w + q.w) / 2 || Math.abs(p.y - q.y) >= (p.h + q.h) / 2, `${a} and ${b} overlap`);
    }
  }
  // below GRID_MIN unconnected children, dagre places them as before
  const few = nodes.slice(0, 3 + GRID_MIN - 1);
  const small = nestedLayout({ pad: 10, header: 22, levels: [{ level: -1, nodes: few, edges }] }, dagre);
  assert.ok(few.slice(3).every((node) => small.pos[node.i].y < chainBottom), "few loose nodes stay in dagre's ranks");
});
