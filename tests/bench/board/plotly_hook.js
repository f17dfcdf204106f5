// Added to every page of the Board benchmark before any script runs (context.add_init_script).
// When plotly.js sets globalThis.Plotly, wrap the calls the Board makes (react, newPlot, update,
// restyle, animate, Plots.resize) so that the benchmark sees how long each took and for which card. The
// wrappers cost two performance.now() calls; nothing else about the page changes.
(() => {
  if (Object.getOwnPropertyDescriptor(window, "__tbnbBenchPlotly")) return;
  const P = { calls: [], definedAt: null, wrapped: [] };
  Object.defineProperty(window, "__tbnbBenchPlotly", { value: P });

  const wrap = (obj, name, label) => {
    const orig = obj && obj[name];
    if (typeof orig !== "function") return;
    const wrapper = function (gd, ...rest) {
      const t0 = performance.now();
      const out = orig.call(this, gd, ...rest);
      const t1 = performance.now();
      const card = gd && typeof gd.closest === "function" ? gd.closest(".tbnb-card") : null;
      P.calls.push({ fn: label, t0, dt: t1 - t0, tag: card ? card.dataset.tag : null });
      return out;
    };
    try {
      obj[name] = wrapper;
      if (obj[name] === wrapper) P.wrapped.push(label);
    } catch (_err) {
      // a read-only property: that call is simply not timed
    }
  };

  let value;
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    enumerable: true,
    get() {
      return value;
    },
    set(v) {
      value = v;
      if (v && P.definedAt === null) {
        P.definedAt = performance.now();
        for (const name of ["react", "newPlot", "update", "restyle", "relayout", "animate", "purge"]) wrap(v, name, name);
        wrap(v.Plots, "resize", "resize");
      }
    },
  });
})();
