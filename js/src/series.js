// One card's data: per run {x, y, step, total, sent, exact} from "series" replies; the exact
// points of a zoomed range spliced into the overview; point counts. Pure functions: no DOM.

import { toNumbers } from "./core/codec.js";

/** A decoded "series" entry -> {x, y, step, wall?, total, sent, exact} with Float64Arrays. */
export function fromMessage(entry) {
  const y = toNumbers(entry.y);
  const out = {
    x: toNumbers(entry.x),
    y,
    step: toNumbers(entry.step),
    total: Number.isFinite(entry.total) ? entry.total : y.length,
    sent: Number.isFinite(entry.sent) ? entry.sent : y.length,
    exact: entry.exact !== false,
  };
  if (entry.wall_time) out.wall = toNumbers(entry.wall_time);
  return out;
}

export function isNonDecreasing(x) {
  for (let i = 1; i < x.length; i++) if (!(x[i] >= x[i - 1])) return false;
  return true;
}

/** First index with x[i] >= v (x ascending). */
export function lowerBound(x, v) {
  let lo = 0;
  let hi = x.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index with x[i] > v (x ascending). */
export function upperBound(x, v) {
  let lo = 0;
  let hi = x.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function splice(a, i0, middle, i1) {
  const out = new Float64Array(i0 + middle.length + (a.length - i1));
  out.set(a.subarray(0, i0), 0);
  out.set(middle, i0);
  out.set(a.subarray(i1), i0 + middle.length);
  return out;
}

/**
 * The overview `full` with its points in `range` replaced by `part` (the exact points of the
 * range), so that panning out of the zoom still shows data. When the overview's x is not in
 * order (wall time of a restarted run), only `part` is returned.
 */
export function mergeZoom(full, part, range) {
  if (!part) return full;
  if (!full || !range || !isNonDecreasing(full.x)) return part;
  const i0 = lowerBound(full.x, range[0]);
  const i1 = Math.max(i0, upperBound(full.x, range[1]));
  const out = {
    x: splice(full.x, i0, part.x, i1),
    y: splice(full.y, i0, part.y, i1),
    step: splice(full.step, i0, part.step, i1),
    total: full.total,
    sent: full.sent - (i1 - i0) + part.sent,
    exact: full.exact && part.exact,
  };
  if (full.wall && part.wall) out.wall = splice(full.wall, i0, part.wall, i1);
  return out;
}

/** {total, sent, exact} summed over `runs` of a Map run -> series (missing runs skipped). */
export function countPoints(byRun, runs) {
  let total = 0;
  let sent = 0;
  let exact = true;
  for (const run of runs) {
    const s = byRun && byRun.get(run);
    if (!s) continue;
    total += s.total;
    sent += s.sent;
    exact = exact && s.exact && s.sent >= s.total;
  }
  return { total, sent, exact };
}

/** Largest finite x over a Map run -> series (0 when there is none). */
export function maxX(byRun) {
  let m = 0;
  for (const s of byRun ? byRun.values() : []) {
    for (let i = 0; i < s.x.length; i++) if (Number.isFinite(s.x[i]) && s.x[i] > m) m = s.x[i];
  }
  return m;
}

/**
 * plotly customdata for hover: one [value, step] per point, plus the wall time as text from
 * `formatTime(epochSeconds)` when the kernel sent wall_time.
 */
export function hoverData(s, formatTime = String) {
  const n = s.y.length;
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = s.wall ? [s.y[i], s.step[i], formatTime(s.wall[i])] : [s.y[i], s.step[i]];
  return out;
}
