// The hparams table's logic (protocol.md, `hparams`): rows from the kernel's reply, sorting,
// per-column filters (a value or a range), the parallel coordinates' brushes, the CSV download
// and the `runs` patterns that select trials. Pure functions: no DOM.
//
// Values are text or numbers, never markup: whoever shows them uses textContent (the table) or
// escapePlotly (plotly labels).

import { naturalCompare } from "../../naturalsort.js";
import { exactPattern } from "../../runs.js";

/** The reply -> {columns, rows}; a row is {run, parent, values: {key: value}}. */
export function tableFrom(msg) {
  const columns = Array.isArray(msg.columns) ? msg.columns.filter((c) => c && typeof c.key === "string") : [];
  const rows = [];
  for (const trial of msg.trials || []) {
    if (!trial || typeof trial.run !== "string") continue;
    const values = {};
    columns.forEach((c, i) => {
      const v = Array.isArray(trial.values) ? trial.values[i] : null;
      values[c.key] = v === undefined ? null : v;
    });
    rows.push({ run: trial.run, parent: typeof trial.parent === "string" ? trial.parent : null, values });
  }
  return { columns, rows };
}

/** Whether a column holds numbers (metrics, start times, float hparams; bools are not). */
export function isNumeric(column, rows) {
  if (column.type === "float64") return true;
  if (column.type === "string" || column.type === "bool") return false;
  const present = rows.map((r) => r.values[column.key]).filter((v) => v !== null);
  return present.length > 0 && present.every((v) => typeof v === "number");
}

/** A column's heading: its display name, else its key. */
export function columnLabel(column) {
  return column.display_name || column.key;
}

/** Order of two values: numbers by value, the rest as text (natural order); empty last. */
export function compareValues(a, b) {
  const emptyA = a === null || a === undefined || (typeof a === "number" && Number.isNaN(a));
  const emptyB = b === null || b === undefined || (typeof b === "number" && Number.isNaN(b));
  if (emptyA || emptyB) return emptyA === emptyB ? 0 : emptyA ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return naturalCompare(String(a), String(b));
}

/** Rows sorted by `key` ("asc" | "desc"; empty values last either way); stable. */
export function sortRows(rows, key, direction = "asc") {
  if (!key) return rows.slice();
  const sign = direction === "desc" ? -1 : 1;
  return rows
    .map((row, i) => [row, i])
    .sort(([a, i], [b, j]) => {
      const va = a.values[key];
      const vb = b.values[key];
      const empty = (v) => v === null || v === undefined;
      if (empty(va) || empty(vb)) return compareValues(va, vb) || i - j;
      return sign * compareValues(va, vb) || i - j;
    })
    .map(([row]) => row);
}

/**
 * A filter box's text -> a test of a value. Numeric columns: "0.1" (equal), "0.01..0.1" (a closed
 * range; either end may be left out), ">0.5", ">=0.5", "<1", "<=1". Other columns: the values
 * containing the text, case-insensitive; "=text" for exactly that value. Empty: everything.
 * Returns null for text that is not a valid numeric filter.
 */
export function parseFilter(text, numeric) {
  const t = String(text || "").trim();
  if (!t) return () => true;
  if (!numeric) {
    if (t.startsWith("=")) {
      const exact = t.slice(1);
      return (v) => v !== null && String(v) === exact;
    }
    const needle = t.toLowerCase();
    return (v) => v !== null && String(v).toLowerCase().includes(needle);
  }
  const num = (s) => (s.trim() === "" ? null : Number(s));
  const range = t.match(/^(.*?)\.\.(.*)$/);
  if (range) {
    const lo = num(range[1]);
    const hi = num(range[2]);
    if ((lo !== null && Number.isNaN(lo)) || (hi !== null && Number.isNaN(hi))) return null;
    return (v) => typeof v === "number" && (lo === null || v >= lo) && (hi === null || v <= hi);
  }
  const cmp = t.match(/^(>=|<=|>|<|=)?\s*(.+)$/);
  const x = Number(cmp[2]);
  if (Number.isNaN(x)) return null;
  const ops = {
    ">": (v) => v > x,
    ">=": (v) => v >= x,
    "<": (v) => v < x,
    "<=": (v) => v <= x,
    "=": (v) => v === x,
  };
  const op = ops[cmp[1] || "="];
  return (v) => typeof v === "number" && op(v);
}

