// Custom-scalars charts' pure logic: a chart's lines per run, the series requests they need,
// colours, and a margin chart's band traces.
import test from "node:test";
import assert from "node:assert/strict";
import { chartLines, fade, lineColors, lineKey, marginTraces, tagRequests } from "../../../js/src/dashboards/custom_scalars/custom_scalars_plot.js";

const multiline = { kind: "multiline", tags: { a: ["loss/train", "loss/val"], b: ["loss/train"] } };
const margin = { kind: "margin", series: { a: [["val/mean", "val/lo", "val/hi"]], b: [["val/mean", null, null]] } };
const series = (y, x = y.map((_, i) => i)) => ({ x: Float64Array.from(x), y: Float64Array.from(y), step: Float64Array.from(x), total: y.length, sent: y.length, exact: true });

test("a multiline chart: a line per shown run and matching tag, in run order", () => {
  assert.deepEqual(chartLines(multiline, ["b", "a"]).map((l) => l.key), ["loss/train · b", "loss/train · a", "loss/val · a"]);
  assert.deepEqual(chartLines(multiline, ["c"]), []);
  const asks = tagRequests(chartLines(multiline, ["a", "b"]));
  assert.deepEqual([...asks], [["loss/train", ["a", "b"]], ["loss/val", ["a"]]]);
});

test("a margin chart asks for its value and both bounds; a run missing a bound has no band", () => {
  const lines = chartLines(margin, ["a", "b"]);
  assert.deepEqual(lines, [
    { key: "val/mean · a", run: "a", tag: "val/mean", lower: "val/lo", upper: "val/hi" },
    { key: "val/mean · b", run: "b", tag: "val/mean", lower: null, upper: null },
  ]);
  assert.deepEqual([...tagRequests(lines)], [["val/mean", ["a", "b"]], ["val/lo", ["a"]], ["val/hi", ["a"]]]);
  const full = new Map([
    [lineKey("val/mean", "a"), series([1, 2, 3])],
    [lineKey("val/lo", "a"), series([0.5, 1.5, 2.5])],
    [lineKey("val/hi", "a"), series([1.5, 2.5, 3.5])],
    [lineKey("val/mean", "b"), series([4, 5])],
  ]);
  const drawn = marginTraces({
    lines, full, zoom: null, zoomData: null, smooth: (y) => y, smoothing: 0, xAxis: "step", unit: null,
    colorOf: (key) => (key.endsWith("a") ? "#ff0000" : "#00ff00"),
  });
  assert.deepEqual(drawn.traces.map((t) => t.name), ["val/mean · a upper", "val/mean · a lower", "val/mean · a", "val/mean · b"]);
  assert.deepEqual(Array.from(drawn.traces[0].y), [1.5, 2.5, 3.5]);
  assert.equal(drawn.traces[1].fill, "tonexty", "the lower bound fills up to the upper: the band");
  assert.equal(drawn.traces[1].fillcolor, "rgba(255,0,0,0.22)");
  assert.equal(drawn.traces[2].line.width, 1.5);
  assert.deepEqual(drawn.smoothedTraces, [0, 1, 2, 3], "value and band smooth alike");
  assert.equal(drawn.shown.length, 4);
});

test("margin lines are smoothed with the scalar cards' weight", () => {
  const lines = chartLines({ kind: "margin", series: { a: [["v", null, null]] } }, ["a"]);
  const full = new Map([[lineKey("v", "a"), series([0, 10])]]);
  const half = (y, w) => y.map((v) => v * w);
  const drawn = marginTraces({ lines, full, zoom: null, zoomData: null, smooth: half, smoothing: 0.5, xAxis: "step", unit: null, colorOf: () => "#000000" });
  assert.deepEqual(Array.from(drawn.traces[0].y), [0, 5]);
  assert.equal(drawn.on, true);
  assert.match(drawn.traces[0].hovertemplate, /value/);
});

test("colours: a run's colour when it has one line, else distinct palette colours", () => {
  const one = lineColors(chartLines(multiline, ["b"]), (run) => `run-${run}`, ["p0", "p1"]);
  assert.deepEqual([...one.values()], ["run-b"]);
  const several = lineColors(chartLines(multiline, ["a", "b"]), (run) => `run-${run}`, ["p0", "p1"]);
  assert.deepEqual([...several.values()], ["p0", "p1", "p0"]);
  assert.equal(fade("#0a0B0c", 0.5), "rgba(10,11,12,0.5)");
  assert.equal(fade("red", 0.5), "red");
});

test("hostile tag and run names are escaped in plotly names", () => {
  const lines = chartLines({ kind: "margin", series: { "<b>": [["<img src=x>", null, null]] } }, ["<b>"]);
  const full = new Map([[lineKey("<img src=x>", "<b>"), series([1])]]);
  const drawn = marginTraces({ lines, full, zoom: null, zoomData: null, smooth: (y) => y, smoothing: 0, xAxis: "step", unit: null, colorOf: () => "#000000" });
  assert.equal(drawn.traces[0].name, "&lt;img src=x&gt; · &lt;b&gt;");
});
