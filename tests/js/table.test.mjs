// Text tables are built from DOM nodes with textContent: markup in a cell stays text.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { buildTable } from "../../js/src/widgets/table.js";

const require = createRequire(new URL("../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { document } = new JSDOM("<!doctype html><body></body>").window;

test("cells are text, never HTML", () => {
  const hostile = "<img src=x onerror=alert(1)>";
  const table = buildTable(document, [[hostile, "<script>alert(1)</script>"], ["a & b", "&lt;i&gt;"]]);
  document.body.append(table);
  const cells = [...table.querySelectorAll("td")];
  assert.deepEqual(cells.map((td) => td.textContent), [hostile, "<script>alert(1)</script>", "a & b", "&lt;i&gt;"]);
  assert.equal(table.querySelector("img"), null);
  assert.equal(table.querySelector("script"), null);
  assert.ok(cells.every((td) => td.children.length === 0));
  assert.match(table.innerHTML, /&lt;img src=x onerror=alert\(1\)&gt;/);
  table.remove();
});

test("rank 1 (one cell per row), ragged rows, nulls and numbers", () => {
  const table = buildTable(document, [["x"], ["y", "z"], [null, 3]]);
  assert.deepEqual([...table.querySelectorAll("tr")].map((tr) => [...tr.cells].map((td) => td.textContent)), [["x"], ["y", "z"], ["", "3"]]);
  assert.equal(buildTable(document, null).querySelectorAll("tr").length, 0);
});

test("large tables are cut, with a caption that says so", () => {
  const rows = Array.from({ length: 12 }, (_, i) => Array.from({ length: 5 }, (_, j) => `${i},${j}`));
  const table = buildTable(document, rows, { maxRows: 10, maxColumns: 3 });
  assert.equal(table.querySelectorAll("tr").length, 10);
  assert.equal(table.querySelector("tr").cells.length, 3);
  assert.equal(table.querySelector("caption").textContent, "Not shown: 2 more rows, 2 more columns");
});
