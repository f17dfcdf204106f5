// The segmentation card's view against its requests (Card.requestOnce): a step's pixels are asked once while the
// request is in flight. Every poll pushes the list of steps again and the card redraws; asking
// again on each redraw superseded the request in flight (requests.js drops a stale reply), so a
// kernel slower than the poll interval never got its reply shown.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body></body>");
globalThis.document = window.document;
globalThis.Node = window.Node;
const { SegmentationView } = await import("../../../js/src/dashboards/images/segmentation_view.js");
const { Card } = await import("../../../js/src/cards/card.js");

function fakeCard() {
  const asked = [];
  const root = document.createElement("div");
  document.body.append(root);
  const card = {
    board: { root, model: { get: () => null } },
    tag: "val/s",
    run: "a",
    el: document.createElement("div"),
    plot: document.createElement("div"),
    data: null,
    asked,
    request(purpose, content, onReply, onError) {
      asked.push({ purpose, content, onReply, onError });
      return asked.length;
    },
    draw() {},
    redraw() {},
    inFlight: new Map(),
    requestOnce: Card.prototype.requestOnce, // the real one, over the recording request() above
  };
  return card;
}

const steps = (card, list) => card.asked.find((a) => a.purpose === "steps").onReply({ series: [{ run: "a", steps: list, classes: ["x"], palette: ["#000000"] }] });
const pixelAsks = (card) => card.asked.filter((a) => a.purpose === "pixels");

test("a step's pixels are asked once however often the card redraws while waiting", () => {
  const card = fakeCard();
  const view = new SegmentationView(card);
  view.load();
  steps(card, [0, 10]);
  for (let i = 0; i < 5; i += 1) view.render();
  assert.equal(pixelAsks(card).length, 1);
  assert.equal(pixelAsks(card)[0].content.step, 10, "the latest step");
  view.load(); // the next poll's pushed list, the same steps
  steps(card, [0, 10]);
  view.render();
  assert.equal(pixelAsks(card).length, 1, "still the one request in flight");
});

test("another step is asked at once; an answered or failed step may be asked again", () => {
  const card = fakeCard();
  const view = new SegmentationView(card);
  view.load();
  steps(card, [0, 10]);
  view.render();
  view.select(0);
  view.render();
  assert.deepEqual(pixelAsks(card).map((a) => a.content.step), [10, 0]);
  pixelAsks(card)[1].onError("no answer from the kernel");
  assert.match(view.panes.textContent, /no answer|loading/);
  view.cache.clear(); // forgotten (pruned): asked again
  view.render();
  assert.deepEqual(pixelAsks(card).map((a) => a.content.step), [10, 0, 0]);
});
