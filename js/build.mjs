// Build the Board's front end: one self-contained ESM file, tbnb/static/board.js.
//
// anywidget loads `_esm` from a Blob URL, so there is no code splitting (a chunk could not be
// found) and every import is bundled. plotly.js is not: the page gets it from the kernel once
// (the cartesian-only build, copied here from npm, first; the full one when a dashboard needs it).
// The Markdown renderer and sanitiser (marked, DOMPurify: 85 KB minified) are only needed by
// text cards, and the bundle is saved with every widget: they are built into a separate script
// (src/dashboards/text/markdown_libs.js, with their licence comments), gzipped and inlined as base64 text
// (about 38 KB), which src/dashboards/text/markdown.js unpacks and runs the first time a text card needs it.
//   node build.mjs            build (minified)
//   node build.mjs --watch    rebuild on change (with an inline source map)

import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { buildGraphExplorer } from "./build_graph_explorer.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const ENTRY = path.join(here, "src", "core", "board.js");
export const LIBS_ENTRY = path.join(here, "src", "dashboards", "text", "markdown_libs.js");
export const OUTFILE = path.join(here, "..", "tbnb", "static", "board.js");
/** Dashboard code built apart from the bundle (which is saved with every widget) and sent by the
 * kernel when first needed, as plotly.js is: one classic script (IIFE) per entry, next to it. */
export const LAZY = {
  projector_view: path.join(here, "src", "dashboards", "projector", "projector_view.js"),
  media_view: path.join(here, "src", "dashboards", "images", "media_view.js"),
};
const LIBS_MODULE = "tbnb:markdown-libs";
/** plotly.js's cartesian-only dist bundle (npm, pinned to the Python plotly's plotly.js version):
 * copied next to the bundle as a package asset; the kernel hands it over before the full
 * plotly.min.js, which only dashboards that declare `plotly: "full"` wait for. */
export const PLOTLY_CARTESIAN = path.join(here, "node_modules", "plotly.js-cartesian-dist-min", "plotly-cartesian.min.js");
export const PLOTLY_CARTESIAN_OUT = path.join(path.dirname(OUTFILE), "plotly-cartesian.min.js");

/** The Markdown libraries as one classic script (an IIFE), minified. */
export async function buildLibs() {
  // marked's header is not a legal comment esbuild keeps: say it in a banner.
  const marked = JSON.parse(readFileSync(path.join(here, "node_modules", "marked", "package.json"), "utf8"));
  const result = await esbuild.build({
    banner: { js: `/*! marked v${marked.version} | (c) 2018-present MarkedJS, (c) 2011-2018 Christopher Jeffrey | MIT License | github.com/markedjs/marked */` },
    entryPoints: [LIBS_ENTRY],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
    target: ["es2020"],
    platform: "browser",
    legalComments: "inline", // marked's and DOMPurify's licences travel with their code
    logLevel: "warning",
  });
  return result.outputFiles[0].text;
}

/** esbuild plugin: `import { LIBS } from "tbnb:markdown-libs"` is that script, gzipped, as base64. */
const markdownLibs = {
  name: "markdown-libs",
  setup(build) {
    build.onResolve({ filter: /^tbnb:markdown-libs$/ }, () => ({ path: LIBS_MODULE, namespace: "tbnb" }));
    build.onLoad({ filter: /.*/, namespace: "tbnb" }, async () => {
      const packed = gzipSync(Buffer.from(await buildLibs()), { level: 9 }).toString("base64");
      return { contents: `export const LIBS = ${JSON.stringify(packed)};`, loader: "js" };
    });
  },
};

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
    plugins: [markdownLibs],
    ...extra,
  };
}

/** Build the LAZY entries into `outdir` (minified IIFEs); resolves with their sizes in bytes. */
export async function buildLazy(outdir = path.dirname(OUTFILE)) {
  const sizes = {};
  for (const [name, entry] of Object.entries(LAZY)) {
    const outfile = path.join(outdir, `${name}.js`);
    const result = await esbuild.build({
      entryPoints: [entry], outfile, bundle: true, format: "iife", minify: true, target: ["es2020"],
      platform: "browser", legalComments: "none", logLevel: "warning", metafile: true,
    });
    sizes[name] = Object.values(result.metafile.outputs)[0].bytes;
  }
  return sizes;
}

/** The module `%load_ext tbnb` sends plotly.js with before any Board (src/core/preload.js): an ESM
 * of its own, next to the bundle. */
export const PRELOAD = path.join(here, "src", "core", "preload.js");
export const PRELOAD_OUT = path.join(path.dirname(OUTFILE), "preload.js");

/** Build the preload module; resolves with its size in bytes. */
export async function buildPreload(outfile = PRELOAD_OUT) {
  const result = await esbuild.build({
    entryPoints: [PRELOAD], outfile, bundle: true, format: "esm", minify: true, target: ["es2020"],
    platform: "browser", legalComments: "none", logLevel: "warning", metafile: true,
  });
  return Object.values(result.metafile.outputs)[0].bytes;
}

/** Copy the cartesian plotly.js asset into `outfile`'s folder; its size in bytes. */
export function copyPlotlyCartesian(outfile = PLOTLY_CARTESIAN_OUT) {
  mkdirSync(path.dirname(outfile), { recursive: true });
  copyFileSync(PLOTLY_CARTESIAN, outfile);
  return readFileSync(outfile).length;
}

/** Build to `outfile`; resolves with esbuild's result (metafile included). */
export function build(outfile = OUTFILE) {
  return esbuild.build(options(outfile, { metafile: true }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--watch")) {
    const ctx = await esbuild.context(options(OUTFILE, { minify: false, sourcemap: "inline", logLevel: "info" }));
    await ctx.watch();
    await buildGraphExplorer(undefined, { minify: false });
  } else {
    const result = await build();
    const explorerBytes = await buildGraphExplorer();
    console.log(`graph explorer (handed over by the kernel): ${(explorerBytes / 1024).toFixed(1)} KB`);
    const bytes = Object.values(result.metafile.outputs)[0].bytes;
    console.log(`${path.relative(process.cwd(), OUTFILE)}: ${(bytes / 1024).toFixed(1)} KB`);
    for (const [name, size] of Object.entries(await buildLazy())) console.log(`  lazy ${name}.js: ${(size / 1024).toFixed(1)} KB`);
    console.log(`  plotly-cartesian.min.js (asset, handed over by the kernel): ${(copyPlotlyCartesian() / 1024).toFixed(1)} KB`);
    console.log(`  preload.js (%load_ext's plotly.js carrier): ${((await buildPreload()) / 1024).toFixed(1)} KB`);
  }
}
