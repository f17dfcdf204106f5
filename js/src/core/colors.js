// Run colours: TensorBoard's palette, the kernel's `run_colors` trait first.

import { PALETTE } from "./constants.js";

export { PALETTE };

const HEX = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

export function isHexColor(value) {
  return typeof value === "string" && HEX.test(value);
}

/** `#rgb` or `#rrggbb` -> `#rrggbb` (lower case), as `<input type=color>` needs. */
export function normalizeHex(value) {
  if (!isHexColor(value)) return null;
  const v = value.toLowerCase();
  return v.length === 4 ? `#${v[1]}${v[1]}${v[2]}${v[2]}${v[3]}${v[3]}` : v;
}

/** The colour of a run: run_colors[run] if it is a hex colour, else the palette by `index`. */
export function runColor(run, runColors, index) {
  const chosen = runColors && normalizeHex(runColors[run]);
  if (chosen) return chosen;
  const i = Number.isInteger(index) && index >= 0 ? index : 0;
  return PALETTE[i % PALETTE.length];
}

// ---------------------------------------------------------------------------- colour ramps
// TensorBoard colours a histogram's steps from its run colour made brighter (first step) to
// made darker (last step), interpolated in HCL: d3's hcl(c).brighter() and .darker() move the
// CIE lightness by 18 and keep hue and chroma. The conversions below are d3-color's (CIE Lab,
// D50 white point, sRGB companding).

const K = 18;
const XN = 0.96422;
const ZN = 0.82521;
const T0 = 4 / 29;
const T1 = 6 / 29;
const T2 = 3 * T1 * T1;
const T3 = T1 * T1 * T1;

const toLinear = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
const fromLinear = (v) => 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * Math.pow(v, 1 / 2.4) - 0.055);
const f = (t) => (t > T3 ? Math.cbrt(t) : t / T2 + T0);
const fInverse = (t) => (t > T1 ? t * t * t : T2 * (t - T0));

/** "#rrggbb" -> [r, g, b] (0..255), or null. */
export function hexToRgb(value) {
  const hex = normalizeHex(value);
  if (!hex) return null;
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

/** [r, g, b] (clamped and rounded) -> "#rrggbb". */
export function rgbToHex(rgb) {
  return `#${rgb.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, "0")).join("")}`;
}

/** [r, g, b] -> {h (degrees, NaN when grey), c, l}: CIE LCh as d3.hcl computes it. */
export function rgbToHcl([r8, g8, b8]) {
  const r = toLinear(r8);
  const g = toLinear(g8);
  const b = toLinear(b8);
  const y = f(0.2225045 * r + 0.7168786 * g + 0.0606169 * b);
  let x = y;
  let z = y;
  if (!(r === g && g === b)) {
    x = f((0.4360747 * r + 0.3850649 * g + 0.1430804 * b) / XN);
    z = f((0.0139322 * r + 0.0971045 * g + 0.7141733 * b) / ZN);
  }
  const l = 116 * y - 16;
  const a = 500 * (x - y);
  const bb = 200 * (y - z);
  const c = Math.sqrt(a * a + bb * bb);
  const h = c < 1e-6 ? NaN : (Math.atan2(bb, a) * 180) / Math.PI;
  return { h: h < 0 ? h + 360 : h, c, l };
}

/** {h, c, l} -> [r, g, b] (unclamped; rgbToHex clamps). */
export function hclToRgb({ h, c, l }) {
  const rad = (h * Math.PI) / 180;
  const a = Number.isNaN(h) ? 0 : Math.cos(rad) * c;
  const bb = Number.isNaN(h) ? 0 : Math.sin(rad) * c;
  let y = (l + 16) / 116;
  let x = y + a / 500;
  let z = y - bb / 200;
  x = XN * fInverse(x);
  y = fInverse(y);
  z = ZN * fInverse(z);
  return [
    fromLinear(3.1338561 * x - 1.6168667 * y - 0.4906146 * z),
    fromLinear(-0.9787684 * x + 1.9161415 * y + 0.033454 * z),
    fromLinear(0.0719453 * x - 0.2289914 * y + 1.4052427 * z),
  ];
}

/**
 * The colour of a step at `t` in [0, 1] of a run's time span: from the run colour made brighter
 * (t = 0, the first step: light) to made darker (t = 1, the last: dark), as TensorBoard's
 * histograms. An invalid colour is taken as the palette's first.
 */
export function rampColor(color, t) {
  const hcl = rgbToHcl(hexToRgb(color) || hexToRgb(PALETTE[0]));
  const u = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 1;
  return rgbToHex(hclToRgb({ ...hcl, l: hcl.l + K * (1 - 2 * u) }));
}

/** "#rrggbb" and an opacity -> "rgba(r,g,b,a)". */
export function withAlpha(color, alpha) {
  const [r, g, b] = hexToRgb(color) || hexToRgb(PALETTE[0]);
  return `rgba(${r},${g},${b},${alpha})`;
}
