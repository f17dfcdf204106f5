// Cards: the order in which cards that come into view ask the kernel for their data.
import test from "node:test";
import assert from "node:assert/strict";
import { inViewOrder } from "../../js/src/core/cards.js";

test("cards coming into view ask first, then from the top of the page down", () => {
  const entry = (name, isIntersecting, top, left = 0) => ({ name, isIntersecting, boundingClientRect: { top, left } });
  const entries = [entry("lower", true, 600), entry("away", false, -900), entry("top-right", true, 100, 500), entry("top-left", true, 100, 10), entry("away-low", false, 2000)];
  assert.deepEqual(inViewOrder(entries).map((e) => e.name), ["top-left", "top-right", "lower", "away", "away-low"]);
  assert.equal(entries[0].name, "lower", "the observer's array is left as it came");
});
