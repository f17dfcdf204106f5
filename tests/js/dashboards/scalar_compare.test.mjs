// Comparing runs on a scalar card: lines broken where x goes back, the best point markers, the
// focused run, the run a click means, and the line under the card's title.
import test from "node:test";
import assert from "node:assert/strict";
import { FADED, applyFocus, bestOf, bestTrace, breakBackwards, clickedRun } from "../../../js/src/cards/scalar/scalar_compare.js";
import { nextFocus } from "../../../js/src/focus.js";
import { subText } from "../../../js/src/cards/scalar/scalar_sub.js";
import { scalarTraces } from "../../../js/src/cards/scalar/scalars_plot.js";

const series = (x, y, step = x) => ({ x: Float64Array.from(x), y: Float64Array.from(y), step: Float64Array.from(step), total: x.length, sent: x.length, exact: true });

test("a line whose x goes back is broken there: no segment is drawn backwards", () => {
  const s = series([0, 1, 2, 1, 2, 3], [5, 4, 3, 9, 8, 7], [10, 11, 12, 13, 14, 15]);
  const out = breakBackwards(s);
  assert.deepEqual(Array.from(out.x), [0, 1, 2, 2, 1, 2, 3]);
  assert.ok(Number.isNaN(out.y[3]), "a gap between the segments");
  assert.deepEqual(Array.from(out.y).filter((v) => !Number.isNaN(v)), [5, 4, 3, 9, 8, 7]);
  assert.deepEqual(Array.from(out.step), [10, 11, 12, 12, 13, 14, 15]);
  // every drawn stretch (between gaps) goes forward in x
  let prev = -Infinity;
  for (let i = 0; i < out.x.length; i++) {
    if (Number.isNaN(out.y[i])) prev = -Infinity;
    else {
      assert.ok(out.x[i] >= prev);
      prev = out.x[i];
    }
  }
  assert.equal(breakBackwards(s), out, "kept per series");
  const forward = series([0, 1, 1, 2], [1, 2, 3, 4]);
  assert.equal(breakBackwards(forward), forward, "a forward series is drawn as it is");
});

test("scalarTraces applies the prepare step to each run's series", () => {
  const full = new Map([["a", series([0, 2, 1], [1, 2, 3])]]);
  const out = scalarTraces({ runs: ["a"], full, smoothing: 0, xAxis: "wall", unit: null, colorOf: () => "#000000", prepare: breakBackwards });
  assert.equal(out.traces[0].x.length, 4);
  const plain = scalarTraces({ runs: ["a"], full, smoothing: 0, xAxis: "step", unit: null, colorOf: () => "#000000" });
  assert.equal(plain.traces[0].x.length, 3);
});

test("best points: one marker per run with a place on the axis, in the run's colour, listed in hover", () => {
  const best = bestOf({ series: [{ run: "a", best: { value: 0.25, step: 40, x: 40 } }, { run: "b", best: { value: "-Infinity", step: 7, x: 7 } }, { run: "c", best: { value: 1, step: 0, x: null } }, { run: "d", best: null }] });
  assert.deepEqual([...best.keys()], ["a", "b", "c"]);
  const trace = bestTrace({ runs: ["a", "b", "c", "d"], best, mode: "min", xAxis: "step", unit: null, colorOf: (run) => `#00000${run === "a" ? 1 : 2}` });
  assert.equal(trace.mode, "markers");
  assert.equal(trace.marker.symbol, "star");
  assert.deepEqual(trace.x, [40, 7]);
  assert.deepEqual(trace.y, [0.25, -Infinity]);
  assert.deepEqual(trace.marker.color, ["#000001", "#000002"]);
  assert.deepEqual(trace.meta, ["a", "b"]);
  assert.match(trace.text[0], /^a: min <b>0\.25<\/b> at step 40$/);
  assert.match(trace.text[1], /-Infinity/);
  assert.equal(bestTrace({ runs: ["c"], best, mode: "min", xAxis: "step", colorOf: () => "#000000" }), null);
  const hostile = bestTrace({ runs: ["<b>x</b>"], best: new Map([["<b>x</b>", { value: 1, step: 1, x: 1 }]]), mode: "max", xAxis: "step", colorOf: () => "#000000" });
  assert.doesNotMatch(hostile.text[0], /<b>x<\/b>/, "run names are text, never markup");
});

test("focus fades every other run's lines and markers", () => {
  const full = new Map([["a", series([0, 1], [1, 2])], ["b", series([0, 1], [3, 4])]]);
  const drawn = scalarTraces({ runs: ["a", "b"], full, smoothing: 0.5, xAxis: "step", unit: null, colorOf: () => "#000000" });
  const best = bestTrace({ runs: ["a", "b"], best: new Map([["a", { value: 1, step: 0, x: 0 }], ["b", { value: 3, step: 0, x: 0 }]]), mode: "min", xAxis: "step", colorOf: () => "#000000" });
  applyFocus({ ...drawn, best }, "b");
  const [rawA, smoothA, rawB, smoothB] = drawn.traces;
  assert.equal(smoothA.opacity, FADED);
  assert.equal(rawA.opacity, 0.25 * FADED);
  assert.equal(smoothB.opacity, undefined);
  assert.equal(rawB.opacity, 0.25);
  assert.ok(smoothB.line.width > smoothA.line.width);
  assert.deepEqual(best.marker.opacity, [FADED, 1]);
  const again = scalarTraces({ runs: ["a"], full, smoothing: 0.5, xAxis: "step", unit: null, colorOf: () => "#000000" });
  applyFocus({ ...again, best: null }, "not-drawn");
  assert.equal(again.traces[1].opacity, undefined, "a focused run not on this card fades nothing");
});

test("a click means the run whose line is nearest in y; clicking the focused run clears it", () => {
  const points = [{ curveNumber: 1, y: 10 }, { curveNumber: 3, y: 20 }, { curveNumber: 4, y: 19 }];
  const runOf = (curve) => ({ 1: "a", 3: "b" })[curve];
  const pixelOf = (pt) => 200 - pt.y * 5; // y 10 -> 150 px, 20 -> 100 px
  assert.equal(clickedRun(points, 148, pixelOf, runOf), "a");
  assert.equal(clickedRun(points, 104, pixelOf, runOf), "b", "the marker trace (curve 4) is not a run");
  assert.equal(clickedRun([], 10, pixelOf, runOf), null);
  assert.equal(nextFocus(null, "a"), "a");
  assert.equal(nextFocus("a", "b"), "b");
  assert.equal(nextFocus("a", "a"), null);
});

test("the line under the title names runs the axis cannot place", () => {
  const full = new Map([["a", series([0, 1], [1, 2])]]);
  const text = subText({ runs: ["a", "b"], full, zoom: null, zoomData: null, points: 0, absent: ["b", "other"], dropped: 1, xAxis: "epoch", loading: false });
  assert.equal(text, "2 points · no epoch: b · 1 off the axis");
  assert.equal(subText({ runs: [], full, absent: [], xAxis: "step" }), "no run selected has this tag");
  assert.equal(subText({ runs: ["a"], full: null, points: 12, xAxis: "step", loading: true }), "12 points · loading…");
});
