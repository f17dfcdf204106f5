// The diagnostics tab: what the kernel's rules found in the selected runs (tbnb/board/dashboards/
// diagnostics.py), each finding a sentence (run, finding, evidence, advice: text, never markup)
// beside the chart that proves it (diagnostics_plot.js), and the runs with nothing found in one
// line. One card fills the area (layout.js `fills`); it asks for the list ("diagnostics") and
// each chart's data ("diagnostic_chart"); the kernel pushes both again while training writes,
// so a finding appears as soon as the data shows it. Link by step: the Board's `selected_step`
// is drawn on every step-x chart, and a click on a chart selects that step for every card.

import { Card } from "../../cards/card.js";
import { CONFIG, baseLayout } from "../../cards/chart_card.js";
import { PALETTE } from "../../core/colors.js";
import { h } from "../../dom.js";
import { chartKey, lrFigure, lrFindFigure, pairFigure, quietLine, ratioFigure, sentence } from "./diagnostics_plot.js";

const SEVERITY_COLORS = { error: "#c62828", warning: "#ef6c00", info: "#1565c0" };
const CHART_HEIGHT = 280;

/** One finding's sentence as DOM (every part is text). */
function sentenceEl(f) {
  const [run, what, evidence, advice] = sentence(f);
  const color = SEVERITY_COLORS[f.severity] || "inherit";
  return h(
    "p",
    { class: "tbnb-finding", dataset: { finding: String(f.finding), severity: String(f.severity) }, style: { margin: "4px 0" } },
    h("b", { text: `${run}: `, style: { color } }),
    h("b", { text: what, style: { color } }),
    " ",
    h("span", { class: "tbnb-evidence", text: evidence }),
    " ",
    h("i", { class: "tbnb-advice", text: advice }),
  );
}

/** One item: the findings one chart proves, and that chart. */
class DiagnosticItem {
  constructor(card, item) {
    this.card = card;
    this.key = chartKey(item.chart);
    this.data = null;
    this.drawn = false;
    this.text = h("div", { class: "tbnb-diag-text", style: { flex: "1 1 300px", minWidth: "240px" } });
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.plot = h("div", { class: "tbnb-diag-plot", style: { flex: "2 1 420px", minWidth: "300px", height: `${CHART_HEIGHT}px` } });
    this.el = h("div", { class: "tbnb-diag-item", style: { display: "flex", flexWrap: "wrap", gap: "12px", padding: "8px 0", borderTop: "1px solid rgba(128,128,128,0.25)" } }, this.text, this.plot);
    this.set(item);
  }

  set(item) {
    this.item = item;
    this.el.dataset.chart = String(item.chart.kind);
    this.el.dataset.run = String(item.chart.run);
    this.text.replaceChildren(...item.findings.map(sentenceEl), this.sub);
  }

  load() {
    const width = Math.max(100, Math.round(this.plot.clientWidth || 480));
    const content = { type: "diagnostic_chart", runs: this.item.chart.runs, chart: this.item.chart, width };
    this.sub.textContent = "loading the chart…";
    this.card.request(
      `chart\u0000${this.key}`,
      content,
      (msg) => {
        this.data = msg.data;
        this.sub.textContent = "";
        this.draw();
      },
      (message) => {
        this.sub.textContent = `Could not load the chart: ${message}`;
      },
    );
  }

  figure() {
    const board = this.card.board;
    const chart = this.item.chart;
    const base = { ...baseLayout({ board, plot: this.plot, expanded: false, key: `${this.card.key}\u0000${this.key}` }), height: CHART_HEIGHT };
    const step = board.model.get("selected_step");
    const color = board.colorOf(chart.run);
    const data = this.data;
    if (data.kind === "pair") return pairFigure(data, { color, base, step });
    if (data.kind === "lr") return lrFigure(data, { color, base, step, at: this.item.findings[0] ? this.item.findings[0].step : null });
    if (data.kind === "lr_find") return lrFindFigure(data, { color, base });
    return ratioFigure(data, { base, palette: PALETTE, step });
  }

  draw() {
    const Plotly = this.card.board.plotly;
    if (!Plotly || !this.data || !this.card.visible) return;
    const { traces, layout } = this.figure();
    if (layout.height && layout.height !== CHART_HEIGHT) this.plot.style.height = `${layout.height}px`;
    Plotly.react(this.plot, traces, layout, CONFIG);
    if (!this.drawn && this.plot.on) this.plot.on("plotly_click", (event) => this.clicked(event));
    this.drawn = true;
  }

