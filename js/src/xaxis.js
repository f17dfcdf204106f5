// The x axis: protocol x values (step; seconds since the run's first event; epoch seconds) to
// what plotly draws, and zoom ranges back. Relative time is scaled to a readable unit; wall
// time becomes milliseconds shifted to local time, because plotly shows date axes as UTC.
// log_step, relative_step and a scalar tag's values (x_axis naming a tag) are drawn as they
// are; a log axis's range is in log10 units in plotly's layout.

import { X_AXES } from "./core/constants.js";

/** Whether the x axis names a scalar tag (its values are the x) rather than a fixed axis. */
export function isTagAxis(axis) {
  return typeof axis === "string" && !X_AXES.includes(axis);
}

/** The axis a chart that knows only the fixed axes (histograms, distributions) asks for. */
export function plainAxis(axis) {
  return isTagAxis(axis) ? "step" : axis;
}

const UNITS = [
  { name: "s", seconds: 1, upTo: 180 },
  { name: "min", seconds: 60, upTo: 3 * 3600 },
  { name: "h", seconds: 3600, upTo: 72 * 3600 },
  { name: "d", seconds: 86400, upTo: Infinity },
];

/** The unit to show relative times in, from the largest relative time in seconds. */
export function relativeUnit(maxSeconds) {
  const m = Number.isFinite(maxSeconds) ? Math.abs(maxSeconds) : 0;
  return UNITS.find((u) => m <= u.upTo);
}

/** Milliseconds to add to a UTC epoch-ms value so that plotly's UTC display reads local time. */
export function localShiftMs(ms) {
  const offset = new Date(ms).getTimezoneOffset();
  return Number.isFinite(offset) ? -offset * 60000 : 0;
}

/** One protocol x value -> plotly's. */
export function toDisplayValue(v, axis, unit) {
  if (axis === "relative") return v / (unit ? unit.seconds : 1);
  if (axis === "wall") {
    const ms = v * 1000;
    return ms + localShiftMs(ms);
  }
  return v;
}

/** Protocol x values (array-like) -> plotly's, as a Float64Array (the input itself for steps). */
export function toDisplayX(x, axis, unit) {
  if (axis !== "relative" && axis !== "wall") return x;
  const n = x.length;
  const out = new Float64Array(n);
  if (axis === "relative") {
    const k = unit ? unit.seconds : 1;
    for (let i = 0; i < n; i++) out[i] = x[i] / k;
    return out;
  }
  const first = n ? localShiftMs(x[0] * 1000) : 0;
  const last = n ? localShiftMs(x[n - 1] * 1000) : 0;
  for (let i = 0; i < n; i++) {
    const ms = x[i] * 1000;
    out[i] = ms + (first === last ? first : localShiftMs(ms));
  }
  return out;
}

/** plotly's date text ("2024-05-01 13:02:11.25", any prefix of it) -> epoch ms read as UTC. */
export function parsePlotlyDate(value) {
  if (typeof value === "number") return value;
  const m = /^(-?\d{4,})-(\d\d)(?:-(\d\d)(?:[ T](\d\d)(?::(\d\d)(?::(\d\d)(?:\.(\d+))?)?)?)?)?/.exec(
    String(value).trim(),
  );
  if (!m) return NaN;
  const [, y, mo, d = "01", h = "00", mi = "00", s = "00", frac = ""] = m;
  const ms = frac ? Number(`0.${frac}`) * 1000 : 0;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + ms;
}

/** One plotly x value (a number, or date text on a wall axis) -> the protocol's. */
export function fromDisplayValue(v, axis, unit) {
  if (axis === "relative") return Number(v) * (unit ? unit.seconds : 1);
  if (axis === "wall") {
    const shown = parsePlotlyDate(v);
    return (shown - localShiftMs(shown)) / 1000;
  }
  return Number(v);
}

/** A plotly x range -> the protocol's, or null when it is not two finite numbers in order. */
export function fromDisplayRange(range, axis, unit) {
  if (!Array.isArray(range) || range.length !== 2) return null;
  let [a, b] = range.map((v) => (axis === "log_step" ? Math.pow(10, Number(v)) : fromDisplayValue(v, axis, unit)));
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  if (a > b) [a, b] = [b, a];
  return [a, b];
}

/** A protocol x range -> plotly's (log10 units on the log axis). */
export function toDisplayRange(range, axis, unit) {
  if (axis === "log_step") return range.map((v) => Math.log10(Math.max(v, 1e-300)));
  return range.map((v) => toDisplayValue(v, axis, unit));
}

/** plotly axis attributes for the x axis. */
export function xAxisLayout(axis, unit) {
  if (axis === "wall") return { type: "date", hoverformat: "%Y-%m-%d %H:%M:%S" };
  if (axis === "relative") {
    const name = unit ? unit.name : "s";
    return { type: "linear", ticksuffix: ` ${name}`, hoverformat: ".4~f", exponentformat: "none" };
  }
  if (axis === "log_step") return { type: "log", hoverformat: ",d", exponentformat: "SI" };
  if (isTagAxis(axis)) return { type: "linear", hoverformat: ".4~g", exponentformat: "SI" };
  return { type: "linear", hoverformat: ",d", exponentformat: "SI" };
}
