// The diagnostics charts' pure logic: the gap shading and best step of a pair, the learning rate's
// log axis, the range test's suggestion, the update-ratio band, guide and emphasis, the heatmap,
// sentences and the one-line summary of quiet runs (hostile names stay text).
import test from "node:test";
import assert from "node:assert/strict";
import {
  chartKey,
  interpolate,
  lrFigure,
  lrFindFigure,
  pairFigure,
  quietLine,
  ratioFigure,
  rows,
  sentence,
} from "../../../js/src/dashboards/diagnostics/diagnostics_plot.js";

const base = { height: 280, margin: { l: 48, r: 24, t: 20, b: 32 } };
const HOSTILE = "<img src=x onerror=alert(1)>%{y}";
const f64 = (a) => Float64Array.from(a);

test("interpolate reads a curve between its points and not outside it", () => {
  assert.equal(interpolate([0, 10], [1, 3], 5), 2);
  assert.equal(interpolate([0, 10, 20], [1, 3, 0], 20), 0);
  assert.ok(Number.isNaN(interpolate([0, 10], [1, 3], 11)));
  assert.ok(Number.isNaN(interpolate([], [], 0)));
});

test("a pair: training read at the validation steps under the shaded gap, the best step marked", () => {
  const data = {
    kind: "pair", metric: "loss", train_tag: HOSTILE, val_tag: "loss/val", best_step: 10, best_value: 0.5,
    train: { step: f64([0, 10, 20]), value: f64([2, 1, 0]) }, val: { step: f64([0, 10, 20]), value: f64([2.5, 0.5, 1.5]) },
  };
  const { traces, layout } = pairFigure(data, { color: "#ff0000", base, step: 20 });
  const [gapBase, gap, train] = traces;
  assert.deepEqual(gapBase.y, [2, 1, 0]);
  assert.equal(gap.fill, "tonexty");
  assert.deepEqual(gap.y, [2.5, 0.5, 1.5]);
  assert.ok(!train.name.includes("<"), "a tag is escaped for plotly");
  assert.ok(train.name.includes("&#37;{y}"));
  const best = layout.shapes.find((s) => s.name === "best-step");
  assert.equal(best.x0, 10);
  assert.equal(layout.shapes.find((s) => s.name === "selected-step").x0, 20);
  assert.deepEqual(traces.at(-1).x, [10]);
});

test("a loss with its learning rate: the rate on a log axis, the finding's step marked", () => {
  const data = { kind: "lr", loss_tag: "loss", lr_tag: "lr", loss: { step: f64([0, 1]), value: f64([2, 9]) }, lr: { step: f64([0, 1]), value: f64([5, 5]) } };
  const { traces, layout } = lrFigure(data, { color: "#00ff00", base, step: null, at: 1 });
  assert.equal(traces[1].yaxis, "y2");
  assert.equal(layout.yaxis2.type, "log");
  assert.equal(layout.shapes.find((s) => s.name === "finding-step").x0, 1);
  const none = lrFigure({ ...data, lr: null }, { color: "#00ff00", base, step: null });
  assert.equal(none.traces.length, 1);
  assert.equal(none.layout.yaxis2, undefined);
});

test("a range test: x is the rate on a log axis, the suggestion marked at its value", () => {
  const data = {
    kind: "lr_find", loss_tag: "loss", lr_tag: "lr", suggestion: 0.01,
    all_lr: f64([1e-4, 1e-3, 1e-2, 1e-1, 1]), all_loss: f64([2.3, 2.2, 1.5, 1.0, 50]),
    lr: f64([1e-4, 1e-3, 1e-2, 1e-1]), smoothed: f64([2.3, 2.25, 1.9, 1.4]), step: f64([0, 1, 2, 3]),
  };
  const { traces, layout } = lrFindFigure(data, { color: "#0000ff", base });
  assert.equal(layout.xaxis.type, "log");
  assert.equal(layout.shapes[0].x0, 0.01, "shapes are placed by value on a log axis (plotly.js 4)");
  assert.deepEqual(traces.at(-1).x, [0.01]);
  assert.equal(traces.at(-1).y[0], 1.9);
  assert.ok(layout.yaxis.range[1] < 50, "the exploding tail does not flatten the curve");
});

test("update ratios: log y, the band 1e-4..1e-2 shaded, a guide at 1e-3, lines outside the band thick", () => {
  const line = (tag, v, outside) => ({ tag: `update_ratio/${tag}`, step: f64([0, 1]), value: f64([v, v]), outside });
  const data = { kind: "update_ratio", band: [1e-4, 1e-2], guide: 1e-3, heatmap: null, lines: [line("all", 1e-3, false), line("fc.weight", 1e-6, true)] };
  const { traces, layout } = ratioFigure(data, { base, palette: ["#111111", "#222222"], step: null });
  assert.equal(layout.yaxis.type, "log");
  const band = layout.shapes.find((s) => s.name === "band");
  assert.deepEqual([band.y0, band.y1], [1e-4, 1e-2]);
  const guide = layout.shapes.find((s) => s.name === "guide");
  assert.equal(guide.y0, 1e-3);
  assert.deepEqual(traces.map((t) => t.meta), ["inside", "outside"]);
  assert.ok(traces[1].line.width > traces[0].line.width && traces[1].opacity > traces[0].opacity);
  assert.equal(traces[1].name, "fc.weight");
  const zero = ratioFigure({ ...data, lines: [line("z", 0, false)] }, { base, palette: ["#111111"], step: null });
  assert.deepEqual(zero.traces[0].y, [null, null], "a zero ratio is no point on a log axis");
});

test("many tensors: a heatmap, tensors top to bottom in the kernel's (model) order", () => {
  const z = Object.assign(f64([-3, NaN, -6, -1]), { shape: [2, 2] });
  const data = { kind: "update_ratio", band: [1e-4, 1e-2], guide: 1e-3, lines: [], heatmap: { tags: ["update_ratio/b", "update_ratio/a"], x: f64([0, 5]), z } };
  const { traces, layout } = ratioFigure(data, { base, palette: [], step: 3 });
  assert.equal(traces[0].type, "heatmap");
  assert.deepEqual(traces[0].y, ["b", "a"]);
  assert.deepEqual(traces[0].z, [[-3, null], [-6, -1]]);
  assert.equal(layout.yaxis.autorange, "reversed");
  assert.deepEqual([traces[0].zmin, traces[0].zmax], [-5, -1]);
  assert.deepEqual(rows([[1, 2]]), [[1, 2]]);
});

test("sentences, the quiet line and chart keys", () => {
  const f = { run: HOSTILE, finding: "lr_too_high", metric: "loss", evidence: "loss exploded", advice: "Lower it." };
  assert.deepEqual(sentence(f), [HOSTILE, "lr too high (loss)", "loss exploded.", "Lower it."]);
  assert.equal(quietLine([]), "");
  assert.equal(quietLine(["a"]), "Nothing found in 1 run: a.");
  const many = Array.from({ length: 25 }, (_, i) => `r${i}`);
  assert.ok(quietLine(many).endsWith("r19 and 5 more."));
  assert.equal(chartKey({ kind: "lr", run: "a", runs: ["a"] }), chartKey({ run: "a", kind: "lr" }));
});
