// Histogram geometry (offset ridges, overlay lines) and the colour ramp from light to dark.
import test from "node:test";
import assert from "node:assert/strict";
import { PALETTE, hexToRgb, rampColor, rgbToHcl } from "../../js/src/core/colors.js";
import {
  SLICE_FRACTION,
  centroids,
  drawOrder,
  fromHistogramMessage,
  offsetGeometry,
  overlayGeometry,
  thinIndices,
} from "../../js/src/dashboards/histograms/histogram.js";

const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps * Math.max(1, Math.abs(a), Math.abs(b)), `${a} != ${b}`);

// Three steps of a 4-bin histogram over [0, 4].
const edges = Float64Array.from([0, 1, 2, 3, 4]);
const counts = Float64Array.from([
  1, 2, 0, 0, // step 0
  0, 4, 8, 0, // step 10
  0, 0, 2, 6, // step 20
]);
const spec = { times: Float64Array.from([0, 10, 20]), counts, bins: 4, edges };

test("a decoded reply: S steps of B bins", () => {
  const h = fromHistogramMessage({ steps: BigInt64Array.from([0n, 10n, 20n]), x: Float64Array.from([0, 10, 20]), edges, counts });
  assert.equal(h.bins, 4);
  assert.deepEqual(Array.from(h.steps), [0, 10, 20]);
  const empty = fromHistogramMessage({});
  assert.equal(empty.steps.length, 0);
  assert.equal(empty.bins, 0);
  assert.deepEqual(Array.from(centroids(edges)), [0.5, 1.5, 2.5, 3.5]);
});

test("offset: each ridge stands on its time and rises (upwards = earlier) by count / max * height", () => {
  const g = offsetGeometry(spec);
  assert.equal(g.t0, 0);
  assert.equal(g.t1, 20);
  // A full ridge takes SLICE_FRACTION of the chart, the time span the rest (TensorBoard's 1 / 2.5).
  close(g.height, (20 * SLICE_FRACTION) / (1 - SLICE_FRACTION));
  assert.deepEqual(g.ridges.map((r) => r.t), [0, 10, 20], "earliest first: drawn behind");
  const r = g.ridges[1];
  assert.deepEqual(r.x, [0.5, 0.5, 1.5, 2.5, 3.5, 3.5], "bin centres, closed to the baseline at both ends");
  const expected = [10, 10 - (0 / 8) * g.height, 10 - (4 / 8) * g.height, 10 - (8 / 8) * g.height, 10, 10];
  r.y.forEach((y, i) => close(y, expected[i]));
  assert.deepEqual(r.bin, [0, 0, 1, 2, 3, 3]);
  // The tallest bin reaches exactly one ridge height above its baseline.
  close(Math.min(...r.y), 10 - g.height);
  // The y range is reversed (bottom first): the last baseline at the bottom, room for the
  // first step's ridge at the top.
  assert.ok(g.range[0] > 20);
  assert.ok(g.range[1] < 0 - g.height);
  // Later ridges are lower on the chart (larger y on a reversed axis).
  assert.ok(g.ridges[2].y[0] > g.ridges[1].y[0] && g.ridges[1].y[0] > g.ridges[0].y[0]);
});

test("offset: time fractions run from 0 (first step) to 1 (last step)", () => {
  assert.deepEqual(offsetGeometry(spec).ridges.map((r) => r.fraction), [0, 0.5, 1]);
  const one = offsetGeometry({ ...spec, times: Float64Array.from([5]), counts: counts.subarray(0, 4) });
  assert.equal(one.ridges.length, 1);
  assert.equal(one.ridges[0].fraction, 1);
  assert.ok(one.height > 0 && one.range[0] > one.range[1]);
});

test("steps are drawn in time order (wall time need not follow the index) and thinned evenly", () => {
  assert.deepEqual(drawOrder(Float64Array.from([30, 10, NaN, 20])), [1, 3, 0]);
  assert.deepEqual(thinIndices(5, 10), [0, 1, 2, 3, 4]);
  const t = thinIndices(1000, 100);
  assert.equal(t.length, 100);
  assert.equal(t[0], 0);
  assert.equal(t[99], 999);
  assert.ok(t.every((v, i) => i === 0 || v > t[i - 1]));
  const many = { times: Float64Array.from({ length: 500 }, (_, i) => i), counts: new Float64Array(500 * 4).fill(1), bins: 4, edges };
  assert.equal(offsetGeometry({ ...many, max: 50 }).ridges.length, 50);
});

test("overlay: every step on one count axis, baseline 0", () => {
  const g = overlayGeometry(spec);
  assert.equal(g.lines.length, 3);
  assert.deepEqual(g.lines[2].y, [0, 0, 0, 2, 6, 0]);
  assert.deepEqual(g.lines.map((l) => l.fraction), [0, 0.5, 1]);
});

test("colour ramp: the run's hue, light for early steps, dark for late ones (d3's brighter/darker)", () => {
  for (const color of PALETTE) {
    const hue = rgbToHcl(hexToRgb(color));
    const ramp = [0, 0.25, 0.5, 0.75, 1].map((t) => rgbToHcl(hexToRgb(rampColor(color, t))));
    for (let i = 1; i < ramp.length; i++) assert.ok(ramp[i].l < ramp[i - 1].l, `${color}: lightness falls with time`);
    // d3: brighter() adds 18 to L, darker() takes 18 (within rounding to 8 bits and gamut clipping).
    assert.ok(Math.abs(ramp[2].l - hue.l) < 1, `${color}: the middle step is the run colour`);
    assert.ok(ramp[0].l - hue.l > 12 && hue.l - ramp[4].l > 12, `${color}: ends about 18 apart`);
    const dh = Math.abs(ramp[4].h - hue.h);
    assert.ok(Math.min(dh, 360 - dh) < 8, `${color}: hue kept`);
  }
  assert.equal(rampColor(PALETTE[0], 0.5), PALETTE[0]);
  assert.match(rampColor("not a colour", 0), /^#[0-9a-f]{6}$/);
});
