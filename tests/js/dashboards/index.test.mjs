// The registry of dashboards: one module per dashboard, each exporting `dashboard` with the
// fields core/layout.js reads; the same dashboards as the kernel's list; nothing outside core/layout.js
// names a dashboard module, so that adding one touches neither the Board nor other dashboards.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Card } from "../../../js/src/cards/card.js";
import { CARD_TYPES, DASHBOARD_IDS } from "../../../js/src/core/constants.js";
import * as registry from "../../../js/src/dashboards/index.js";
import { DASHBOARDS, KINDS } from "../../../js/src/core/layout.js";

const SRC = fileURLToPath(new URL("../../../js/src/", import.meta.url));

test("the registry holds the kernel's dashboards (constants.json), in its order for the tabs", () => {
  assert.deepEqual(Object.keys(registry).sort(), [...DASHBOARD_IDS].sort());
  assert.deepEqual(DASHBOARDS.map((d) => d.id), [...DASHBOARD_IDS]);
});

test("each registry entry is its module's `dashboard`, named by its id, with its cards' specs", () => {
  const kinds = new Map();
  for (const [name, d] of Object.entries(registry)) {
    assert.equal(d.id, name);
    assert.equal(typeof d.label, "string");
    assert.ok(d.label.length > 0);
    assert.equal(typeof d.cards, "object");
    for (const [kind, spec] of Object.entries(d.cards)) {
      assert.ok(!kinds.has(kind), `${kind} is defined by ${kinds.get(kind)} and ${name}`);
      kinds.set(kind, name);
      assert.ok(spec.Card.prototype instanceof Card, `${kind}'s card class extends Card`);
      assert.equal(typeof spec.plugin, "string");
      assert.equal(typeof spec.noun, "string");
      assert.equal(typeof spec.perRun, "boolean");
    }
    assert.ok(d.cardTypes || Object.keys(d.cards).length > 0, `${name} shows some kind of card`);
  }
  for (const type of CARD_TYPES) assert.ok(KINDS.has(type), `card type ${type} has a card class`);
});

test("only core/layout.js imports the registry; no module outside dashboards/ imports a dashboard", () => {
  const dashboards = path.join(SRC, "dashboards");
  const files = sources(SRC).filter((file) => !file.startsWith(dashboards + path.sep));
  assert.ok(files.some((file) => file.endsWith(path.join("core", "layout.js"))), "the source tree was found");
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const imports = [...text.matchAll(/from\s+"(\.[^"]+)"/g)]
      .map((m) => path.resolve(path.dirname(file), m[1]))
      .filter((target) => target.startsWith(dashboards + path.sep))
      .map((target) => path.relative(dashboards, target));
    const name = path.relative(SRC, file);
    assert.deepEqual(imports, name === path.join("core", "layout.js") ? ["index.js"] : [], name);
  }
});

/** Every .js file under `dir`. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".js") ? [full] : [];
  });
}
