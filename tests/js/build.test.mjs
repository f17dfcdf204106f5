// The bundle: builds with esbuild, stays small, carries no plotly.js, exports {render}.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "../../js/build.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "tbnb-bundle-"));
const outfile = path.join(dir, "board.js");
test.after(() => rmSync(dir, { recursive: true, force: true }));

test("the bundle builds, is small and self-contained", async () => {
  const result = await build(outfile);
  assert.deepEqual(result.errors, []);
  const text = readFileSync(outfile, "utf8");
  const size = Buffer.byteLength(text);
  assert.ok(size < 100 * 1024, `bundle is ${size} bytes`);
  assert.ok(size < 60 * 1024, `bundle is ${size} bytes: over the 60 KB target`);
  assert.equal(Object.keys(result.metafile.outputs).length, 1, "one file: no code splitting");
  assert.doesNotMatch(text, /\bimport\s*\(/, "no dynamic imports of chunks");
  assert.doesNotMatch(text, /^import\s/m, "no static imports left");
});

test("no plotly.js library code in the bundle", () => {
  const text = readFileSync(outfile, "utf8");
  for (const marker of ["plotly.js v", "Copyright 2012-", "maplibre", "topojson", "PlotlyConfig", "_guiRelayout", "Plotly.register"]) {
    assert.ok(!text.includes(marker), `found ${marker}`);
  }
});

test("the bundle exports a default object with render (importable without a DOM)", async () => {
  const mod = await import(pathToFileURL(outfile).href);
  assert.equal(typeof mod.default, "object");
  assert.equal(typeof mod.default.render, "function");
});
