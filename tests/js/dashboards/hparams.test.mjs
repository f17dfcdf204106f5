// The hparams table's pure logic: rows from the reply, sorting, filters, brushes, the CSV with
// spreadsheet formulas neutralised, the `runs` patterns selecting trials, and the plotly traces
// (labels escaped: hparams values and metric names are text).
import test from "node:test";
import assert from "node:assert/strict";
import {
  axisOf,
  csvCell,
  csvText,
  filterRows,
  parseFilter,
  selectedRuns,
  selectionPatterns,
  sortRows,
  tableFrom,
} from "../../../js/src/dashboards/hparams/hparams_table.js";
import { brushesOf, parcoordsTrace, splomTrace } from "../../../js/src/dashboards/hparams/hparams_plots.js";
import { exactPattern, shownRuns } from "../../../js/src/runs.js";

const REPLY = {
  type: "hparams",
  columns: [
    { key: "run", kind: "run", type: "string" },
    { key: "status", kind: "status", type: "string" },
    { key: "lr", kind: "hparam", type: "float64" },
    { key: "optimizer", kind: "hparam", type: "string" },
    { key: "bn", kind: "hparam", type: "bool" },
    { key: "acc", kind: "metric", type: "float64" },
  ],
  trials: [
    { run: "t0/1700.5", parent: "t0", values: ["t0/1700.5", "success", 0.1, "sgd", true, 0.71] },
    { run: "t1/1700.6", parent: "t1", values: ["t1/1700.6", "success", 0.01, "adam", false, 0.84] },
    { run: "t2/1700.7", parent: null, values: ["t2/1700.7", "failure", 0.001, "=cmd|' /C calc'!A0", true, null] },
  ],
};

const { columns, rows } = tableFrom(REPLY);

test("rows from the reply: values by column key, parents kept", () => {
  assert.equal(rows.length, 3);
  assert.deepEqual(rows[1], {
    run: "t1/1700.6",
    parent: "t1",
    values: { run: "t1/1700.6", status: "success", lr: 0.01, optimizer: "adam", bn: false, acc: 0.84 },
  });
  assert.equal(rows[2].parent, null);
  assert.deepEqual(tableFrom({ columns: [{ key: "a" }], trials: [{ run: 3 }, null, { run: "x" }] }).rows, [
    { run: "x", parent: null, values: { a: null } },
  ]);
});

test("sorting by a column: numbers by value, text naturally, empty values last both ways", () => {
  const runs = (rs) => rs.map((r) => r.run.slice(0, 2));
  assert.deepEqual(runs(sortRows(rows, "lr", "asc")), ["t2", "t1", "t0"]);
  assert.deepEqual(runs(sortRows(rows, "lr", "desc")), ["t0", "t1", "t2"]);
  assert.deepEqual(runs(sortRows(rows, "acc", "asc")), ["t0", "t1", "t2"]);
  assert.deepEqual(runs(sortRows(rows, "acc", "desc")), ["t1", "t0", "t2"]);
  assert.deepEqual(runs(sortRows(rows, "optimizer", "asc")), ["t2", "t1", "t0"]);
  assert.deepEqual(runs(sortRows(rows, null)), ["t0", "t1", "t2"]);
});

test("filters: a value, a range, comparisons; text contains or =exact; invalid is null", () => {
  const only = (filters) => filterRows(rows, columns, filters).map((r) => r.run.slice(0, 2));
  assert.deepEqual(only({ lr: "0.01" }), ["t1"]);
  assert.deepEqual(only({ lr: "0.005..0.2" }), ["t0", "t1"]);
  assert.deepEqual(only({ lr: "..0.01" }), ["t1", "t2"]);
  assert.deepEqual(only({ lr: ">0.01" }), ["t0"]);
  assert.deepEqual(only({ lr: "<=0.01", acc: ">0.5" }), ["t1"]);
  assert.deepEqual(only({ optimizer: "AD" }), ["t1"]);
  assert.deepEqual(only({ optimizer: "=sgd" }), ["t0"]);
  assert.deepEqual(only({ bn: "true" }), ["t0", "t2"]);
  assert.deepEqual(only({ lr: "" }), ["t0", "t1", "t2"]);
  assert.equal(parseFilter("abc", true), null);
  assert.equal(parseFilter("1..x", true), null);
  assert.deepEqual(only({ lr: "abc" }), ["t0", "t1", "t2"], "invalid text filters nothing");
});

test("brushes filter by the parcoords axis value (categories by their index)", () => {
  const opt = axisOf(columns[3], rows);
  assert.ok(opt.categorical);
  assert.deepEqual(opt.labels, ["=cmd|' /C calc'!A0", "adam", "sgd"]);
  assert.deepEqual(filterRows(rows, columns, {}, { optimizer: [[0.5, 2]] }).map((r) => r.run.slice(0, 2)), ["t0", "t1"]);
  assert.deepEqual(filterRows(rows, columns, {}, { lr: [[0, 0.005], [0.05, 1]] }).map((r) => r.run.slice(0, 2)), ["t0", "t2"]);
  assert.equal(axisOf(columns[0], rows), null, "the run is no axis");
});

