// The layout worker's script (built with dagre by build_graph_explorer.mjs and inlined in the
// explorer as text, run from a Blob URL): lays out the levels it is sent, so that a large level
// never blocks the page's main thread.

import * as dagre from "@dagrejs/dagre";
import { nestedLayout, warmInput } from "./nested_layout.js";

const cache = new Map(); // level layouts, reused when only other levels changed

self.onmessage = (event) => {
  const { id, input } = event.data || {};
  try {
    const t0 = performance.now();
    const result = nestedLayout(input, dagre, cache);
    self.postMessage({ id, result, ms: performance.now() - t0 });
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
  }
};

// Laid out once when the worker starts and thrown away (see warmInput): the first graph drawn
// then finds dagre's functions compiled.
try {
  nestedLayout(warmInput(), dagre);
} catch {
  // only a warm-up: a real layout reports its own errors
}
