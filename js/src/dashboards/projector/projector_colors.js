// The projector's pure logic: point colours from a metadata column (a category palette for at
// most 50 distinct values, else TensorBoard's #ffffdd -> #1f2d86 gradient), the legend that
// explains them, and point-in-polygon for lasso selection. No DOM; tested in node.

/** d3's category10 then its lighter twin: 20 distinct colours, cycled past 20 categories. */
export const CATEGORY = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
  "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
];
export const MAX_CATEGORIES = 50;
export const GRADIENT = ["#ffffdd", "#1f2d86"];
export const DEFAULT_COLOR = "#1f77b4";
export const MISSING_COLOR = "#bdbdbd";

function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** The gradient's colour at t in [0, 1] as [r, g, b]. */
export function gradientAt(t) {
  const [a, b] = [rgb(GRADIENT[0]), rgb(GRADIENT[1])];
  const u = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  return a.map((x, i) => Math.round(x + (b[i] - x) * u));
}

/**
 * Colours of `n` points from `column` (the kernel's projector_metadata column, or null):
 * {rgb: Uint8Array(n*3), legend: {kind: "none" | "category" | "gradient", items?, min?, max?, title}}.
 * Category legends list value, colour and count; gradient legends give the range.
 */
export function pointColors(n, column) {
  const out = new Uint8Array(n * 3);
  const fill = (i, c) => {
    out[3 * i] = c[0];
    out[3 * i + 1] = c[1];
    out[3 * i + 2] = c[2];
  };
  if (!column) {
    const c = rgb(DEFAULT_COLOR);
    for (let i = 0; i < n; i++) fill(i, c);
    return { rgb: out, legend: { kind: "none", title: "" } };
  }
  const missing = rgb(MISSING_COLOR);
  if (column.kind === "number") {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = column.data[i];
      if (Number.isFinite(v)) {
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
    const span = max > min ? max - min : 1;
    for (let i = 0; i < n; i++) {
      const v = column.data[i];
      fill(i, Number.isFinite(v) ? gradientAt((v - min) / span) : missing);
    }
    return { rgb: out, legend: { kind: "gradient", title: column.name, min: Number.isFinite(min) ? min : null, max: Number.isFinite(max) ? max : null } };
  }
  const values = column.values || [];
  const codes = column.codes;
  if (values.length <= MAX_CATEGORIES) {
    const counts = new Array(values.length).fill(0);
    const palette = CATEGORY.map(rgb);
    for (let i = 0; i < n; i++) {
      const c = Number(codes[i]);
      if (c >= 0 && c < values.length) {
        counts[c] += 1;
        fill(i, palette[c % palette.length]);
      } else fill(i, missing);
    }
    const items = values.map((value, c) => ({ value: String(value), color: CATEGORY[c % CATEGORY.length], count: counts[c] }));
    return { rgb: out, legend: { kind: "category", title: column.name, items } };
  }
  const span = Math.max(1, values.length - 1);
  for (let i = 0; i < n; i++) {
    const c = Number(codes[i]);
    fill(i, c >= 0 ? gradientAt(c / span) : missing);
  }
  return { rgb: out, legend: { kind: "gradient", title: column.name, min: null, max: null, distinct: values.length } };
}

/** A point's label text, as a function of its row: the column's value ("" when missing), else
 *  the row number. A function, not an array: a million labels are never all shown, only made on hover. */
export function pointLabel(column) {
  if (!column) return (i) => String(i);
  if (column.kind === "number") return (i) => (Number.isFinite(column.data[i]) ? String(column.data[i]) : "");
  return (i) => {
    const c = Number(column.codes[i]);
    return c >= 0 ? String(column.values[c]) : "";
  };
}

/** Whether (x, y) is inside the polygon [[x, y], ...] (even-odd rule). */
export function insidePolygon(x, y, polygon) {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Indices of the points whose screen position (xy: Float32Array n*2) lies in the polygon. */
export function pointsInPolygon(xy, polygon) {
  if (polygon.length < 3) return [];
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of polygon) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const out = [];
  for (let i = 0; i < xy.length / 2; i++) {
    const x = xy[2 * i];
    const y = xy[2 * i + 1];
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && insidePolygon(x, y, polygon)) out.push(i);
  }
  return out;
}

/** The index of the screen point nearest (x, y) within `radius` pixels, or -1. */
export function nearestPoint(xy, x, y, radius) {
  let best = -1;
  let bestD = radius * radius;
  for (let i = 0; i < xy.length / 2; i++) {
    const dx = xy[2 * i] - x;
    const dy = xy[2 * i + 1] - y;
    const d = dx * dx + dy * dy;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}
