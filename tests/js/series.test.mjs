// A card's data: series replies, zoomed points spliced into the overview, counts, x axes.
import test from "node:test";
import assert from "node:assert/strict";
import { countPoints, fromMessage, hoverData, isNonDecreasing, maxX, mergeZoom } from "../../js/src/series.js";
import { escapePlotly, fileNameFor, formatCount } from "../../js/src/format.js";
import { fromDisplayRange, parsePlotlyDate, relativeUnit, toDisplayRange, toDisplayX, xAxisLayout } from "../../js/src/xaxis.js";
import { PALETTE, normalizeHex, runColor } from "../../js/src/core/colors.js";

const f64 = (a) => new Float64Array(a);

function series(x, y, extra = {}) {
  return { x: f64(x), y: f64(y), step: f64(x), total: x.length, sent: x.length, exact: true, ...extra };
}

test("fromMessage turns decoded arrays into Float64Arrays", () => {
  const s = fromMessage({ run: "a", total: 10, sent: 3, exact: false, x: f64([0, 5, 9]), y: f64([1, 2, 3]), step: new BigInt64Array([0n, 5n, 9n]) });
  assert.ok(s.step instanceof Float64Array);
  assert.deepEqual([...s.step], [0, 5, 9]);
  assert.equal(s.total, 10);
  assert.equal(s.sent, 3);
  assert.equal(s.exact, false);
  assert.equal(s.wall, undefined);
  const w = fromMessage({ x: f64([1]), y: f64([1]), step: new BigInt64Array([1n]), wall_time: f64([1.7e9]) });
  assert.deepEqual([...w.wall], [1.7e9]);
  assert.equal(w.total, 1);
});

test("mergeZoom splices the exact points of the range into the overview", () => {
  const full = series([0, 10, 20, 30, 40], [0, 1, 2, 3, 4], { total: 41, sent: 5, exact: false });
  const part = series([11, 12, 13, 14, 15, 16, 17, 18, 19, 20], [9, 9, 9, 9, 9, 9, 9, 9, 9, 9], { total: 10, sent: 10 });
  const m = mergeZoom(full, part, [11, 20]);
  assert.deepEqual([...m.x], [0, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 30, 40]);
  assert.equal(m.y[2], 9);
  assert.equal(m.total, 41);
  assert.equal(m.sent, 5 - 1 + 10);
  assert.equal(mergeZoom(full, null, [11, 20]), full);
});

test("mergeZoom with an x that goes back (wall time of a restart) keeps only the zoomed part", () => {
  const full = series([0, 10, 5, 30], [0, 1, 2, 3]);
  const part = series([6, 7], [1, 1]);
  assert.equal(isNonDecreasing(full.x), false);
  assert.equal(mergeZoom(full, part, [6, 7]), part);
});

test("countPoints sums the runs asked for", () => {
  const byRun = new Map([
    ["a", series([1, 2], [1, 2], { total: 100, sent: 2, exact: false })],
    ["b", series([1], [1])],
  ]);
  assert.deepEqual(countPoints(byRun, ["a", "b", "missing"]), { total: 101, sent: 3, exact: false });
  assert.deepEqual(countPoints(byRun, ["b"]), { total: 1, sent: 1, exact: true });
  assert.equal(maxX(byRun), 2);
});

test("hover data: value and step per point, wall time when sent", () => {
  assert.deepEqual(hoverData(series([3], [0.5])), [[0.5, 3]]);
  assert.deepEqual(hoverData({ ...series([3], [0.5]), wall: f64([10]) }, (t) => `t=${t}`), [[0.5, 3, "t=10"]]);
});

test("relative time units", () => {
  assert.equal(relativeUnit(90).name, "s");
  assert.equal(relativeUnit(3600).name, "min");
  assert.equal(relativeUnit(10 * 3600).name, "h");
  assert.equal(relativeUnit(30 * 86400).name, "d");
  assert.equal(relativeUnit(NaN).name, "s");
  const unit = relativeUnit(7200);
  assert.deepEqual([...toDisplayX(f64([0, 60, 7200]), "relative", unit)], [0, 1, 120]);
  assert.deepEqual(fromDisplayRange([1, 120], "relative", unit), [60, 7200]);
  assert.deepEqual(toDisplayRange([60, 7200], "relative", unit), [1, 120]);
  assert.equal(xAxisLayout("relative", unit).ticksuffix, " min");
});

test("steps pass through, ranges are ordered", () => {
  const x = f64([1, 2]);
  assert.equal(toDisplayX(x, "step"), x);
  assert.deepEqual(fromDisplayRange([20, 10], "step"), [10, 20]);
  assert.equal(fromDisplayRange(["a", 1], "step"), null);
  assert.equal(fromDisplayRange([1], "step"), null);
});

test("wall time: local clock on a date axis, and back from plotly's date text", () => {
  const t = 1700000000.25; // epoch seconds
  const shown = toDisplayX(f64([t]), "wall")[0];
  const local = new Date(t * 1000);
  const asUtc = new Date(shown);
  assert.equal(asUtc.getUTCHours(), local.getHours());
  assert.equal(asUtc.getUTCMinutes(), local.getMinutes());
  assert.equal(parsePlotlyDate("2023-11-14 22:13:20.25"), Date.UTC(2023, 10, 14, 22, 13, 20, 250));
  assert.equal(parsePlotlyDate("2023-11-14"), Date.UTC(2023, 10, 14));
  assert.equal(parsePlotlyDate("2023-11-14 22:13"), Date.UTC(2023, 10, 14, 22, 13));
  assert.ok(Number.isNaN(parsePlotlyDate("yesterday")));
  const text = new Date(shown).toISOString().replace("T", " ").replace("Z", "");
  const [a, b] = fromDisplayRange([text, shown + 1000], "wall");
  assert.ok(Math.abs(a - t) < 1e-6);
  assert.ok(Math.abs(b - (t + 1)) < 1e-6);
  assert.equal(xAxisLayout("wall").type, "date");
});

test("plotly text is escaped, file names are safe", () => {
  assert.equal(escapePlotly("<b>run</b> & %{y}"), "&lt;b&gt;run&lt;/b&gt; &amp; &#37;{y}");
  assert.equal(fileNameFor("loss/train", "csv"), "loss_train.csv");
  assert.equal(fileNameFor("../..", "json"), "scalars.json");
  assert.equal(fileNameFor("eval/acc@top-1", "csv"), "eval_acc_top-1.csv");
  assert.equal(formatCount(1234567), "1,234,567");
});

test("run colours: trait first, then the palette", () => {
  assert.equal(runColor("a", { a: "#ABC" }, 0), "#aabbcc");
  assert.equal(runColor("a", { a: "red" }, 2), PALETTE[2]);
  assert.equal(runColor("b", {}, 8), PALETTE[1]);
  assert.equal(normalizeHex("#a1b2c3"), "#a1b2c3");
  assert.equal(normalizeHex("javascript:1"), null);
});
