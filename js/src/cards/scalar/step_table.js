// The data table under a scalar card and its step selection, as pure functions (no DOM): the
// columns TensorBoard offers, rows from a "step_table" reply, sorting by a column, cell text,
// the selection a card shows (linked or its own), where a dragged marker lands, and the order
// and number of hover rows (tooltip sorting). step_view.js puts them on the page.

import { formatDateTime } from "../../format.js";

/** TensorBoard's column choices at one step; `on`: shown by default (as TensorBoard). */
export const STEP_COLUMNS = [
  { key: "smoothed", label: "Smoothed", on: true },
  { key: "value", label: "Value", on: true },
  { key: "step", label: "Step", on: true },
  { key: "relative", label: "Relative", on: true },
  { key: "wall", label: "Time", on: false },
];

/** TensorBoard's column choices over a range (start/end/min/max/change of smoothed values). */
export const RANGE_COLUMNS = [
  { key: "min", label: "Min", on: true },
  { key: "max", label: "Max", on: true },
  { key: "mean", label: "Mean", on: true },
  { key: "start", label: "Start value", on: true },
  { key: "end", label: "End value", on: true },
  { key: "change", label: "Value change", on: true },
  { key: "percent_change", label: "Percentage change", on: false },
  { key: "raw_change", label: "Raw change", on: false },
  { key: "start_step", label: "Start step", on: true },
  { key: "end_step", label: "End step", on: true },
  { key: "step_at_min", label: "Step at min", on: false },
  { key: "step_at_max", label: "Step at max", on: false },
  { key: "points", label: "Points", on: false },
];

const STEP_KEYS = new Set(["step", "start_step", "end_step", "step_at_min", "step_at_max", "points"]);

/** The columns a mode offers. */
export function columnsFor(mode) {
  return mode === "range" ? RANGE_COLUMNS : STEP_COLUMNS;
}

/** A reply's columns -> [{run, <key>: number | null}] (steps as Numbers; -1 steps and NaN -> null). */
export function tableRows(columns) {
  const runs = (columns && columns.run) || [];
  return runs.map((run, i) => {
    const row = { run };
    for (const [key, values] of Object.entries(columns)) {
      if (key === "run") continue;
      const v = Number(values[i]);
      row[key] = STEP_KEYS.has(key) ? (v < 0 && key !== "step" ? null : v) : Number.isNaN(v) ? null : v;
    }
    return row;
  });
}

/** TensorBoard's sortable value: a missing or NaN value sorts as -Infinity. */
function sortable(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return -Infinity;
  return value;
}

/** Rows sorted by `key` ("run" or a column) in `order` ("asc" | "desc"); stable. */
export function sortRows(rows, key, order) {
  const sign = order === "desc" ? -1 : 1;
  return rows
    .map((row, i) => [row, i])
    .sort(([a, i], [b, j]) => {
      const x = sortable(a[key]);
      const y = sortable(b[key]);
      if (x < y) return -sign;
      if (x > y) return sign;
      return i - j;
    })
    .map(([row]) => row);
}

/** Seconds as TensorBoard's relative column shows them: "12 sec", "3.33 min", "1.5 hr", "2 day". */
export function formatRelative(seconds) {
  if (seconds === null || !Number.isFinite(seconds)) return "";
  const units = [
    [86400, "day"],
    [3600, "hr"],
    [60, "min"],
  ];
  for (const [size, name] of units) if (Math.abs(seconds) >= size) return `${Number((seconds / size).toPrecision(3))} ${name}`;
  return `${Number(seconds.toPrecision(3))} sec`;
}

/** A value as the table shows it: 4 significant digits, NaN and infinities by name. */
export function formatValue(v) {
  if (v === null || v === undefined) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-4)) return v.toExponential(3).replace(/\.?0+e/, "e");
  return String(Number(v.toPrecision(4)));
}

