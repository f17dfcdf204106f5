// The explorer's script entry: built as a classic script (build_graph_explorer.mjs) that hands
// the explorer to the page's bundle on a global, as the Markdown libraries are handed over.

import { Explorer } from "./explorer.js";

globalThis.__tbnb_graph_explorer_module__ = { Explorer };
