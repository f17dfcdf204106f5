// plotly.js's first drawing on a page costs several times a later one (V8 compiles its code
// paths; plotly measures text and adds its styles), and so does its first animation frame (the
// path the smoothing slider takes). Both are paid once, here, on a hidden plot of its own: never
// on a card the user is looking at (a card redrawn with the same lines still changes under the
// user's eyes and holds the page up), and, with `%load_ext tbnb`, before any Board exists.

const KEY = "__tbnb_plotly_warm__";
const POINTS = 1000;

/** Warm `Plotly` once per page (a promise, settled when done or failed; failures are ignored:
 * the only cost of a cold plotly is time). */
export function warmPlotly(Plotly) {
  const g = globalThis;
  if (g[KEY]) return g[KEY];
  if (!Plotly || typeof document === "undefined" || !document.body) return Promise.resolve();
  const el = document.createElement("div");
  el.setAttribute("aria-hidden", "true");
  Object.assign(el.style, { position: "fixed", left: "-10000px", top: "0", width: "480px", height: "260px", visibility: "hidden", pointerEvents: "none" });
  document.body.appendChild(el);
  const x = Array.from({ length: POINTS }, (_, i) => i);
  const y = x.map((i) => Math.sin(i / 40));
  const line = (width, opacity) => ({ x, y, type: "scatter", mode: "lines", line: { width }, opacity, hoverinfo: "x+y" });
  const layout = { margin: { l: 48, r: 8, t: 8, b: 32 }, showlegend: false, hovermode: "closest", xaxis: { automargin: true }, yaxis: { automargin: true } };
  const frame = { data: [{ y: y.map((v) => 0.9 * v) }], traces: [1] };
  g[KEY] = Promise.resolve()
    .then(() => Plotly.react(el, [line(1, 0.4), line(1.5, 1)], layout, { displayModeBar: false, responsive: false }))
    .then(() => Plotly.animate(el, frame, { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } }))
    .catch(() => {})
    .then(() => {
      try {
        Plotly.purge(el);
      } catch (_err) {
        // a plot that never drew has nothing to purge
      }
      el.remove();
    });
  return g[KEY];
}
