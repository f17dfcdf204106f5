// The PR card's pure logic: the slider's steps, the request's steps, the lines and hover text.
import test from "node:test";
import assert from "node:assert/strict";
import { fromMessage, hoverTemplate, prLayout, prTraces, sliderIndex, stepText, stepsFor, unionSteps } from "../../../js/src/dashboards/pr_curves/pr_plot.js";

const entry = (run, steps, step, precision, recall) => ({
  run,
  steps: BigInt64Array.from(steps.map(BigInt)),
  step,
  wall_time: step === null ? null : 1e9 + step,
  thresholds: new Float64Array(precision.map((_, i) => i / Math.max(1, precision.length - 1))),
  precision: new Float64Array(precision),
  recall: new Float64Array(recall),
  true_positives: new Float64Array(precision.map((_, i) => 10 - i)),
  false_positives: new Float64Array(precision.map((_, i) => 5 - i)),
  true_negatives: new Float64Array(precision.map((_, i) => i)),
  false_negatives: new Float64Array(precision.map((_, i) => i + 0.5)),
});

test("the slider walks every run's steps once, in order; null follows the latest", () => {
  const curves = [fromMessage(entry("a", [0, 4, 8], 8, [0.5, 1], [1, 0.2])), fromMessage(entry("b", [0, 5], 5, [0.6], [1]))];
  assert.deepEqual(curves[0].steps, [0, 4, 8]);
  assert.deepEqual(unionSteps(curves), [0, 4, 5, 8]);
  assert.equal(sliderIndex([0, 4, 5, 8], null), 3);
  assert.equal(sliderIndex([0, 4, 5, 8], 4), 1);
  assert.equal(sliderIndex([0, 4, 5, 8], 7), 3);
  assert.equal(sliderIndex([], 3), 0);
  assert.equal(stepsFor(["a", "b"], null), null);
  assert.deepEqual(stepsFor(["a", "b"], 4), { a: 4, b: 4 });
  assert.equal(stepText(curves, null), "step 8 (b: 5)");
  assert.equal(stepText(curves.slice(0, 1), 8), "step 8");
  assert.equal(stepText([fromMessage(entry("c", [], null, [], []))], null), "no readable step");
});

test("a line per run with a readable step: recall across, precision up, counts in the hover", () => {
  const curves = [
    fromMessage(entry("b", [0, 5], 5, [0.6], [1])),
    fromMessage(entry("a", [0, 4], 4, [0.5, 0.75, 1], [1, 0.5, 0.1])),
    fromMessage(entry("gone", [], null, [], [])),
  ];
  const colors = { a: "#111111", b: "#222222" };
  const traces = prTraces(curves, ["a", "b", "gone", "other"], (run) => colors[run]);
  assert.deepEqual(traces.map((t) => t.name), ["a", "b"]);
  assert.deepEqual(traces[0].x, [1, 0.5, 0.1]);
  assert.deepEqual(traces[0].y, [0.5, 0.75, 1]);
  assert.deepEqual(traces[0].customdata[1], [0.5, 9, 4, 1, 1.5]); // threshold, TP, FP, TN, FN
  assert.equal(traces[0].line.color, "#111111");
  assert.equal(traces[0].mode, "lines");
  assert.equal(traces[1].mode, "markers", "a one-threshold curve is a point");
  assert.match(traces[0].hovertemplate, /threshold %\{customdata\[0\]/);
  assert.match(traces[0].hovertemplate, /TP %\{customdata\[1\].*FP %\{customdata\[2\].*TN %\{customdata\[3\].*FN %\{customdata\[4\]/);
  assert.match(traces[0].hovertemplate, /step 4/);
  const layout = prLayout({ height: 200 });
  assert.equal(layout.height, 200);
  assert.equal(layout.xaxis.title.text, "recall");
  assert.equal(layout.yaxis.title.text, "precision");
});

test("run names are text in the hover, never markup or plotly templates", () => {
  const hover = hoverTemplate("<img src=x onerror=alert(1)> %{y}", 3);
  assert.ok(!hover.includes("<img"));
  assert.ok(hover.includes("&lt;img src=x onerror=alert(1)&gt; &#37;{y}"));
  const [trace] = prTraces([fromMessage(entry("<b>r</b>", [1], 1, [1, 1], [1, 0]))], ["<b>r</b>"], () => "#000000");
  assert.equal(trace.name, "&lt;b&gt;r&lt;/b&gt;");
});
