// Distributions as TensorBoard draws them: the nine basis points of each step (min, the normal
// CDF at -1.5, -1, -0.5 sigma, the median, +0.5, +1, +1.5 sigma, max) as four nested bands, the
// outermost (min..max) first and lightest, each inner one drawn over it so that the middle is
// darkest, and the median as a line. Pure functions: no DOM.

import { toNumbers } from "../../core/codec.js";
import { BASIS_POINTS } from "../../core/constants.js";

/** The basis points of the kernel's columns (constants.json, as protocol.BASIS_POINTS). */
export { BASIS_POINTS };
/** What each column is, for hover text. */
export const LABELS = ["min", "7%", "16%", "31%", "median", "69%", "84%", "93%", "max"];
/** Column pairs of the bands, outermost first. */
export const BANDS = [
  [0, 8],
  [1, 7],
  [2, 6],
  [3, 5],
];
export const MEDIAN = 4;
/** Opacity of one band: nested bands add up to a darker middle. */
export const BAND_OPACITY = 0.22;

/** A decoded "distributions" series entry -> {steps, x, values (S x 9, row-major), n}. */
export function fromDistributionMessage(entry) {
  const values = toNumbers(entry.values);
  const steps = toNumbers(entry.steps);
  const x = toNumbers(entry.x);
  const n = Math.min(steps.length, x.length, Math.floor(values.length / 9));
  return { steps: steps.subarray(0, n), x: x.subarray(0, n), values, n };
}

/** Row indices with a finite x, in x order (stable). */
export function rowOrder(x, n = x.length) {
  const rows = [];
  for (let i = 0; i < n; i++) if (Number.isFinite(x[i])) rows.push(i);
  return rows.sort((a, b) => x[a] - x[b] || a - b);
}

/** Column `j` of the S x 9 `values` at `rows`. */
export function column(values, rows, j) {
  const out = new Float64Array(rows.length);
  rows.forEach((row, k) => (out[k] = values[row * 9 + j]));
  return out;
}

/**
 * The bands to draw, outermost first: [{lower, upper, lowerColumn, upperColumn, depth}] (depth
 * 0 is min..max), and the median line; values at `rows` (see rowOrder).
 */
export function distributionBands(values, rows) {
  return {
    bands: BANDS.map(([lo, hi], depth) => ({
      lower: column(values, rows, lo),
      upper: column(values, rows, hi),
      lowerColumn: lo,
      upperColumn: hi,
      depth,
    })),
    median: column(values, rows, MEDIAN),
  };
}
