// Which plotly.js build each dashboard gets (its `plotly` declaration, layout.js's plotlyNeed),
// and how plotly.js loads builds: one request per build per page, the cartesian build first,
// the full one only when a dashboard needs it; a full build serves a cartesian need too.
import test from "node:test";
import assert from "node:assert/strict";
import { DASHBOARDS, plotlyNeed } from "../../js/src/core/layout.js";
import { BUNDLES, deliverPlotly, loadPlotly, plotlyFor, releasePlotly } from "../../js/src/core/plotly.js";
import preload from "../../js/src/core/preload.js";

test("dashboards drawing 3D, parcoords, splom or scattergl get the full build; the others the cartesian one", () => {
  const full = DASHBOARDS.filter((d) => plotlyNeed(d.id) === "full").map((d) => d.id).sort();
  assert.deepEqual(full, ["hparams", "mesh", "projector"]);
  for (const d of DASHBOARDS) assert.ok(BUNDLES.includes(plotlyNeed(d.id)), d.id);
  assert.equal(plotlyNeed("timeseries"), "cartesian");
  assert.equal(plotlyNeed("scalars"), "cartesian");
  assert.equal(plotlyNeed("no such dashboard"), "cartesian"); // the default tab's
});

/** A page in which a delivered script "runs" by setting globalThis.Plotly to a fresh object. */
function fakePage() {
  delete globalThis.__tbnb_plotly__;
  delete globalThis.Plotly;
  let n = 0;
  globalThis.document = {
    createElement: () => ({ remove() {} }),
    head: {
      appendChild(script) {
        n += 1;
        const made = { made: n, Plots: { subplotsRegistry: {} } };
        setTimeout(() => {
          globalThis.Plotly = made;
          script.onload();
        }, 0);
      },
    },
  };
}

test("a cartesian need asks for the cartesian build once; later needs are served from the page", async () => {
  fakePage();
  const asked = [];
  const a = (bundle) => asked.push(["a", bundle]);
  const b = (bundle) => asked.push(["b", bundle]);
  const pa = loadPlotly(a, "cartesian");
  const pb = loadPlotly(b, "cartesian");
  assert.deepEqual(asked, [["a", "cartesian"]]); // one request per build per page
  deliverPlotly(new Uint8Array([1]), "cartesian");
  const [A, B] = await Promise.all([pa, pb]);
  assert.equal(A, B);
  assert.equal(plotlyFor("cartesian"), A);
  assert.equal(plotlyFor("full"), null, "the cartesian build does not draw 3D");
  assert.equal(await loadPlotly(a, "cartesian"), A);
  assert.equal(asked.length, 1);
});

test("a full need after the cartesian build asks for the full build, which then serves both", async () => {
  fakePage();
  const asked = [];
  const req = (bundle) => asked.push(bundle);
  deliverPlotly(new Uint8Array([1]), "cartesian"); // pushed unasked by the kernel
  const cartesian = await loadPlotly(req, "cartesian");
  assert.deepEqual(asked, [], "the pushed build is waited for, not asked again");
  const pending = loadPlotly(req, "full");
  assert.deepEqual(asked, ["full"]);
  deliverPlotly(new Uint8Array([2]), "full");
  const full = await pending;
  assert.notEqual(full, cartesian);
  assert.equal(plotlyFor("full"), full);
  assert.equal(plotlyFor("cartesian"), cartesian, "charts drawn with the cartesian build keep it");
  releasePlotly(req);
});

test("a cartesian need while only the full build is on its way waits for it", async () => {
  fakePage();
  const asked = [];
  const full = loadPlotly((bundle) => asked.push(bundle), "full");
  const cartesian = loadPlotly((bundle) => asked.push(`2:${bundle}`), "cartesian");
  assert.deepEqual(asked, ["full"]);
  deliverPlotly(new Uint8Array([2]), "full");
  assert.equal(await cartesian, await full);
});

test("a Board torn down while asking hands the request to another waiting Board", () => {
  fakePage();
  const asked = [];
  const a = (bundle) => asked.push(["a", bundle]);
  const b = (bundle) => asked.push(["b", bundle]);
  loadPlotly(a, "full");
  loadPlotly(b, "full");
  releasePlotly(a);
  assert.deepEqual(asked, [["a", "full"], ["b", "full"]]);
  releasePlotly(b);
});

test("the preload model (%load_ext) runs the build it is sent and says so; a Board then asks nothing", async () => {
  fakePage();
  const handlers = [];
  const said = [];
  const model = { on: (event, fn) => handlers.push([event, fn]), send: (msg) => said.push(msg) };
  preload.initialize({ model });
  assert.deepEqual(handlers.map(([e]) => e), ["msg:custom"]);
  handlers[0][1]({ type: "other" }, []);
  handlers[0][1]({ type: "plotly", bundle: "cartesian" }, [new Uint8Array([1])]);
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(said, [{ type: "ran" }]);
  const asked = [];
  assert.ok(await loadPlotly((b) => asked.push(b), "cartesian"));
  assert.deepEqual(asked, []);
});
