// A custom card (board.add_card(title, fn) in Python): the figure or table the kernel's `fn(lg,
// runs)` returned for the shown runs, in the time series tab's "Custom" section. The kernel runs
// `fn` again after each poll that brought new data to those runs and pushes the new figure
// (protocol.md, "Custom cards"); the page only draws it, in the Board's theme and run colours.

import { Card } from "./card.js";
import { CONFIG, baseLayout } from "./chart_card.js";
import { h } from "../dom.js";
import { loadPlotly, plotlyFor } from "../core/plotly.js";
import { PlotFit } from "./plot_fit.js";
import { buildTable } from "../widgets/table.js";

/** The trace types of plotly.js's cartesian build (what the page has first). */
const CARTESIAN = new Set(["scatter", "bar", "box", "heatmap", "histogram", "histogram2d", "histogram2dcontour", "contour", "pie", "violin", "image"]);
/** From this wall time (s) of `fn`, the card says how long it took. */
export const SLOW_S = 0.5;

/** The traces, each one named after a run given that run's colour unless it set one (the
 * twin of tbnb/board/custom_figure.py's with_run_colors). */
export function runColored(traces, runs, colorOf) {
  const named = new Set(runs);
  return traces.map((trace) => {
    if (!trace || typeof trace !== "object" || !named.has(trace.name)) return trace;
    const marker = trace.marker && typeof trace.marker === "object" ? trace.marker : {};
    const line = trace.line && typeof trace.line === "object" ? trace.line : {};
    if (marker.color || line.color) return trace;
    const color = colorOf(trace.name);
    return { ...trace, marker: { ...marker, color }, line: { ...line, color } };
  });
}

/** plotly wants rows for a 2-D array (a heatmap's z): a typed array with a 2-D shape becomes rows. */
function plotlyArrays(value) {
  if (ArrayBuffer.isView(value)) {
    const shape = value.shape;
    if (Array.isArray(shape) && shape.length === 2) {
      const [n, m] = shape;
      return Array.from({ length: n }, (_, i) => value.subarray(i * m, (i + 1) * m));
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(plotlyArrays);
  if (value && typeof value === "object") {
    const out = {};
    for (const [key, item] of Object.entries(value)) out[key] = plotlyArrays(item);
    return out;
  }
  return value;
}

/** The layout of the user's figure over the Board's (theme colours, size, margins). */
export function themedLayout(base, layout) {
  const own = layout && typeof layout === "object" ? layout : {};
  return {
    ...base,
    showlegend: own.showlegend ?? true,
    ...own,
    font: { ...base.font, ...(own.font || {}) },
    margin: { ...base.margin, ...(own.margin || {}) },
    height: base.height,
  };
}

export class CustomCard extends Card {
  build() {
    this.title = h("div", { class: "tbnb-card-title", text: this.tag, title: this.tag });
    this.meta = h("span", { class: "tbnb-card-meta" });
    this.sub = h("div", { class: "tbnb-card-sub" }, this.meta);
    this.plot = h("div", { class: "tbnb-body-custom", style: { minHeight: "120px" } });
    this.el = h(
      "div",
      { class: "tbnb-card tbnb-card-custom", dataset: { tag: this.tag, kind: this.kind } },
      h("div", { class: "tbnb-card-head" }, this.title, this.expandButton),
      this.sub,
      this.plot,
    );
  }

  /** Every shown run, in the index's order: the function gets them all. */
  runs() {
    return this.board.runNames().filter((run) => this.board.shown.has(run));
  }

  canLoad() {
    return Boolean(this.board.index);
  }

  runsChanged() {
    const runs = this.runs().join("\u0000");
    if (this.askedRuns !== undefined && runs !== this.askedRuns) this.dirty = true;
    super.runsChanged();
  }

  load() {
    const runs = this.runs();
    this.askedRuns = runs.join("\u0000");
    this.request("custom", { type: "custom_card", title: this.tag, runs }, (msg) => {
      this.data = msg;
      this.loading = false;
      this.draw();
    });
  }

  updateSub() {
    if (!this.meta) return;
    const msg = this.data || {};
    const parts = [];
    if (this.error) parts.push(this.error);
    else if (this.loading) parts.push("running…");
    if (Number(msg.seconds) > SLOW_S) parts.push(`fn took ${Number(msg.seconds).toFixed(1)} s`);
    if (msg.table) parts.push(`${msg.table.total} rows`);
    this.meta.textContent = parts.join(" · ");
    this.meta.classList.toggle("tbnb-error", Boolean(this.error));
  }

  /** The figure's trace types need plotly.js's full build: ask for it once, redraw when it runs. */
  plotlyFor(traces) {
    const full = traces.some((t) => t && typeof t.type === "string" && !CARTESIAN.has(t.type));
    if (!full) return this.board.plotly;
    const Plotly = plotlyFor("full");
    if (!Plotly && !this.askedFull) {
      this.askedFull = true;
      loadPlotly((bundle) => this.board.model.send({ type: "plotly", bundle }), "full").then(
        () => !this.destroyed && this.redraw(),
        (error) => !this.destroyed && this.board.banner(`plotly.js could not be loaded: ${error.message}`),
      );
    }
    return Plotly;
  }

  render() {
    const msg = this.data;
    if (typeof msg.error === "string") {
      this.purge();
      this.plot.replaceChildren(h("pre", { class: "tbnb-placeholder tbnb-error", text: msg.error }));
      return true;
    }
    if (msg.table) {
      this.purge();
      const table = msg.table;
      const head = [table.columns, ...table.rows];
      const more = table.total > table.rows.length ? [h("div", { class: "tbnb-placeholder", text: `${table.total - table.rows.length} more rows not shown` })] : [];
      this.plot.replaceChildren(h("div", { class: "tbnb-table-wrap", style: { maxHeight: "360px", overflow: "auto" } }, buildTable(this.el.ownerDocument, head, { maxRows: head.length }), ...more));
      return true;
    }
    const figure = msg.figure || {};
    const traces = runColored(plotlyArrays(figure.data || []), this.runs(), (run) => this.board.colorOf(run));
    const Plotly = this.plotlyFor(traces);
    if (!Plotly) {
      this.needsDraw = true;
      return false;
    }
    if (!this.charted) this.plot.replaceChildren();
    this.plot.style.height = this.expanded ? "420px" : "260px";
    const base = { ...baseLayout(this), height: this.expanded ? 420 : 260 };
    Plotly.react(this.plot, traces, themedLayout(base, plotlyArrays(figure.layout || {})), CONFIG);
    this.charted = true;
    return true;
  }

  /** Leave plotly's chart (a table or a message takes its place). */
  purge() {
    const Plotly = this.board.plotly;
    if (this.charted && Plotly) Plotly.purge(this.plot);
    this.charted = false;
    this.plot.style.height = "";
  }

  resized() {
    if (!this.charted) return;
    if (!this.fit) this.fit = new PlotFit(this);
    this.fit.resized();
  }

  destroy() {
    if (this.fit) this.fit.destroy();
    this.purge();
    super.destroy();
  }
}

/** The kind of card layout.js lays out in the "Custom" section, one per title of `custom_cards`. */
export const CUSTOM_KIND = { Card: CustomCard, plugin: "custom", plugins: ["custom"], noun: "custom", perRun: false, redrawOn: [], label: "Custom" };
