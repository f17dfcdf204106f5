// Build the graph explorer's script, tbnb/static/graph_explorer.js: src/dashboards/graphs/explorer.js (as a
// classic script handing it over on a global) with the layout worker's script (dagre, pinned in package.json, and
// src/dashboards/graphs/nested_layout.js, built first as a classic script) inlined as text. It is not part
// of the bundle (saved with every widget): the kernel hands it to the page when a graph is first
// shown; the page runs it from a Blob URL and starts the worker from the inlined text.

import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
export const EXPLORER_ENTRY = path.join(here, "src", "dashboards", "graphs", "explorer_entry.js");
export const WORKER_ENTRY = path.join(here, "src", "dashboards", "graphs", "layout_worker.js");
export const EXPLORER_OUTFILE = path.join(here, "..", "tbnb", "static", "graph_explorer.js");

const common = { bundle: true, target: ["es2020"], platform: "browser", logLevel: "warning" };

/** The layout worker as one classic script, dagre's licence kept. */
async function workerScript(minify) {
  const result = await esbuild.build({ ...common, entryPoints: [WORKER_ENTRY], write: false, format: "iife", minify, legalComments: "inline" });
  return result.outputFiles[0].text;
}

/** Build the explorer's script to `outfile`; resolves with its size in bytes. */
export async function buildGraphExplorer(outfile = EXPLORER_OUTFILE, { minify = true } = {}) {
  const worker = await workerScript(minify);
  const inline = {
    name: "graph-worker",
    setup(build) {
      build.onResolve({ filter: /^tbnb:graph-worker$/ }, () => ({ path: "graph-worker", namespace: "tbnb-graph" }));
      build.onLoad({ filter: /.*/, namespace: "tbnb-graph" }, () => ({ contents: `export const WORKER = ${JSON.stringify(worker)};`, loader: "js" }));
    },
  };
  const result = await esbuild.build({
    ...common,
    entryPoints: [EXPLORER_ENTRY],
    outfile,
    format: "iife",
    minify,
    legalComments: "none",
    metafile: true,
    plugins: [inline],
  });
  return Object.values(result.metafile.outputs)[0].bytes;
}
