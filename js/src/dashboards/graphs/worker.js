// The layout worker, once per page: its script (dagre and nested_layout.js, built by
// build_graph_explorer.mjs) is inlined in the explorer's module as text and runs from a Blob URL
// as a worker, shared by every Board on the page through globalThis. Layouts are asked by id;
// each answer settles its promise.

const KEY = "__tbnb_graph_layout__";

class LayoutWorker {
  constructor(bytes) {
    this.url = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
    this.worker = new Worker(this.url);
    this.next = 1;
    this.pending = new Map();
    this.worker.onmessage = (event) => {
      const { id, result, error, ms } = event.data || {};
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (error) p.reject(new Error(`layout failed: ${error}`));
      else p.resolve({ result, ms });
    };
    this.worker.onerror = (event) => {
      const error = new Error(`the layout worker failed: ${event.message || "error"}`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
  }

  /** Resolves with {result, ms}: nested_layout.js's result for `input`, and its time in the worker. */
  layout(input) {
    const id = this.next;
    this.next += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, input });
    });
  }
}

/** Resolves with the page's layout worker (started on the first call). */
export function layoutWorker() {
  const g = globalThis;
  if (!g[KEY]) {
    // Imported when first needed (the explorer's build inlines it), so that this module loads
    // in node's tests too, where only esbuild's plugin resolves this name.
    const starting = import("tbnb:graph-worker").then(({ WORKER }) => new LayoutWorker(WORKER));
    g[KEY] = starting;
    starting.catch(() => {
      if (g[KEY] === starting) delete g[KEY]; // the next graph asks again
    });
  }
  return g[KEY];
}
