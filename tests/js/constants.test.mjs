// The constants shared with the kernel come from tbnb/board/constants.json (which protocol.py
// reads): the page uses exactly its values, and no other source file carries a copy of them.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as constants from "../../js/src/core/constants.js";
import { PALETTE } from "../../js/src/core/colors.js";
import { BASIS_POINTS } from "../../js/src/dashboards/distributions/distribution.js";
import { DEFAULTS } from "../../js/src/core/traits.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SHARED = JSON.parse(readFileSync(path.join(ROOT, "tbnb", "board", "constants.json"), "utf8"));
const SRC = path.join(ROOT, "js", "src");

function sources(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".js") ? [full] : [];
  });
}

test("constants.js exports the JSON's values", () => {
  assert.deepEqual(constants.PALETTE, SHARED.palette);
  assert.deepEqual(constants.BASIS_POINTS, SHARED.basis_points);
  assert.equal(constants.DEFAULT_CARD_WIDTH, SHARED.default_card_width);
  assert.equal(constants.DEFAULT_SMOOTHING, SHARED.default_smoothing);
  assert.deepEqual(constants.DASHBOARD_IDS, SHARED.dashboards);
  assert.deepEqual(constants.CARD_TYPES, SHARED.card_types);
  assert.deepEqual(constants.DEFAULT_CARD_TYPES, SHARED.default_card_types);
  assert.deepEqual(constants.HISTOGRAM_MODES, SHARED.histogram_modes);
  assert.deepEqual(constants.X_AXES, SHARED.x_axes);
});

test("the modules that use them use the JSON's values", () => {
  assert.deepEqual(PALETTE, SHARED.palette);
  assert.deepEqual(BASIS_POINTS, SHARED.basis_points);
  assert.equal(DEFAULTS.card_width, SHARED.default_card_width);
  assert.equal(DEFAULTS.smoothing, SHARED.default_smoothing);
  assert.equal(DEFAULTS.dashboard, SHARED.dashboards[0]);
  assert.deepEqual(DEFAULTS.card_types, SHARED.default_card_types);
  assert.equal(DEFAULTS.histogram_mode, SHARED.histogram_modes[0]);
  assert.equal(DEFAULTS.x_axis, SHARED.x_axes[0]);
  assert.equal(DEFAULTS.view.x_axis, SHARED.x_axes[0]);
});

test("no other source file writes a palette colour, the basis points or the card width", () => {
  const files = sources();
  assert.ok(files.length > 20, "the source tree was found");
  const basis = SHARED.basis_points.filter((p) => p !== 0 && p !== 5000 && p !== 10000);
  for (const file of files) {
    if (file === path.join(SRC, "core", "constants.js")) continue;
    const text = readFileSync(file, "utf8");
    const name = path.relative(SRC, file);
    for (const color of SHARED.palette) assert.ok(!text.toLowerCase().includes(color), `${name} writes ${color}`);
    for (const point of basis) assert.doesNotMatch(text, new RegExp(`\\b${point}\\b`), `${name} writes basis point ${point}`);
    const width = new RegExp(`card[_-]?width\\W{0,8}${SHARED.default_card_width}\\b`, "i");
    assert.doesNotMatch(text, width, `${name} writes the default card width`);
  }
});
