// Build the Board's front end: one self-contained ESM file, tbnb/static/board.js.
//
// anywidget loads `_esm` from a Blob URL, so there is no code splitting (a chunk could not be
// found) and every import is bundled. plotly.js is not: the page gets it from the kernel once.
//   node build.mjs            build (minified)
//   node build.mjs --watch    rebuild on change (with an inline source map)

import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
export const ENTRY = path.join(here, "src", "board.js");
export const OUTFILE = path.join(here, "..", "tbnb", "static", "board.js");

export function options(outfile = OUTFILE, extra = {}) {
  return {
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    format: "esm",
    minify: true,
    splitting: false,
    target: ["es2020"],
    platform: "browser",
    define: { "define.amd": "false" },
    legalComments: "none",
    logLevel: "warning",
    ...extra,
  };
}

/** Build to `outfile`; resolves with esbuild's result (metafile included). */
export function build(outfile = OUTFILE) {
  return esbuild.build(options(outfile, { metafile: true }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--watch")) {
    const ctx = await esbuild.context(options(OUTFILE, { minify: false, sourcemap: "inline", logLevel: "info" }));
    await ctx.watch();
  } else {
    const result = await build();
    const bytes = Object.values(result.metafile.outputs)[0].bytes;
    console.log(`${path.relative(process.cwd(), OUTFILE)}: ${(bytes / 1024).toFixed(1)} KB`);
  }
}
