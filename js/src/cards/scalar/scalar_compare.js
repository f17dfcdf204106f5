// Comparing runs on a scalar card, as pure functions of its state (no DOM): each run's best
// point as a marker (the `best` trait; the kernel finds it over every point), the focused run
// on top with the others faded (`focus`), lines broken where x goes back (`partition_x`,
// TensorBoard's "Partition non-monotonic X axis"), and the run a click on the chart means.

import { escapePlotly } from "../../format.js";
import { toDisplayValue } from "../../xaxis.js";

/** The traits these settings live in: a change redraws scalar cards (their kind's redrawOn). */
export const COMPARE_TRAITS = ["best", "focus", "partition_x"];
/** How strongly a run that is not focused is drawn (multiplies its lines' opacity). */
export const FADED = 0.15;
const BEST_SYMBOL = "star";

/** The `best` trait as the kernel takes it in requests: "min", "max" or null. */
export function bestMode(board) {
  const mode = board.model.get("best");
  return mode === "min" || mode === "max" ? mode : null;
}

const BROKEN = new WeakMap(); // series -> the same with breaks (kept while the series is)

/**
 * `s` ({x, y, step, wall?, ...}) with a gap wherever x goes back: a point with y NaN (plotly
 * draws no line through it) between the two sides, so that no line is drawn backwards and each
 * forward run of points is its own segment. The gap takes the x, step and time of the point
 * before it, so that x-ordered lookups still find the real points. `s` itself when x never goes
 * back. Smoothing carries on across a gap (TensorBoard restarts it per segment).
 */
export function breakBackwards(s) {
  if (!s) return s;
  const known = BROKEN.get(s);
  if (known) return known;
  const n = s.x.length;
  const breaks = [];
  for (let i = 1; i < n; i++) if (s.x[i] < s.x[i - 1]) breaks.push(i);
  if (!breaks.length) return s;
  const m = n + breaks.length;
  const make = () => new Float64Array(m);
  const out = { ...s, x: make(), y: make(), step: make(), sent: s.sent };
  if (s.wall) out.wall = make();
  let j = 0;
  let b = 0;
  for (let i = 0; i < n; i++) {
    if (b < breaks.length && breaks[b] === i) {
      out.x[j] = s.x[i - 1];
      out.y[j] = NaN;
      out.step[j] = Number(s.step[i - 1]);
      if (s.wall) out.wall[j] = s.wall[i - 1];
      j++;
      b++;
    }
    out.x[j] = s.x[i];
    out.y[j] = s.y[i];
    out.step[j] = Number(s.step[i]);
    if (s.wall) out.wall[j] = s.wall[i];
    j++;
  }
  BROKEN.set(s, out);
  return out;
}

/** A best value from a reply (a number, or "Infinity"/"-Infinity" as JSON spells them). */
function bestValue(v) {
  return typeof v === "number" ? v : Number(v);
}

/**
 * One marker trace with each run's best point (`best`: Map run -> {value, step, x}), in the
 * run's colour; runs whose best point has no x on this axis are left out. Hover lists it.
 * @returns {object | null} the trace, or null when there is no point to mark
 */
export function bestTrace({ runs, best, mode, xAxis, unit, colorOf }) {
  const x = [];
  const y = [];
  const text = [];
  const color = [];
  const names = [];
  for (const run of runs) {
    const b = best && best.get(run);
    if (!b || b.x === null || b.x === undefined) continue;
    const value = bestValue(b.value);
    x.push(toDisplayValue(b.x, xAxis, unit));
    y.push(value);
    color.push(colorOf(run));
    names.push(run);
    text.push(`${escapePlotly(run)}: ${mode} <b>${Number.isFinite(value) ? value.toPrecision(4).replace(/\.?0+(e|$)/, "$1") : value}</b> at step ${Number(b.step).toLocaleString("en-US")}`);
  }
  if (!x.length) return null;
  return {
    type: "scatter",
    mode: "markers",
    name: `best (${mode})`,
    x,
    y,
    text,
    meta: names,
    marker: { symbol: BEST_SYMBOL, size: 11, color, line: { width: 1, color: "rgba(0,0,0,0.55)" } },
    hovertemplate: "★ %{text}<extra></extra>",
    showlegend: false,
  };
}

/**
 * The drawn traces with every run but `focus` faded, and the focused run's smoothed line
 * thicker. `shown`/`smoothedTraces` as scalarTraces gives them (a raw line precedes each
 * smoothed one); `best` is the best marker trace, if drawn. Changes the traces in place.
 */
export function applyFocus({ traces, shown, smoothedTraces, best }, focus) {
  if (!focus || !shown.some((line) => line.run === focus)) return;
  shown.forEach((line, i) => {
    const smoothed = traces[smoothedTraces[i]];
    const raw = traces[smoothedTraces[i] - 1];
    if (line.run === focus) {
      smoothed.line = { ...smoothed.line, width: 2.5 };
      return;
    }
    smoothed.opacity = FADED;
    if (raw) raw.opacity = (raw.opacity ?? 1) * FADED;
  });
  if (best) best.marker = { ...best.marker, opacity: best.meta.map((run) => (run === focus ? 1 : FADED)) };
}

/** Best points of a "series" reply: Map run -> {value, step, x} (runs without one left out). */
export function bestOf(msg) {
  const out = new Map();
  for (const entry of (msg && msg.series) || []) if (entry.best) out.set(entry.run, entry.best);
  return out;
}

/**
 * The run a click on a chart means: of the clicked points (plotly's, one per hovered trace in
 * unified hover), the one on a run's line nearest the click in y (`pixelOf(point)` -> its y
 * in pixels). `runOfTrace(curveNumber)` names a trace's run (undefined for other traces).
 */
export function clickedRun(points, clickY, pixelOf, runOfTrace) {
  let best = null;
  let distance = Infinity;
  for (const pt of points || []) {
    const run = runOfTrace(pt.curveNumber);
    if (run === undefined || !Number.isFinite(pt.y)) continue;
    const d = Number.isFinite(clickY) ? Math.abs(pixelOf(pt) - clickY) : 0;
    if (d < distance) {
      distance = d;
      best = run;
    }
  }
  return best;
}