  /** A click selects its step on every card (an lr_find point carries its step). */
  clicked(event) {
    const point = event && event.points && event.points[0];
    if (!point) return;
    const step = this.data.kind === "lr_find" ? point.customdata : point.x;
    if (Number.isFinite(Number(step))) this.card.board.setTrait("selected_step", Math.round(Number(step)));
  }

  resize() {
    const Plotly = this.card.board.plotly;
    if (Plotly && this.drawn && this.el.isConnected) Plotly.Plots.resize(this.plot);
  }

  destroy() {
    const Plotly = this.card.board.plotly;
    if (Plotly && this.drawn) Plotly.purge(this.plot);
    this.card.board.router.cancel(`${this.card.key}\u0000chart\u0000${this.key}`);
    this.el.remove();
  }
}

export class DiagnosticsCard extends Card {
  init() {
    this.items = new Map(); // chart key -> DiagnosticItem
    // Link by step: the selected step is drawn on every chart (a listener of its own rather than
    // `redrawOn`, which the media cards' step link owns).
    this.onStep = () => this.settingChanged("selected_step");
    this.board.model.on("change:selected_step", this.onStep);
  }

  build() {
    this.sub = h("div", { class: "tbnb-card-sub", text: "reading the findings…" });
    this.list = h("div", { class: "tbnb-diag-list" });
    this.quiet = h("div", { class: "tbnb-diag-quiet tbnb-card-sub", hidden: true });
    this.plot = this.list; // the box the Board's ResizeObserver watches
    this.el = h(
      "div",
      { class: "tbnb-card tbnb-card-diagnostics tbnb-expanded", dataset: { kind: this.kind } },
      h("div", { class: "tbnb-card-head" }, h("div", { class: "tbnb-card-title", text: "Diagnostics" })),
      this.sub,
      this.list,
      this.quiet,
    );
  }

  canLoad() {
    return true;
  }

  runs() {
    return [];
  }

  shownRuns() {
    return this.board.runNames().filter((run) => this.board.shown.has(run));
  }

  load() {
    this.request("list", { type: "diagnostics", runs: this.shownRuns() }, (msg) => this.apply(msg));
  }

  /** The kernel's list (a reply or a push): keep the charts that stay, add and drop the others. */
  apply(msg) {
    const wanted = new Map((msg.items || []).map((item) => [chartKey(item.chart), item]));
    for (const [key, item] of this.items) {
      if (!wanted.has(key)) {
        item.destroy();
        this.items.delete(key);
      }
    }
    const ordered = [];
    for (const [key, spec] of wanted) {
      let item = this.items.get(key);
      if (item) {
        item.set(spec); // its chart's data is pushed on its own when it changes
      } else {
        item = new DiagnosticItem(this, spec);
        this.items.set(key, item);
      }
      ordered.push(item.el);
    }
    this.list.replaceChildren(...ordered);
    const quiet = (msg.quiet || []).map(String);
    this.quiet.hidden = quiet.length === 0;
    this.quiet.textContent = quietLine(quiet);
    const n = (msg.items || []).reduce((sum, item) => sum + item.findings.length, 0);
    this.data = msg;
    this.loading = false;
    this.subText = n === 0 && quiet.length === 0 ? "No run is selected." : `${n} finding${n === 1 ? "" : "s"} in ${wanted.size} chart${wanted.size === 1 ? "" : "s"}`;
    this.draw();
  }

  updateSub() {
    if (!this.sub) return;
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    this.sub.textContent = this.error || (this.loading ? "reading the findings…" : this.subText || "");
  }

  render() {
    if (!this.board.plotly) {
      this.needsDraw = true;
      return false;
    }
    for (const item of this.items.values()) {
      if (item.data) item.draw();
      else item.load();
    }
    return true;
  }

  runsChanged() {
    this.invalidate();
  }

  settingChanged() {
    for (const item of this.items.values()) item.draw();
  }

  resized() {
    for (const item of this.items.values()) item.resize();
  }

  destroy() {
    this.board.model.off("change:selected_step", this.onStep);
    for (const item of this.items.values()) item.destroy();
    this.items.clear();
    super.destroy();
  }
}

/** The diagnostics tab: one card filling the area. */
export const dashboard = {
  id: "diagnostics",
  label: "Diagnostics",
  fills: true,
  cards: {
    diagnostics: { Card: DiagnosticsCard, plugin: "diagnostics", noun: "finding", perRun: false },
  },
};
