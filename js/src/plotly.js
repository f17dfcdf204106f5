// plotly.js, once per page: not bundled (4.8 MB, and the bundle is saved with every widget),
// but asked of the kernel over the comm by the first Board that needs it. One promise is kept
// on globalThis so that every Board on the page shares one copy; a Board that goes away while
// its request is pending hands the request over to another waiting Board.

const KEY = "__tbnb_plotly__";
const TIMEOUT_MS = 120000;

function state() {
  const g = globalThis;
  if (!g[KEY]) {
    let resolve, reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // handled by whoever awaits it
    g[KEY] = { promise, resolve, reject, waiters: new Set(), owner: null, loading: false, timer: null };
  }
  return g[KEY];
}

function ask(s, requester) {
  s.owner = requester;
  clearTimeout(s.timer);
  s.timer = setTimeout(() => fail(s, new Error("the kernel did not send plotly.js")), TIMEOUT_MS);
  requester();
}

function fail(s, error) {
  clearTimeout(s.timer);
  if (globalThis[KEY] === s) delete globalThis[KEY]; // the next Board tries again
  s.reject(error);
}

/**
 * Resolves with globalThis.Plotly. `requester()` sends {"type": "plotly"} on this Board's comm;
 * it is called only if no other Board has asked already.
 */
export function loadPlotly(requester) {
  if (globalThis.Plotly) return Promise.resolve(globalThis.Plotly);
  const s = state();
  s.waiters.add(requester);
  if (!s.owner && !s.loading) ask(s, requester);
  return s.promise;
}

/** This Board no longer waits (it is being torn down). */
export function releasePlotly(requester) {
  const s = globalThis[KEY];
  if (!s) return;
  s.waiters.delete(requester);
  if (s.owner === requester && !s.loading) {
    s.owner = null;
    const next = s.waiters.values().next();
    if (!next.done) ask(s, next.value);
  }
}

/** Run the UMD build from `bytes` as a classic script and resolve when it set globalThis.Plotly. */
export function deliverPlotly(bytes) {
  if (globalThis.Plotly) {
    const s = globalThis[KEY];
    if (s) s.resolve(globalThis.Plotly);
    return;
  }
  const s = state();
  if (s.loading) return;
  s.loading = true;
  clearTimeout(s.timer);
  const url = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  const script = document.createElement("script");
  // A page with an AMD loader (classic Notebook's RequireJS) would take the UMD build as an
  // anonymous module instead of a global: hide `define` while the script runs.
  const define = globalThis.define;
  const hide = typeof define === "function" && define.amd;
  if (hide) globalThis.define = undefined;
  const done = (error) => {
    if (hide) globalThis.define = define;
    URL.revokeObjectURL(url);
    script.remove();
    if (!error && globalThis.Plotly) s.resolve(globalThis.Plotly);
    else fail(s, error || new Error("plotly.js ran but did not define Plotly"));
  };
  script.onload = () => done(null);
  script.onerror = () => done(new Error("plotly.js could not be loaded from the kernel's bytes"));
  script.src = url;
  document.head.appendChild(script);
}