test("CSV: formulas neutralised with an apostrophe (OWASP), quoting, numbers stay numbers", () => {
  for (const [value, cell] of [
    ["=1+1", "'=1+1"],
    ["+SUM(A1)", "'+SUM(A1)"],
    ["-2+3", "'-2+3"],
    ["@cmd", "'@cmd"],
    ["\tx", "'\tx"],
    ["=HYPERLINK(\"http://x\",\"a\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"a\"\")\""],
    ["a,b", '"a,b"'],
    ["line\nbreak", '"line\nbreak"'],
    ["plain", "plain"],
    [-0.5, "-0.5"],
    [NaN, ""],
    [null, ""],
    [true, "true"],
  ]) {
    assert.equal(csvCell(value), cell, JSON.stringify(value));
  }
  const text = csvText([columns[0], columns[3], columns[5]], rows);
  assert.equal(
    text,
    "run,optimizer,acc\r\nt0/1700.5,sgd,0.71\r\nt1/1700.6,adam,0.84\r\nt2/1700.7,'=cmd|' /C calc'!A0,\r\n",
  );
});

test("selecting trials: exact patterns for the runs and their parents, as the run selector reads them", () => {
  const all = ["t0", "t0/1700.5", "t1", "t1/1700.6", "t2/1700.7", "t01700x5"];
  const patterns = selectionPatterns([rows[0], rows[2]]);
  assert.deepEqual(patterns, ["t0/1700\\.5", "t0", "t2/1700\\.7"]);
  assert.deepEqual(shownRuns(all, patterns, []), ["t0", "t0/1700.5", "t2/1700.7"]);
  assert.deepEqual(selectionPatterns([rows[0]], false), ["t0/1700\\.5"]);
  assert.deepEqual(selectionPatterns([]), [".*"], "nothing selected: every run");
  assert.equal(exactPattern("a(b)[c]{d}|e^$+?*\\"), "a\\(b\\)\\[c\\]\\{d\\}\\|e\\^\\$\\+\\?\\*\\\\");
  assert.deepEqual(shownRuns(["a(b)[c]{d}|e^$+?*\\", "x"], [exactPattern("a(b)[c]{d}|e^$+?*\\")], []), ["a(b)[c]{d}|e^$+?*\\"]);
  const shown = new Set(shownRuns(all, patterns, []));
  assert.deepEqual([...selectedRuns(rows, patterns, shown)], ["t0/1700.5", "t2/1700.7"]);
  assert.deepEqual([...selectedRuns(rows, [".*"], new Set(all))], [], "every run shown: nothing selected");
});

test("parcoords: a line per trial, an axis per hparam and metric, categories labelled and escaped", () => {
  const hostile = tableFrom({
    ...REPLY,
    columns: [...REPLY.columns.slice(0, 5), { key: "<b>acc</b>%{x}", kind: "metric", type: "float64" }],
  });
  const trace = parcoordsTrace(hostile.columns, hostile.rows, { lr: [[0, 0.05]] });
  assert.equal(trace.type, "parcoords");
  assert.deepEqual(trace.dimensions.map((d) => d.name), ["lr", "optimizer", "bn", "<b>acc</b>%{x}"]);
  assert.ok(trace.dimensions.every((d) => d.values.length === 3));
  const opt = trace.dimensions[1];
  assert.deepEqual(opt.values, [2, 1, 0]);
  assert.deepEqual(opt.ticktext, ["=cmd|' /C calc'!A0", "adam", "sgd"]);
  assert.equal(trace.dimensions[3].label, "&lt;b&gt;acc&lt;/b&gt;&#37;{x}");
  assert.deepEqual(trace.dimensions[0].constraintrange, [0, 0.05]);
  assert.equal(trace.line.color.length, 3);
  assert.ok(Number.isNaN(trace.line.color[2]));
  assert.deepEqual(brushesOf(trace), { lr: [[0, 0.05]] });
  assert.deepEqual(brushesOf({ dimensions: [{ name: "a", constraintrange: [[1, 2], [3, 4]] }, { name: "b" }] }), {
    a: [[1, 2], [3, 4]],
  });
  const escaped = parcoordsTrace([{ key: "o", kind: "hparam", type: "string" }], [{ run: "r", values: { o: "<img src=x onerror=alert(1)>" } }]);
  // parcoords ticks are plain SVG text (checked in the browser): values go unescaped, labels escaped
  assert.deepEqual(escaped.dimensions[0].ticktext, ["<img src=x onerror=alert(1)>"]);
  assert.equal(escaped.dimensions[0].label, "o");
});

test("scatter matrix: numeric hparams and metrics only, a point per trial in its run's colour", () => {
  const trace = splomTrace(columns, rows, (run) => (run.startsWith("t0") ? "#111111" : "#222222"));
  assert.equal(trace.type, "splom");
  assert.deepEqual(trace.dimensions.map((d) => d.label), ["lr", "acc"]);
  assert.deepEqual(trace.marker.color, ["#111111", "#222222", "#222222"]);
  assert.deepEqual(trace.text, ["t0/1700.5", "t1/1700.6", "t2/1700.7"]);
  assert.equal(splomTrace(columns.slice(0, 4), rows), null, "one numeric column: no matrix");
});
