// The custom scalars tab: the layout the runs wrote (custom_scalars__config__, merged by the
// kernel as TensorBoard merges it) as collapsible categories of charts. A multiline chart draws
// a line per run and scalar tag its regexes match; a margin chart draws each value line with its
// lower/upper band. Charts are scalar cards (cards/scalar/scalar_card.js): the same "series" requests, smoothing,
// x axis, log scale, outlier rule and box zoom, each chart zoomed on its own. A chart the layout
// got wrong (an invalid regex) says so on that chart alone. Titles are text, never markup.
//
// The tab is one card (the layout tag's) that holds the charts: it passes on to them what the
// Board tells cards (visibility, smoothing, axes, pushed replies, resizes).

import { Card } from "../../cards/card.js";
import { PALETTE } from "../../core/colors.js";
import { h, icon, iconButton } from "../../dom.js";
import { formatCount } from "../../format.js";
import { fromMessage, maxX } from "../../series.js";
import { smooth } from "../../smoothing.js";
import { relativeUnit } from "../../xaxis.js";
import { chartLines, lineColors, lineKey, marginTraces, tagRequests } from "./custom_scalars_plot.js";
import { ScalarCard } from "../../cards/scalar/scalar_card.js";
import { NoStepView } from "../../cards/scalar/step_view.js";

const CONFIG_TAG = "custom_scalars__config__";

/**
 * The Board as a chart sees it: every read goes to the Board, but zoom stays with the chart (a
 * layout chart is no tag's card) and a line's colour is the chart's choice.
 */
function chartBoard(board, chartOf) {
  const view = Object.create(board);
  view.zoomOf = () => null;
  view.setZoom = (tag, zoom) => {
    const chart = chartOf();
    if (chart && !chart.destroyed) chart.setZoom(zoom && (zoom.x || zoom.y) ? { x: zoom.x || null, y: zoom.y || null } : null);
  };
  view.colorOf = (key) => chartOf().colorOfLine(key);
  view.runColor = (run) => board.colorOf(run);
  view.isPinned = () => false;
  view.togglePin = () => {};
  return view;
}

/** One chart of the layout: a scalar card whose lines are (tag, run) pairs chosen by the layout. */
export class LayoutChart extends ScalarCard {
  static make(board, spec, id, section) {
    let chart = null;
    chart = new LayoutChart(chartBoard(board, () => chart), { kind: "custom_scalars_chart", tag: id, run: null, plugin: "scalars" }, section);
    chart.setSpec(spec);
    return chart;
  }

  init() {
    super.init();
    this.spec = { title: "", kind: "", tags: {}, series: {}, errors: [] };
    this.colors = new Map();
  }

  build() {
    this.steps = new NoStepView();
    this.logButton = iconButton("log", "Log scale for y (this chart)", () => this.setLogY(!this.logY));
    this.title = h("div", { class: "tbnb-card-title" });
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.errors = h("div", { class: "tbnb-card-sub tbnb-error tbnb-chart-errors", hidden: true });
    this.plot = h("div", { class: "tbnb-plot" });
    this.el = h(
      "div",
      { class: "tbnb-card tbnb-card-custom-chart" },
      h("div", { class: "tbnb-card-head" }, this.title, this.logButton, this.expandButton),
      this.sub,
      this.errors,
      this.plot,
    );
  }

  /** The kernel's entry for this chart (again after the runs changed). */
  setSpec(spec) {
    this.spec = spec;
    const title = String(spec.title || "") || "(untitled chart)";
    this.title.textContent = title;
    this.title.title = title;
    this.el.dataset.chartKind = String(spec.kind || "");
    const errors = (spec.errors || []).map(String);
    this.errors.hidden = errors.length === 0;
    this.errors.textContent = errors.join("; ");
    this.errors.title = errors.join("\n");
    this.runsChanged();
  }

  /** The chart's lines for the selected runs. */
  lines() {
    return chartLines(this.spec, this.board.runNames().filter((run) => this.board.shown.has(run)));
  }

  /** A chart's "runs" are its lines' keys (the scalar card draws and counts by them). */
  runs() {
    const lines = this.lines();
    this.colors = lineColors(lines, (run) => this.board.runColor(run), PALETTE);
    return lines.map((line) => line.key);
  }

  colorOfLine(key) {
    return this.colors.get(key) || PALETTE[0];
  }