/**
 * The rows passing every column filter ({key: text}) and every brush ({key: [[lo, hi], ...]}, the
 * parallel coordinates' constraint ranges on a dimension's axis values, see axisValue). Invalid
 * filter text filters nothing (the box shows it as invalid).
 */
export function filterRows(rows, columns, filters = {}, brushes = {}) {
  const tests = [];
  for (const c of columns) {
    const test = parseFilter(filters[c.key], isNumeric(c, rows));
    if (test) tests.push([c.key, test]);
  }
  const axes = Object.entries(brushes)
    .filter(([, ranges]) => Array.isArray(ranges) && ranges.length)
    .map(([key, ranges]) => [key, ranges, axisOf(columns.find((c) => c.key === key), rows)]);
  return rows.filter(
    (row) =>
      tests.every(([key, test]) => test(row.values[key])) &&
      axes.every(([key, ranges, axis]) => {
        const y = axis ? axis.value(row.values[key]) : NaN;
        return ranges.some(([lo, hi]) => y >= lo && y <= hi);
      }),
  );
}

/**
 * How a column maps to a parallel-coordinates axis: numbers as themselves; text and bools as the
 * index of their value among the column's distinct values (sorted), labelled with the values.
 * Null for a column that cannot be an axis (no values, the run name).
 */
export function axisOf(column, rows) {
  if (!column || column.kind === "run") return null;
  const present = rows.map((r) => r.values[column.key]).filter((v) => v !== null && v !== undefined);
  if (!present.length) return null;
  if (isNumeric(column, rows)) return { categorical: false, value: (v) => (typeof v === "number" ? v : NaN) };
  const distinct = [...new Set(present.map(String))].sort(naturalCompare);
  const index = new Map(distinct.map((v, i) => [v, i]));
  return {
    categorical: true,
    labels: distinct,
    value: (v) => (v === null || v === undefined ? NaN : index.get(String(v))),
  };
}

// ------------------------------------------------------------------------------------------ CSV

/** Characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell. Text starting with =, +, -, @ (or a tab or carriage return) gets a leading
 * apostrophe so that a spreadsheet shows it as text instead of running it (OWASP's advice for CSV
 * injection); numbers are written as numbers (a number is never a formula); text with a comma,
 * quote or line break is quoted.
 */
export function csvCell(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The table as CSV: a header of column keys, one line per row (the rows and columns given). */
export function csvText(columns, rows) {
  const lines = [columns.map((c) => csvCell(c.key)).join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row.values[c.key])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

// ------------------------------------------------------------------------------------ selection

/**
 * The `runs` trait selecting these trials: each trial's run and, with `parents`, the run above
 * it when the logdir has it (torch's add_hparams writes a trial in a sub-run; its training curves
 * stay in the run above). Every run shown ([".*"]) when nothing is selected.
 */
export function selectionPatterns(rows, parents = true) {
  const names = [];
  for (const row of rows) {
    for (const name of parents && row.parent ? [row.run, row.parent] : [row.run]) {
      if (!names.includes(name)) names.push(name);
    }
  }
  return names.length ? names.map(exactPattern) : [".*"];
}

/** The trials selected by the `runs` trait: none while it shows every run, else those shown. */
export function selectedRuns(rows, patterns, shown) {
  if (!Array.isArray(patterns) || patterns.length === 0 || patterns.includes(".*")) return new Set();
  return new Set(rows.filter((row) => shown.has(row.run)).map((row) => row.run));
}
