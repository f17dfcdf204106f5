// dom.js's update(): a property written again with the value it has is no DOM mutation (a
// mutation observer, such as the end-to-end benchmark's, would take it for a change, and the
// browser styles the element again); a value that differs is written.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body></body>");
globalThis.document = window.document;
globalThis.Node = window.Node;
const { h, update } = await import("../../js/src/dom.js");

async function mutations(el, fn) {
  const seen = [];
  const observer = new window.MutationObserver((records) => seen.push(...records));
  observer.observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
  fn();
  await new Promise((resolve) => setTimeout(resolve, 0));
  seen.push(...observer.takeRecords());
  observer.disconnect();
  return seen.map((r) => r.type === "attributes" ? `attr:${r.attributeName}` : r.type);
}

test("the same values again write nothing; changed ones are written, each once", async () => {
  const el = h("div", {});
  document.body.append(el);
  const props = { text: "1,000", hidden: true, attrs: { "aria-valuenow": "1000" }, data: { step: "1000" } };
  assert.deepEqual(await mutations(el, () => update(el, props)), ["childList", "attr:hidden", "attr:aria-valuenow", "attr:data-step"]);
  assert.deepEqual(await mutations(el, () => update(el, props)), []);
  assert.deepEqual(await mutations(el, () => update(el, { ...props, text: "2,000", data: { step: "2000" } })), ["childList", "attr:data-step"]);
  assert.deepEqual(await mutations(el, () => update(el, { hidden: false })), ["attr:hidden"]);
  assert.equal(el.textContent, "2,000");
  assert.equal(el.hidden, false);
  assert.equal(el.dataset.step, "2000");
  assert.equal(el.getAttribute("aria-valuenow"), "1000");
});

test("what update() leaves out is not touched", async () => {
  const el = h("div", { text: "kept" });
  el.hidden = true;
  assert.deepEqual(await mutations(el, () => update(el, { attrs: { title: "t" } })), ["attr:title"]);
  assert.equal(el.textContent, "kept");
  assert.equal(el.hidden, true);
});