  updateSub() {
    super.updateSub();
    if (this.runs().length === 0 && !this.error) this.sub.textContent = "no selected run has a scalar this chart shows";
  }

  needsFetch() {
    return this.dirty || this.runs().some((key) => !this.askedRuns.has(key));
  }

  /** Ask for every tag the chart reads (one "series" request per tag); `onDone(map)` once all came.
   * Later (pushed) replies for a tag update the same map and redraw. */
  requestTags(range, onDone) {
    const asks = tagRequests(this.lines());
    const data = new Map();
    let pending = asks.size;
    const width = Math.max(100, Math.round(this.plot.clientWidth || this.board.settings.cardWidth));
    const xAxis = this.board.settings.xAxis;
    for (const [tag, runs] of asks) {
      const content = { type: "series", tag, runs, x_axis: xAxis, range, width };
      this.request(
        `${range ? "zoom" : "full"}\u0000${tag}`,
        content,
        (msg) => {
          if (msg.x_axis !== this.board.settings.xAxis) return;
          for (const entry of msg.series || []) data.set(lineKey(tag, entry.run), fromMessage(entry));
          pending -= 1;
          if (pending <= 0) onDone(data);
        },
        (message) => {
          this.loading = false;
          this.error = `Could not load ${tag}: ${message}`;
          this.updateSub();
        },
      );
    }
    if (asks.size === 0) onDone(data);
  }

  fetch() {
    this.dirty = false;
    this.askedRuns = new Set(this.runs());
    this.loading = true;
    this.error = null;
    this.updateSub();
    this.requestTags(null, (data) => {
      this.full = data;
      this.fullRuns = new Set(this.askedRuns);
      this.unit = relativeUnit(maxX(this.full));
      this.loading = Boolean(this.zoom && this.zoom.x && !this.zoomData);
      this.draw();
    });
    if (this.zoom && this.zoom.x) this.fetchZoom();
  }

  fetchZoom() {
    const range = this.zoom.x.slice();
    this.loading = true;
    this.updateSub();
    this.requestTags(range, (data) => {
      if (!this.zoom || !this.zoom.x || this.zoom.x[0] !== range[0] || this.zoom.x[1] !== range[1]) return;
      this.zoomData = data;
      this.loading = false;
      this.draw();
    });
  }

  /** Multiline charts draw as scalar cards do; margin charts draw their bands. */
  traces(smoothing, xAxis) {
    if (this.spec.kind !== "margin") return super.traces(smoothing, xAxis);
    return marginTraces({
      lines: this.lines(),
      full: this.full,
      zoom: this.zoom,
      zoomData: this.zoomData,
      smooth,
      smoothing,
      xAxis,
      unit: this.unit,
      colorOf: (key) => this.colorOfLine(key),
    });
  }
}

/** The layout's structure (what makes charts new ones rather than the same with other runs). */
function shape(categories) {
  return JSON.stringify(categories.map((c) => [c.title, c.charts.map((ch) => [ch.title, ch.kind, ch.regexes, ch.margin])]));
}

/** The custom scalars tab's one card: the layout's categories, each a collapsible section of charts. */
export class CustomScalarsCard extends Card {
  init() {
    this.charts = []; // [{chart, category}]
    this.shape = null;
    this.closed = new Set(); // category indices the user (or the layout) collapsed
    this.asked = "";
  }

  build() {
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.body = h("div", { class: "tbnb-custom-scalars" });
    this.plot = this.body;
    // The whole row (not "tbnb-expanded": its charts keep the scalar cards' height).
    this.el = h(
      "div",
      { class: "tbnb-card tbnb-card-custom_scalars", style: { gridColumn: "1 / -1" }, dataset: { tag: this.tag, kind: this.kind } },
      this.sub,
      this.body,
    );
  }

  /** Every selected run: a run without a layout still has scalars the charts show. */
  runs() {
    return this.board.runNames().filter((run) => this.board.shown.has(run));
  }

  canLoad() {
    return true;
  }

  updateSub() {
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    let text = this.error || "";
    if (!text && this.data) {
      const n = this.charts.length;
      text = `${formatCount(n)} chart${n === 1 ? "" : "s"} from the layout of ${this.data.layout_runs.map(String).join(", ") || "no run"}`;
      if (this.data.problems.length) text += ` · ${this.data.problems.map(String).join("; ")}`;
    }
    if (!this.error && this.loading) text = text ? `${text} · loading…` : "loading…";
    this.sub.textContent = text;
  }

