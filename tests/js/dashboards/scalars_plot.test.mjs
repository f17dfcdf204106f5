// A scalar card's plotly input: a raw and a smoothed line per run, the y range, the axes, and a
// relayout event back to a zoom.
import test from "node:test";
import assert from "node:assert/strict";
import { hoverTemplate, relayoutRange, scalarLayout, scalarTraces, yRange, zoomFromRelayout } from "../../../js/src/cards/scalar/scalars_plot.js";

const series = (x, y) => ({ x: Float64Array.from(x), y: Float64Array.from(y), step: BigInt64Array.from(x.map(BigInt)), total: x.length, sent: x.length, exact: true });

test("a faint raw line and a smoothed line per run held, in the runs' order", () => {
  const full = new Map([["b", series([0, 1, 2], [1, 3, 5])], ["a", series([0, 1], [2, 2])]]);
  const out = scalarTraces({ runs: ["a", "b", "gone"], full, zoom: null, zoomData: null, smoothing: 0.5, xAxis: "step", unit: null, colorOf: (run) => (run === "a" ? "#000001" : "#000002") });
  assert.equal(out.traces.length, 4);
  assert.deepEqual(out.smoothedTraces, [1, 3]);
  assert.deepEqual(out.shown.map((l) => l.run), ["a", "b"]);
  assert.equal(out.traces[0].opacity, 0.25);
  assert.equal(out.traces[0].hoverinfo, "skip");
  assert.equal(out.traces[1].line.color, "#000001");
  assert.deepEqual(Array.from(out.traces[2].y), [1, 3, 5], "raw values");
  assert.ok(out.traces[3].y[2] < 5, "smoothed values lag the raw ones");
  assert.deepEqual(Array.from(out.lines[1].y), Array.from(out.traces[3].y), "the y range follows the smoothed line");
  assert.equal(out.on, true);
  const off = scalarTraces({ runs: ["b"], full, smoothing: 0, xAxis: "step", colorOf: () => "#000000" });
  assert.deepEqual(Array.from(off.lines[0].y), [1, 3, 5]);
  assert.equal(off.on, false);
});

test("hover text gives the raw value only with smoothing on, and the time on any axis", () => {
  const line = { name: "a", wall: true };
  assert.match(hoverTemplate(line, true), /\(value %\{customdata\[0\]/);
  assert.doesNotMatch(hoverTemplate(line, false), /value/);
  assert.match(hoverTemplate(line, false), /customdata\[2\]/);
  assert.doesNotMatch(hoverTemplate({ name: "a", wall: false }, false), /customdata\[2\]/);
});

test("y range: a y zoom wins (log10 on a log axis), else the lines' domain", () => {
  const lines = [{ x: Float64Array.from([0, 1, 2]), y: Float64Array.from([1, 10, 100]) }];
  assert.deepEqual(yRange(lines, { zoom: { x: null, y: [2, 3] }, logY: false, ignoreOutliers: true }), [2, 3]);
  assert.deepEqual(yRange(lines, { zoom: { x: null, y: [10, 100] }, logY: true, ignoreOutliers: true }), [1, 2]);
  assert.equal(yRange(lines, { zoom: { x: null, y: [-1, 100] }, logY: true, ignoreOutliers: true }), null);
  const [lo, hi] = yRange(lines, { zoom: null, logY: false, ignoreOutliers: false });
  assert.ok(lo <= 1 && hi >= 100);
  const layout = scalarLayout({ height: 230 }, { xAxis: "step", unit: null, zoom: { x: [1, 2], y: null }, logY: true, range: [0, 2] });
  assert.equal(layout.height, 230);
  assert.deepEqual(layout.xaxis.range, [1, 2]);
  assert.equal(layout.yaxis.type, "log");
  assert.deepEqual(layout.yaxis.range, [0, 2]);
  assert.equal(scalarLayout({}, { xAxis: "step", zoom: null, logY: false, range: null }).xaxis.autorange, true);
});

test("relayout events: box zoom, y only, autorange, and events about something else", () => {
  assert.deepEqual(relayoutRange({ "xaxis.range": [1, 2, 3] }, "xaxis"), [1, 2]);
  assert.deepEqual(relayoutRange({ "xaxis.range[0]": 1, "xaxis.range[1]": 4 }, "xaxis"), [1, 4]);
  assert.equal(relayoutRange({ "xaxis.autorange": true }, "xaxis"), null);
  const opts = { xAxis: "step", unit: null, logY: false, zoom: null };
  assert.deepEqual(zoomFromRelayout({ "xaxis.range[0]": 5, "xaxis.range[1]": 2, "yaxis.range[0]": 0, "yaxis.range[1]": 1 }, opts), { x: [2, 5], y: [0, 1] });
  assert.deepEqual(zoomFromRelayout({ "yaxis.range": [0, 2] }, { ...opts, logY: true, zoom: { x: [1, 3], y: null } }), { x: [1, 3], y: [1, 100] });
  assert.equal(zoomFromRelayout({ dragmode: "pan" }, opts), undefined);
  assert.equal(zoomFromRelayout({ "yaxis.range": ["a", "b"] }, opts), null);
});
