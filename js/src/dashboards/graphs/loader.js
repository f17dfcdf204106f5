// The graph explorer, once per page: not bundled (the bundle is saved with every widget, and
// most boards never show a graph) but asked of the kernel over the comm the first time a graph
// is shown (the `graph_explorer` request), run from a Blob URL as a classic script (as plotly.js
// is run) and shared by every Board on the page through globalThis.

const KEY = "__tbnb_graph_explorer_module__";
const PENDING = "__tbnb_graph_explorer_pending__";

function run(bytes) {
  const url = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    const done = (error) => {
      URL.revokeObjectURL(url);
      script.remove();
      if (!error && globalThis[KEY]) resolve(globalThis[KEY]);
      else reject(error || new Error("the graph explorer ran but did not start"));
    };
    script.onload = () => done(null);
    script.onerror = () => done(new Error("the graph explorer could not be run from the kernel's bytes"));
    script.src = url;
    document.head.appendChild(script);
  });
}

/** Resolves with {Explorer}; `ask()` resolves with the script's bytes from this Board's kernel. */
export function loadExplorer(ask) {
  const g = globalThis;
  if (g[KEY]) return Promise.resolve(g[KEY]);
  if (!g[PENDING]) {
    const loading = ask().then(run);
    g[PENDING] = loading;
    loading.catch(() => {
      if (g[PENDING] === loading) delete g[PENDING]; // the next graph asks again
    });
  }
  return g[PENDING];
}
