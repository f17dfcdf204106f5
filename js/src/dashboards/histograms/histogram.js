// Histogram geometry, as TensorBoard draws it (vz_histogram_timeseries), for plotly. Pure
// functions: no DOM.
//
// OFFSET: a ridge per step. The time axis runs down the chart (first step at the top, last at
// the bottom, so that older steps are behind); each step's curve through its bins' centres
// stands on a baseline at its time and rises by count / (largest count) times the ridge height,
// which is 0.4 of the chart (TensorBoard: outerHeight / 2.5) while the time span takes the rest.
// Ridges are filled and drawn from the first step to the last, so later ones hide earlier ones.
// OVERLAY: every step's curve on one count axis.
// Colours run from the run's colour made brighter (first step) to made darker (last step).

import { toNumbers } from "../../core/codec.js";

/** A full-height ridge's share of the chart's height (TensorBoard: sliceHeight = height / 2.5). */
export const SLICE_FRACTION = 0.4;
/** At most this many steps are drawn (evenly spread, first and last kept). */
export const MAX_CURVES = 100;

/** A decoded "histograms" series entry -> {steps, x, edges, counts (S x B, row-major), bins}. */
export function fromHistogramMessage(entry) {
  const edges = toNumbers(entry.edges);
  const counts = toNumbers(entry.counts);
  const steps = toNumbers(entry.steps);
  const bins = Math.max(0, edges.length - 1);
  const n = bins ? Math.min(steps.length, Math.floor(counts.length / bins)) : 0;
  return { steps: steps.subarray(0, n), x: toNumbers(entry.x).subarray(0, n), edges, counts, bins };
}

/** Centres of the bins between `edges`. */
export function centroids(edges) {
  const out = new Float64Array(Math.max(0, edges.length - 1));
  for (let i = 0; i < out.length; i++) out[i] = (edges[i] + edges[i + 1]) / 2;
  return out;
}

/** Indices of at most `max` of `n` items, evenly spread, the first and the last kept. */
export function thinIndices(n, max) {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  if (max <= 1) return [n - 1];
  const out = [];
  for (let k = 0; k < max; k++) {
    const i = Math.round((k * (n - 1)) / (max - 1));
    if (out[out.length - 1] !== i) out.push(i);
  }
  return out;
}

/** The steps to draw, earliest time first (drawn first: behind), at most `max` of them. */
export function drawOrder(times, max = MAX_CURVES) {
  const valid = [];
  for (let i = 0; i < times.length; i++) if (Number.isFinite(times[i])) valid.push(i);
  valid.sort((a, b) => times[a] - times[b] || a - b);
  return thinIndices(valid.length, max).map((k) => valid[k]);
}

function extent(values, order) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const i of order) {
    if (values[i] < lo) lo = values[i];
    if (values[i] > hi) hi = values[i];
  }
  return [lo, hi];
}

/** Largest finite count of the steps in `order`, or 1 when there is none above 0. */
export function maxCount(counts, bins, order) {
  let m = 0;
  for (const i of order) {
    for (let b = 0; b < bins; b++) {
      const c = counts[i * bins + b];
      if (Number.isFinite(c) && c > m) m = c;
    }
  }
  return m > 0 ? m : 1;
}

/**
 * One step's outline through its bins' centres, closed down to its baseline at both ends (as
 * TensorBoard's path): x and y (= base + sign * count * scale) with, for each point, the bin
 * it shows (the end points show the first and last bin).
 */
export function curve(centres, counts, row, bins, base, scale) {
  const x = new Array(bins + 2);
  const y = new Array(bins + 2);
  const bin = new Array(bins + 2);
  x[0] = centres[0];
  y[0] = base;
  bin[0] = 0;
  for (let b = 0; b < bins; b++) {
    const c = counts[row * bins + b];
    x[b + 1] = centres[b];
    y[b + 1] = base + (Number.isFinite(c) ? c : 0) * scale;
    bin[b + 1] = b;
  }
  x[bins + 1] = centres[bins - 1];
  y[bins + 1] = base;
  bin[bins + 1] = bins - 1;
  return { x, y, bin };
}

/** Where a step falls in the run's time span: 0 for the first, 1 for the last (1 if only one). */
export function timeFraction(t, t0, t1) {
  return t1 > t0 ? (t - t0) / (t1 - t0) : 1;
}

/**
 * OFFSET geometry. `times` are the steps' positions on the time axis (display units).
 * Returns {ridges: [{row, t, fraction, x, y, bin}] in drawing order, range: [bottom, top] for a
 * reversed plotly y axis, height (a full ridge's height in time units), t0, t1}.
 */
export function offsetGeometry({ times, counts, bins, edges, max = MAX_CURVES }) {
  const order = drawOrder(times, max);
  if (order.length === 0 || bins === 0) return { ridges: [], range: null, height: 0, t0: NaN, t1: NaN };
  const [t0, t1] = extent(times, order);
  const span = t1 - t0 || 1;
  const height = (span * SLICE_FRACTION) / (1 - SLICE_FRACTION);
  const scale = -height / maxCount(counts, bins, order); // up the chart = towards earlier times
  const centres = centroids(edges);
  const ridges = order.map((row) => ({
    row,
    t: times[row],
    fraction: timeFraction(times[row], t0, t1),
    ...curve(centres, counts, row, bins, times[row], scale),
  }));
  const pad = 0.02 * (span + height);
  return { ridges, range: [t1 + pad, t0 - height - pad], height, t0, t1 };
}

/** OVERLAY geometry: every drawn step's curve on one count axis, in drawing order. */
export function overlayGeometry({ times, counts, bins, edges, max = MAX_CURVES }) {
  const order = drawOrder(times, max);
  if (order.length === 0 || bins === 0) return { lines: [], t0: NaN, t1: NaN };
  const [t0, t1] = extent(times, order);
  const centres = centroids(edges);
  const lines = order.map((row) => ({
    row,
    t: times[row],
    fraction: timeFraction(times[row], t0, t1),
    ...curve(centres, counts, row, bins, 0, 1),
  }));
  return { lines, t0, t1 };
}
