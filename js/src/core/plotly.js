// plotly.js, once per page and build: not bundled (1.5 to 4.8 MB, and the bundle is saved with
// every widget), but asked of the kernel over the comm by the first Board that needs it. Two
// builds of one plotly.js version (the kernel's assets.py): "cartesian" (scatter, bar, heatmap:
// what most dashboards draw; a third of the full build's size and time to run) and "full" (every
// trace type), which only a dashboard declaring `plotly: "full"` waits for. Per build, one
// promise is kept on globalThis so that every Board on the page shares one copy; a Board that
// goes away while its request is pending hands the request over to another waiting Board.

const KEY = "__tbnb_plotly__";
const TIMEOUT_MS = 120000;
/** The builds, smallest first: each draws everything the ones before it draw. */
export const BUNDLES = ["cartesian", "full"];

const rank = (bundle) => Math.max(0, BUNDLES.indexOf(bundle));

function page() {
  const g = globalThis;
  if (!g[KEY] || !g[KEY].builds) g[KEY] = { builds: {}, loaded: {} };
  return g[KEY];
}

function state(bundle) {
  const p = page();
  if (!p.builds[bundle]) {
    let resolve, reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // handled by whoever awaits it
    p.builds[bundle] = { bundle, promise, resolve, reject, waiters: new Set(), owner: null, loading: false, timer: null };
  }
  return p.builds[bundle];
}

/** A plotly.js on the page that draws what `need` draws, or null. A Plotly put there by someone
 * else (another extension) is taken for the cartesian build, and for the full one if it has 3D. */
export function plotlyFor(need = "cartesian") {
  const loaded = page().loaded;
  for (const bundle of BUNDLES.slice(rank(need))) if (loaded[bundle]) return loaded[bundle];
  const foreign = globalThis.Plotly;
  if (foreign && !Object.values(loaded).includes(foreign)) {
    const registry = foreign.Plots && foreign.Plots.subplotsRegistry;
    if (need !== "full" || (registry && registry.gl3d)) return foreign;
  }
  return null;
}

function ask(s, requester) {
  s.owner = requester;
  clearTimeout(s.timer);
  s.timer = setTimeout(() => fail(s, new Error("the kernel did not send plotly.js")), TIMEOUT_MS);
  requester(s.bundle);
}

function fail(s, error) {
  clearTimeout(s.timer);
  const p = page();
  if (p.builds[s.bundle] === s) delete p.builds[s.bundle]; // the next Board tries again
  s.reject(error);
}

/**
 * Resolves with a Plotly that draws what `need` ("cartesian" | "full") draws.
 * `requester(bundle)` sends {"type": "plotly", "bundle"} on this Board's comm; it is called only
 * if no other Board has asked for that build already.
 */
export function loadPlotly(requester, need = "cartesian") {
  const ready = plotlyFor(need);
  if (ready) return Promise.resolve(ready);
  // A build being run (sent unasked, or asked by another Board) that is enough: wait for it.
  for (const bundle of BUNDLES.slice(rank(need))) {
    const running = page().builds[bundle];
    if (running && (running.loading || running.owner)) {
      running.waiters.add(requester);
      return running.promise;
    }
  }
  const s = state(need);
  s.waiters.add(requester);
  if (!s.owner && !s.loading) ask(s, requester);
  return s.promise;
}

/** This Board no longer waits (it is being torn down). */
export function releasePlotly(requester) {
  const p = page();
  for (const s of Object.values(p.builds)) {
    s.waiters.delete(requester);
    if (s.owner === requester && !s.loading) {
      s.owner = null;
      const next = s.waiters.values().next();
      if (!next.done) ask(s, next.value);
      else {
        clearTimeout(s.timer); // nobody waits: the next Board that needs this build asks again
        delete p.builds[s.bundle];
      }
    }
  }
}

/** Run the UMD build `bundle` from `bytes` as a classic script and resolve its promise with the
 * Plotly it set on globalThis. */
export function deliverPlotly(bytes, bundle = "full") {
  const b = BUNDLES.includes(bundle) ? bundle : "full";
  const p = page();
  const s = state(b);
  if (p.loaded[b]) return s.resolve(p.loaded[b]);
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
  const before = globalThis.Plotly;
  const done = (error) => {
    if (hide) globalThis.define = define;
    URL.revokeObjectURL(url);
    script.remove();
    const Plotly = globalThis.Plotly;
    if (!error && Plotly && Plotly !== before) {
      p.loaded[b] = Plotly;
      s.resolve(Plotly);
      // A Board waiting for a smaller build is served by this one too.
      for (const smaller of BUNDLES.slice(0, rank(b))) {
        const other = p.builds[smaller];
        if (other && !other.loading) {
          clearTimeout(other.timer);
          other.resolve(Plotly);
        }
      }
    } else fail(s, error || new Error("plotly.js ran but did not define Plotly"));
  };
  script.onload = () => done(null);
  script.onerror = () => done(new Error("plotly.js could not be loaded from the kernel's bytes"));
  script.src = url;
  document.head.appendChild(script);
}
