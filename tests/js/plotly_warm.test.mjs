// plotly.js warmed once per page on a hidden plot of its own: one drawing and one animation
// frame, the plot purged and removed after, never a second time, and a failing plotly ignored.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body><div id='card'></div></body>");
globalThis.document = window.document;
const { warmPlotly } = await import("../../js/src/core/plotly_warm.js");

function fakePlotly(fail = false) {
  const calls = [];
  return {
    calls,
    react(el, traces, layout) {
      calls.push(["react", el.isConnected, el.style.visibility, traces.length, traces[0].x.length]);
      return fail ? Promise.reject(new Error("no WebGL here")) : Promise.resolve(el);
    },
    animate(el, frame) {
      calls.push(["animate", el.isConnected, frame.traces]);
      return Promise.resolve();
    },
    purge(el) {
      calls.push(["purge", el.isConnected]);
    },
  };
}

test("one hidden drawing and one animation frame, then the plot is gone; once per page", async () => {
  delete globalThis.__tbnb_plotly_warm__;
  const P = fakePlotly();
  const before = document.body.children.length;
  const first = warmPlotly(P);
  assert.equal(warmPlotly(P), first); // a second Board, or the preload and a Board: one warm-up
  await first;
  assert.deepEqual(P.calls, [["react", true, "hidden", 2, 1000], ["animate", true, [1]], ["purge", true]]);
  assert.equal(document.body.children.length, before); // nothing left on the page
  assert.equal(document.getElementById("card").children.length, 0); // no card touched
});

test("a plotly that fails to draw is left alone: the promise settles, the element goes", async () => {
  delete globalThis.__tbnb_plotly_warm__;
  const P = fakePlotly(true);
  const before = document.body.children.length;
  await warmPlotly(P);
  assert.deepEqual(P.calls.map((c) => c[0]), ["react", "purge"]);
  assert.equal(document.body.children.length, before);
  delete globalThis.__tbnb_plotly_warm__;
  await warmPlotly(null); // no plotly: nothing to do, nothing remembered
  assert.equal(globalThis.__tbnb_plotly_warm__, undefined);
});
