// Tick values and labels for axes whose ticks plotly cannot choose by itself: the time axis of
// the histogram offset view runs beyond the data (room for the first ridge), and only the data's
// span should be labelled. Pure functions: no DOM.

import { formatCount } from "../../format.js";

/** About `count` round values (1, 2, 5 times a power of ten) from lo to hi, both included if round. */
export function niceTicks(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const error = raw / power; // d3's choice of 1, 2, 5 or 10 times the power
  const step = power * (error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.SQRT2 ? 2 : 1);
  const out = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let i = first; i * step <= hi + step * 1e-9; i++) out.push(Number((i * step).toPrecision(12)));
  return out;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WALL_STEPS = [1, 2, 5, 10, 15, 30].map((s) => s * SECOND)
  .concat([1, 2, 5, 10, 15, 30].map((m) => m * MINUTE), [1, 2, 3, 6, 12].map((h) => h * HOUR), [1, 2, 7, 14, 30].map((d) => d * DAY));

/** Round times (ms on plotly's date scale) from lo to hi: whole seconds, minutes, hours or days. */
export function wallTicks(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  if (raw > WALL_STEPS[WALL_STEPS.length - 1]) return niceTicks(lo, hi, count);
  const step = WALL_STEPS.reduce((best, s) => (Math.abs(Math.log(s / raw)) < Math.abs(Math.log(best / raw)) ? s : best));
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) out.push(t);
  return out;
}

const pad = (v) => String(v).padStart(2, "0");

/** A wall-time tick (ms on plotly's date scale: local time read as UTC) as text. */
export function wallLabel(ms, spanMs) {
  const d = new Date(ms);
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  const date = `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (spanMs >= 2 * DAY) return `${date} ${time}`;
  if (spanMs < 10 * MINUTE) return `${time}:${pad(d.getUTCSeconds())}`;
  return time;
}

/**
 * {tickvals, ticktext} for a time axis (display units of `axis`, see xaxis.js) spanning lo..hi;
 * `suffix` follows relative times ("min").
 */
export function timeTicks(lo, hi, axis, suffix = "", count = 5) {
  if (axis === "wall") {
    const vals = wallTicks(lo, hi, count);
    return { tickvals: vals, ticktext: vals.map((v) => wallLabel(v, Math.abs(hi - lo))) };
  }
  let vals = niceTicks(lo, hi, count);
  if (axis === "step") vals = vals.filter(Number.isInteger);
  const text = axis === "step" ? (v) => formatCount(v) : (v) => `${Number(v.toPrecision(6))}${suffix ? ` ${suffix}` : ""}`;
  return { tickvals: vals, ticktext: vals.map(text) };
}
