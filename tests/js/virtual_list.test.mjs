// The run selector's virtualised list: which items are drawn for a scroll offset, and that only
// those exist in the DOM while the spacer keeps the full height.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body></body>");
globalThis.document = window.document; // dom.js's h() builds in the global document
globalThis.Node = window.Node;
const { VirtualList, windowRange } = await import("../../js/src/widgets/virtual_list.js");

test("the rows in view plus the overscan, clamped to the list", () => {
  // 2000 rows of 24 px, a 240 px view at the top: rows 0..9 in view, 3 more below.
  assert.deepEqual(windowRange({ scrollTop: 0, rowHeight: 24, viewport: 240, count: 2000, overscan: 3 }), { start: 0, end: 13 });
  // scrolled to row 100 exactly: 97..113
  assert.deepEqual(windowRange({ scrollTop: 2400, rowHeight: 24, viewport: 240, count: 2000, overscan: 3 }), { start: 97, end: 113 });
  // part-way into row 100: row 110 is partly in view too
  assert.deepEqual(windowRange({ scrollTop: 2410, rowHeight: 24, viewport: 240, count: 2000, overscan: 3 }), { start: 97, end: 114 });
  // at the bottom: the last row is drawn, nothing past it
  const bottom = windowRange({ scrollTop: 2000 * 24 - 240, rowHeight: 24, viewport: 240, count: 2000, overscan: 3 });
  assert.deepEqual(bottom, { start: 1987, end: 2000 });
});

test("fewer rows than the view, odd inputs, a scroll past the end", () => {
  assert.deepEqual(windowRange({ scrollTop: 0, rowHeight: 24, viewport: 600, count: 5 }), { start: 0, end: 5 });
  assert.deepEqual(windowRange({ scrollTop: 0, rowHeight: 24, viewport: 600, count: 0 }), { start: 0, end: 0 });
  assert.deepEqual(windowRange({ scrollTop: 0, rowHeight: 0, viewport: 600, count: 10 }), { start: 0, end: 0 });
  assert.deepEqual(windowRange({ scrollTop: -50, rowHeight: 20, viewport: 100, count: 100, overscan: 0 }), { start: 0, end: 5 });
  assert.deepEqual(windowRange({ scrollTop: NaN, rowHeight: 20, viewport: undefined, count: 100, overscan: 1 }), { start: 0, end: 1 });
  // the list shrank under a scrolled view (a filter): the last rows are still drawn
  assert.deepEqual(windowRange({ scrollTop: 10_000, rowHeight: 20, viewport: 100, count: 30, overscan: 2 }), { start: 27, end: 30 });
});

test("only the rows in view are in the DOM; the spacer holds the full height", () => {
  const el = document.createElement("div");
  document.body.append(el);
  const drawn = [];
  const list = new VirtualList(el, (item, i) => {
    drawn.push(i);
    const row = document.createElement("div");
    row.textContent = item;
    return row;
  }, { rowHeight: 20 });
  const items = Array.from({ length: 2000 }, (_, i) => `run_${i}`);
  list.setItems(items);
  // jsdom lays nothing out: the view is taken as 600 px, i.e. 30 rows, plus the overscan below
  const rows = () => [...el.querySelectorAll("[aria-posinset]")];
  assert.equal(rows().length, 38);
  assert.equal(rows()[0].textContent, "run_0");
  assert.equal(rows()[0].getAttribute("aria-setsize"), "2000");
  assert.equal(el.firstElementChild.style.height, "40000px");
  el.scrollTop = 1000 * 20;
  list.draw();
  assert.deepEqual(rows().map((r) => r.textContent).slice(0, 2), ["run_992", "run_993"]);
  assert.equal(rows().at(-1).textContent, "run_1037");
  assert.equal(rows()[0].getAttribute("aria-posinset"), "993");
  // new items (a trait change) keep the scroll position and draw the same window
  list.setItems(items.map((name) => name.toUpperCase()));
  assert.equal(el.scrollTop, 20_000);
  assert.equal(rows()[0].textContent, "RUN_992");
  // never more rows built than drawn
  assert.ok(drawn.length < 200, `${drawn.length} rows built`);
  list.destroy();
  el.remove();
});

test("keyboard focus stays on its control when the rows are redrawn", () => {
  const el = document.createElement("div");
  document.body.append(el);
  const list = new VirtualList(el, (item) => {
    const row = document.createElement("div");
    const box = document.createElement("input");
    box.type = "checkbox";
    const button = document.createElement("button");
    button.textContent = item;
    row.append(box, button);
    return row;
  }, { rowHeight: 20 });
  list.setItems(["a", "b", "c"]);
  el.querySelectorAll("button")[1].focus();
  list.setItems(["a", "b", "c"]);
  assert.equal(document.activeElement.textContent, "b");
  list.destroy();
  el.remove();
});