  load() {
    const runs = this.runs();
    this.asked = runs.join("\u0000");
    this.request("layout", { type: "custom_scalars", runs }, (msg) => {
      this.data = { categories: msg.categories || [], layout_runs: msg.layout_runs || [], problems: msg.problems || [] };
      this.loading = false;
      this.apply();
      this.draw();
    });
  }

  /** A layout reply: new charts if its structure changed, else the same charts with their runs' tags. */
  apply() {
    const categories = this.data.categories;
    const now = shape(categories);
    if (now === this.shape) {
      let i = 0;
      for (const category of categories) for (const spec of category.charts) this.charts[i++].chart.setSpec(spec);
      return;
    }
    for (const { chart } of this.charts) chart.destroy();
    this.charts = [];
    this.shape = now;
    this.closed = new Set(categories.flatMap((c, i) => (c.closed ? [i] : [])));
    const sections = categories.map((category, ci) => {
      const grid = h("div", { class: "tbnb-grid" });
      category.charts.forEach((spec, hi) => {
        const chart = LayoutChart.make(this.board, spec, `${CONFIG_TAG}\u0000${ci}\u0000${hi}`, this.section);
        this.charts.push({ chart, category: ci });
        grid.append(chart.el);
      });
      const title = String(category.title || "") || "(untitled category)";
      const details = h(
        "details",
        { class: `tbnb-section tbnb-custom-category${this.closed.has(ci) ? " tbnb-collapsed" : ""}`, dataset: { category: title }, open: !this.closed.has(ci) },
        // Not sticky: the dashboard's own section head stays on top.
        h(
          "summary",
          { class: "tbnb-section-head", style: { position: "static" } },
          h("b", { text: title }),
          h("small", { text: `${formatCount(category.charts.length)} chart${category.charts.length === 1 ? "" : "s"}` }),
          icon("chevron"),
        ),
        grid,
      );
      details.addEventListener("toggle", () => {
        details.classList.toggle("tbnb-collapsed", !details.open);
        if (details.open) this.closed.delete(ci);
        else this.closed.add(ci);
        this.showCharts();
      });
      return details;
    });
    const empty = categories.length ? [] : [h("div", { class: "tbnb-placeholder", text: "No layout: write one with add_custom_scalars" })];
    this.body.replaceChildren(...sections, ...empty);
    this.showCharts();
  }

  render() {
    this.updateSub();
    this.showCharts();
    return true;
  }

  /** Charts of open categories are visible (fetched and drawn) while this card is. */
  showCharts() {
    for (const { chart, category } of this.charts) {
      const open = !this.closed.has(category);
      chart.setNear(open && (this.near || this.visible));
      chart.setVisible(open && this.visible);
    }
  }

  setVisible(visible) {
    super.setVisible(visible);
    this.showCharts();
  }

  setNear(near) {
    super.setNear(near);
    this.showCharts();
  }

  /** The selected runs changed: ask for the layout's tags of the new runs. */
  runsChanged() {
    if (this.runs().join("\u0000") !== this.asked) this.invalidate();
  }

  each(fn) {
    for (const { chart } of this.charts) fn(chart);
  }

  redraw() {
    super.redraw();
    this.each((chart) => chart.redraw());
  }

  resetAxis() {
    this.each((chart) => chart.resetAxis());
  }

  setLogY(on) {
    this.each((chart) => chart.setLogY(on));
  }

  smoothingStale() {
    this.each((chart) => chart.smoothingStale());
  }

  needsSmoothing() {
    return this.charts.some(({ chart }) => chart.needsSmoothing());
  }

  applySmoothing() {
    this.each((chart) => chart.needsSmoothing() && chart.applySmoothing());
  }

  resized() {
    this.each((chart) => chart.resized());
  }

  takePush(msg, buffers) {
    let taken = super.takePush(msg, buffers);
    this.each((chart) => {
      taken = chart.takePush(msg, buffers) || taken;
    });
    return taken;
  }

  destroy() {
    this.each((chart) => chart.destroy());
    this.charts = [];
    super.destroy();
  }
}

/** The custom scalars tab: one card holding the layout's charts. */
export const dashboard = {
  id: "custom_scalars",
  label: "Custom scalars",
  section: "Layout",
  cards: {
    custom_scalars: { Card: CustomScalarsCard, plugin: "custom_scalars", noun: "custom scalars layout", perRun: false },
  },
};
