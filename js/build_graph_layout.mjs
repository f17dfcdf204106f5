// Build the graph explorer's layout worker script: dagre (pinned in package.json) and the
// nested layout around it, as one classic script, tbnb/static/graph_layout.js. It is not part of
// the bundle (saved with every widget): the kernel hands it to the page when a graph is shown,
// and the page runs it as a worker from a Blob URL.

import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
export const LAYOUT_ENTRY = path.join(here, "src", "graph", "layout_worker.js");
export const LAYOUT_OUTFILE = path.join(here, "..", "tbnb", "static", "graph_layout.js");

/** Build the layout worker script to `outfile`; resolves with its size in bytes. */
export async function buildGraphLayout(outfile = LAYOUT_OUTFILE, extra = {}) {
  const result = await esbuild.build({
    entryPoints: [LAYOUT_ENTRY],
    outfile,
    bundle: true,
    format: "iife",
    minify: true,
    target: ["es2020"],
    platform: "browser",
    legalComments: "inline", // dagre's licence travels with its code
    logLevel: "warning",
    metafile: true,
    ...extra,
  });
  return Object.values(result.metafile.outputs)[0].bytes;
}
