// The bundle: builds with esbuild, stays small, carries no plotly.js, exports {render}; marked
// and DOMPurify travel inside it gzipped (unpacked by the page when a text card needs them).
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { build, buildLibs } from "../../js/build.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "tbnb-bundle-"));
const outfile = path.join(dir, "board.js");
test.after(() => rmSync(dir, { recursive: true, force: true }));

test("the bundle builds, is small and self-contained", async () => {
  const result = await build(outfile);
  assert.deepEqual(result.errors, []);
  const text = readFileSync(outfile, "utf8");
  const size = Buffer.byteLength(text);
  // Saved with every widget in the notebook: 200 KB at most (scalars alone were 50 KB; the other
  // dashboards, marked and DOMPurify brought it to about 121 KB; PR curves, custom scalars,
  // hparams and mesh to about 156 KB). Dashboards beyond these should be packed apart and
  // unpacked on first use, as the Markdown libraries are, rather than raise this again. 208 KB:
  // the segmentation card and the "compare runs" row are packed apart (media_view.js, ~14 KB);
  // what stays is link by step for image and audio cards, the compare toggle and the
  // segmentation card's shell (~3.6 KB). 232 KB: the diagnostics tab (~12 KB), custom cards and
  // installed dashboards' loader (~7 KB) are still in the bundle; packing the diagnostics tab apart
  // as media_view.js is, and then lowering this bound, is open work.
  assert.ok(size < 232 * 1024, `bundle is ${size} bytes`);
  assert.equal(Object.keys(result.metafile.outputs).length, 1, "one file: no code splitting");
  // No code-split chunks: the one dynamic import is of an installed dashboard's module, from the
  // Blob URL plugins.js makes of the code the kernel sent (import(t) of a variable, never a path).
  assert.doesNotMatch(text, /\bimport\s*\(\s*["'`]/, "no dynamic imports of chunks");
  assert.equal((text.match(/\bimport\s*\(/g) || []).length, 1, "one dynamic import: installed dashboards'");
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

test("marked and DOMPurify are inside, gzipped, with their licences, and nowhere else", async () => {
  const text = readFileSync(outfile, "utf8");
  const packed = text.match(/"([A-Za-z0-9+/]{20000,}={0,2})"/);
  assert.ok(packed, "the packed Markdown libraries are in the bundle");
  const libs = gunzipSync(Buffer.from(packed[1], "base64")).toString("utf8");
  assert.equal(libs, await buildLibs());
  assert.match(libs, /marked v\d+\.\d+\.\d+/, "marked's licence comment");
  assert.match(libs, /DOMPurify \d+\.\d+\.\d+/, "DOMPurify's licence comment");
  assert.match(libs, /__tbnb_markdown_libs__/);
  assert.ok(packed[1].length < 45 * 1024, `packed libraries are ${packed[1].length} bytes`);
  // Not also bundled unpacked.
  for (const marker of ["Cure53", "markedjs", "annotation-xml", "blockquoteStart"]) assert.ok(!text.includes(marker), `found ${marker}`);
});