/** A cell's text. */
export function formatCell(key, v) {
  if (STEP_KEYS.has(key)) return v === null || v === undefined ? "" : Math.round(v).toLocaleString("en-US");
  if (key === "relative") return formatRelative(v);
  if (key === "wall") return v === null ? "" : formatDateTime(v);
  if (key === "percent_change") return v === null ? "" : `${Number((v * 100).toPrecision(3))}%`;
  return formatValue(v);
}

/**
 * The selection a card shows: {step, range} from the board's traits (`selected_step`,
 * `selected_range`) or, with `link_step` off, the card's own entry in `card_steps`.
 */
export function cardSelection(traits, tag) {
  const own = traits.link_step === false ? (traits.card_steps || {})[tag] : null;
  const src = own && typeof own === "object" ? { step: own.step, range: own.range } : { step: traits.selected_step, range: traits.selected_range };
  const step = Number.isInteger(src.step) ? src.step : null;
  const range = Array.isArray(src.range) && src.range.length === 2 && src.range.every(Number.isInteger) ? [Math.min(...src.range), Math.max(...src.range)] : null;
  return { step, range };
}

/** The trait changes that put `selection` on a card: the board's when linked, else card_steps. */
export function selectionWrites(traits, tag, selection) {
  if (traits.link_step !== false) {
    return selection.range ? { selected_range: selection.range.slice() } : { selected_step: selection.step };
  }
  const own = { ...((traits.card_steps || {})[tag] || { step: null, range: null }) };
  if (selection.range) own.range = selection.range.slice();
  else own.step = selection.step;
  return { card_steps: { ...(traits.card_steps || {}), [tag]: own } };
}

/** The index of the point TensorBoard shows for `target` in `steps` (sorted): the closest,
 * a tie to the earlier step (findClosestIndex; the kernel's rule, dashboards/step_table.py). */
export function closestIndex(steps, target) {
  const n = steps.length;
  if (n === 0) return -1;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Number(steps[mid]) <= target) lo = mid + 1;
    else hi = mid;
  }
  const right = Math.min(lo, n - 1);
  const left = Math.max(0, right - 1);
  return Math.abs(Number(steps[left]) - target) <= Math.abs(Number(steps[right]) - target) ? left : right;
}

/**
 * The step a marker dragged to protocol x `x` selects: on the step axis the nearest whole step;
 * on a time axis the step of the point nearest in time of the first series given ({x, step}).
 */
export function stepAtX(x, xAxis, series) {
  if (xAxis === "step" || xAxis === "log_step") return Math.round(x);
  let best = null;
  let bestDistance = Infinity;
  for (const s of series) {
    for (let i = 0; i < s.x.length; i++) {
      const d = Math.abs(s.x[i] - x);
      if (d < bestDistance) {
        bestDistance = d;
        best = Number(s.step[i]);
      }
    }
    if (best !== null) return best;
  }
  return null;
}

/** The step after (`dir` 1) or before (-1) `step` among `steps` (any order, repeats); `step`
 * itself at either end. Arrow keys move a marker through the card's steps with it. */
export function neighbourStep(steps, step, dir) {
  let best = null;
  for (const raw of steps) {
    const s = Number(raw);
    if (dir > 0 ? s > step && (best === null || s < best) : s < step && (best === null || s > best)) best = s;
  }
  return best === null ? step : best;
}

/**
 * Hover rows in TensorBoard's tooltip order, at most `limit` (0: all). rows: [{y, pixelY, ...}];
 * "default" keeps the runs' order; "ascending"/"descending" by value; "nearest": the row whose
 * line is nearest the cursor (`cursorY`, pixels) first.
 */
export function tooltipRows(rows, sort, limit, cursorY) {
  let out = rows.slice();
  if (sort === "ascending") out = sortRows(out, "y", "asc");
  else if (sort === "descending") out = sortRows(out, "y", "desc");
  else if (sort === "nearest" && Number.isFinite(cursorY)) {
    out = out
      .map((row, i) => [row, i, Number.isFinite(row.pixelY) ? Math.abs(row.pixelY - cursorY) : Infinity])
      .sort((a, b) => a[2] - b[2] || a[1] - b[1])
      .map(([row]) => row);
  }
  return limit > 0 ? out.slice(0, limit) : out;
}
