// Installed dashboards on the page: a plugin's module (its default export called with the API)
// describes a dashboard that registerDashboard adds as a tab with its card kinds, under the same
// checks as the built-in ones; a bad one is refused with a reason and the others stay.
import test from "node:test";
import assert from "node:assert/strict";
import { API, API_VERSION } from "../../js/src/api.js";
import { Card } from "../../js/src/cards/card.js";
import { DASHBOARDS, kindOf, layoutItems, normalizeDashboard, registerDashboard } from "../../js/src/core/layout.js";
import { describe, registerPlugins } from "../../js/src/core/plugins.js";

test("the API holds the contract's helper groups, frozen", () => {
  assert.equal(API.version, API_VERSION);
  assert.deepEqual(Object.keys(API).sort(), ["cards", "codec", "dom", "media", "plotly", "scalar", "series", "steps", "theme", "version"]);
  for (const group of Object.values(API)) if (typeof group === "object") assert.ok(Object.isFrozen(group));
  assert.equal(API.cards.Card, Card);
  assert.ok(Object.isFrozen(API) && Object.isFrozen(API.cards));
  assert.equal(typeof API.codec.decode, "function");
});

test("a plugin's default export gets the API and its dashboard becomes a tab, last", () => {
  let seen = null;
  const module = {
    default(api) {
      seen = api;
      class Mine extends api.cards.Card {}
      return { id: "mine", label: "Mine", whole: true, cards: { mine: { Card: Mine, plugin: "scalars", noun: "scalar", perRun: false } } };
    },
  };
  const dashboard = describe(module, { name: "mine" });
  assert.equal(seen, API);
  assert.equal(normalizeDashboard("mine"), "timeseries"); // unknown until registered
  registerDashboard(dashboard);
  assert.equal(normalizeDashboard("mine"), "mine");
  assert.equal(DASHBOARDS[DASHBOARDS.length - 1].id, "mine");
  assert.equal(kindOf("mine").label, "Mine");
  const tags = new Map([["scalars", new Map([["loss", { runs: ["a"] }]])]]);
  const layout = layoutItems({ dashboard: "mine", cardTypes: [], tags, shown: new Set(["a"]) });
  assert.deepEqual(layout.groups[0].items, [{ kind: "mine", tag: "scalars", run: null, rowStart: false }]);
});

test("a clash or a malformed dashboard is refused with its reason", () => {
  class C extends Card {}
  assert.throws(() => registerDashboard({ id: "scalars", label: "Again", cards: {} }), /dashboard "scalars" exists already/);
  assert.throws(() => registerDashboard({ id: "x1", label: "X", cards: { scalars: { Card: C, plugin: "scalars" } } }), /card kind "scalars" exists already/);
  assert.throws(() => registerDashboard({ id: "x2", label: "X", cards: { k: { plugin: "scalars" } } }), /needs a Card class/);
  assert.throws(() => describe({ default: () => ({ id: "other", label: "O", cards: {} }) }, { name: "x3" }), /not its entry point's name "x3"/);
  assert.throws(() => describe({}, { name: "x4" }), /default export is not a function/);
  assert.equal(normalizeDashboard("x1"), "timeseries");
});

test("a plugins reply of another API version registers nothing and says why", async () => {
  const errors = [];
  const ids = await registerPlugins({ type: "plugins", api: API_VERSION + 1, dashboards: [{ name: "z", buffer: 0 }] }, [new ArrayBuffer(0)], (t) => errors.push(t));
  assert.deepEqual(ids, []);
  assert.match(errors[0], /installed dashboards use API 2, this page 1/);
});
