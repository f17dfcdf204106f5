// The scalar card, shared by the scalars tab (a card per tag), the custom scalars tab (a card per
// layout chart) and the time series tab: one card drawing every selected run (title, point count, a plotly chart with a faint raw line and a smoothed
// line per run, unified hover), box zoom that asks the kernel for the exact points of the range,
// double-click to reset, and buttons: log y, pin, full width, download CSV/JSON. The traces and
// axes come from scalars_plot.js; the step marker and data table under the chart from step_view.js;
// best points, focus and partitioned lines from compare_view.js; the smoothing slider's path from
// scalar_smoothing.js; the download menu from scalar_download.js; the line under the title from
// scalar_sub.js.

import { Card } from "../card.js";
import { CONFIG as CHART_CONFIG, baseLayout } from "../chart_card.js";
import { h, iconButton } from "../../dom.js";
import { PlotFit } from "../plot_fit.js";
import { warmPlotly } from "../../core/plotly_warm.js";
import { fromMessage, maxX } from "../../series.js";
import { relativeUnit } from "../../xaxis.js";
import { GROUP_TRAITS, appendGroups, groupColor, groupFields, groupMap, groupNote, groupTraces } from "../../run_groups.js";
import { sameRange, scalarLayout, scalarTraces, yRange, zoomFromRelayout } from "./scalars_plot.js";
import { STEP_TRAITS, StepView } from "./step_view.js";
import { COMPARE_TRAITS, CompareView } from "./compare_view.js";
import { download, downloadMenu } from "./scalar_download.js";
import { applySmoothing, settleSmoothing } from "./scalar_smoothing.js";
import { subText } from "./scalar_sub.js";

// Double-click is handled here: a reset also drops the zoomed data and the view entry.
const CONFIG = { ...CHART_CONFIG, doubleClick: false };

export class ScalarCard extends Card {
  init() {
    this.full = null; // Map run -> series: the whole range, thinned by the kernel
    this.fullRuns = new Set(); // runs in `full`
    this.askedRuns = new Set(); // runs in `full` or on their way
    this.unit = null; // relative-time unit, chosen from the overview
    this.zoom = this.board.zoomOf(this.tag); // {x: [x0, x1] | null, y: [y0, y1] | null} in data units, or null
    this.zoomData = null; // Map run -> series: the exact points of zoom.x
    this.groups = null; // Map group -> series (run_groups.js), as `full`; zoomGroups as zoomData
    this.zoomGroups = null;
    this.logY = this.board.settings.logY;
    this.smoothedTraces = []; // trace index of each run's smoothed line
    this.shown = []; // [{run, x (protocol units), y}] as drawn
    this.smoothingOn = null;
    this.smoothedWith = null; // the weight the drawn smoothed lines use
    this.settleTimer = null;
    this.fit = new PlotFit(this);
    this.compare = new CompareView(this); // best points, focus, partition (compare_view.js)
  }

  build() {
    this.logButton = iconButton("log", "Log scale for y (this card)", () => this.setLogY(!this.logY));
    this.menu = downloadMenu(this);
    // TensorBoard drops the "/scalar_summary" suffix of TF1 summaries from titles.
    const title = this.tag.replace(/\/scalar_summary$/, "");
    this.title = h("div", { class: "tbnb-card-title", text: title, title: this.tag });
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.plot = h("div", { class: "tbnb-plot" });
    this.steps = new StepView(this);
    this.el = h(
      "div",
      { class: "tbnb-card tbnb-card-steps", dataset: { tag: this.tag } },
      h("div", { class: "tbnb-card-head" }, this.title, this.logButton, this.pinButton, this.expandButton, this.menu),
      this.sub,
      this.plot, // a child of the card: cards.js finds a resized plot's card by its parent
      this.steps.layer,
      this.steps.table,
    );
  }

  updateButtons() {
    super.updateButtons();
    this.logButton.classList.toggle("tbnb-on", this.logY);
    this.logButton.setAttribute("aria-pressed", String(this.logY));
  }

  updateSub() {
    const runs = this.runs();
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    this.sub.title = this.error || "";
    if (this.error) return void (this.sub.textContent = this.error);
    const info = this.full ? null : this.board.tagInfo(this.tag, this.plugin);
    const points = info ? runs.reduce((sum, run) => sum + (Number(info.points[run]) || 0), 0) : 0;
    const { full, zoom, zoomData, loading } = this;
    this.sub.textContent = subText({ runs, full, zoom, zoomData, points, loading, xAxis: this.board.settings.xAxis, ...this.compare.missing(runs), groups: groupNote(this.groups),
      fullGroups: this.groups, zoomGroups: this.zoomGroups });
  }

  /** The card's full data, as CSV or JSON, saved through the browser (scalar_download.js). */
  download(format) {
    download(this, format);
  }

  hasData() {
    return this.full !== null;
  }

  // ---------------------------------------------------------------------------------- data

  setVisible(visible) {
    super.setVisible(visible);
    if (visible) this.fit.shown();
  }

  /** One card draws every run: with none selected it draws an empty chart. */
  canLoad() {
    return true;
  }

  needsFetch() {
    return this.dirty || this.runs().some((run) => !this.askedRuns.has(run));
  }

  /** Ask for the overview (range null) or the exact points of a zoom range. */
  requestSeries(range, onReply) {
    const runs = this.runs();
    const width = Math.max(100, Math.round(this.plot.clientWidth || this.board.settings.cardWidth));
    const content = { type: "series", tag: this.tag, runs, x_axis: this.board.settings.xAxis, range, width, ...groupFields(this.board.model), ...this.compare.request() };
    this.request(
      range ? "zoom" : "full",
      content,
      (msg) => {
        if (msg.x_axis === this.board.settings.xAxis) onReply(msg, runs);
      },
      (message) => {
        if (!range) this.askedRuns = new Set(this.fullRuns); // asked again at the next scroll
        this.loading = false;
        this.error = `Could not load ${this.tag}: ${message}`;
        this.updateSub();
      },
    );
  }

  fetch() {
    this.dirty = false;
    const runs = this.runs();
    this.askedRuns = new Set(runs);
    if (runs.length === 0) {
      this.full = new Map();
      this.fullRuns = new Set();
      this.updateSub();
      this.draw();
      return;
    }
    this.loading = true;
    this.error = null;
    this.updateSub();
    // The table first: the kernel answers in order, and the small table is then on the page
    // while the kernel downsamples the lines, instead of changing the card after they are drawn.
    this.steps.refresh();
    this.requestSeries(null, (msg, asked) => {
      this.full = seriesMap(msg);
      this.groups = groupMap(msg);
      this.compare.take(msg);
      this.fullRuns = new Set(asked);
      this.unit = relativeUnit(maxX(this.full));
      this.loading = Boolean(this.zoom && this.zoom.x && !this.zoomData);
      this.draw();
    });
    if (this.zoom && this.zoom.x) this.fetchZoom();
  }

  fetchZoom() {
    const range = this.zoom.x;
    this.loading = true;
    this.updateSub();
    this.requestSeries(range.slice(), (msg) => {
      if (!this.zoom || !sameRange(this.zoom.x, range)) return;
      this.zoomData = seriesMap(msg);
      this.zoomGroups = groupMap(msg);
      this.loading = false;
      this.draw();
    });
  }

  /** The x axis changed: every x value and range is in other units now. */
  resetAxis() {
    this.full = null;
    this.fullRuns = new Set();
    this.askedRuns = new Set();
    this.zoom = null;
    this.zoomData = null;
    this.groups = null;
    this.zoomGroups = null;
    this.invalidate();
    this.updateSub();
  }

  /** The selected runs changed: draw the runs held, fetch the ones missing. */
  runsChanged() {
    if (this.groups && this.groups.size) this.dirty = true; // a group's statistics are of its shown members
    this.updateSub();
    this.needsDraw = true;
    this.ensure();
    if (!this.dirty) this.steps.refresh();
  }

  /** A step selection or tooltip trait changed (the kind's redrawOn). */
  settingChanged(name) {
    if (GROUP_TRAITS.includes(name)) this.invalidate(); // asks again for lines and table
    if (COMPARE_TRAITS.includes(name)) this.compare.settingChanged(name);
    else if (name.startsWith("tooltip_")) this.redraw();
    else if (!this.dirty) this.steps.refresh(); // else fetch() asks
  }

  /** Zoom set from this card, its twin in another section, the `view` trait or a reset. */
  setZoom(zoom) {
    const before = this.zoom;
    this.zoom = zoom;
    if (!sameRange(before && before.x, zoom && zoom.x)) {
      this.zoomData = null;
      this.zoomGroups = null;
      if (zoom && zoom.x && this.full) this.fetchZoom();
    }
    this.updateSub();
    this.redraw();
  }

  setLogY(on) {
    if (on === this.logY) return;
    this.logY = on;
    if (this.zoom && this.zoom.y) this.zoom = this.zoom.x ? { x: this.zoom.x, y: null } : null;
    this.updateButtons();
    this.redraw();
  }

  // ---------------------------------------------------------------------------------- drawing

  yRange(lines) {
    return yRange(lines, { zoom: this.zoom, logY: this.logY, ignoreOutliers: this.board.settings.ignoreOutliers });
  }

  draw() {
    const Plotly = this.board.plotly;
    if (!this.visible || !Plotly || !this.full) {
      this.needsDraw = true;
      return;
    }
    this.needsDraw = false;
    this.updateSub();
    const { smoothing, xAxis } = this.board.settings;
    const drawn = this.traces(smoothing, xAxis);
    Object.assign(this, { shown: drawn.shown, smoothedTraces: drawn.smoothedTraces, smoothingOn: drawn.on, smoothedWith: smoothing });
    const layout = scalarLayout(baseLayout(this), { xAxis, unit: this.unit, zoom: this.zoom, logY: this.logY, range: this.yRange(drawn.lines) });
    // A smoothing frame still queued (plotly runs them at its next animation frame) holds the
    // lines of the old data: drop it before the new data is drawn.
    if (this.drawn) Plotly.animate(this.plot, [], { mode: "immediate" }).catch(() => {});
    if (this.steps.customTooltip()) for (const i of drawn.smoothedTraces) Object.assign(drawn.traces[i], { hoverinfo: "none", hovertemplate: null });
    Plotly.react(this.plot, drawn.traces, layout, CONFIG);
    this.steps.place();
    if (!this.drawn) {
      this.drawn = true;
      this.plot.on("plotly_afterplot", () => this.steps.place());
      this.plot.on("plotly_hover", (event) => this.steps.hover(event));
      this.plot.on("plotly_unhover", () => this.steps.unhover());
      this.plot.on("plotly_relayout", (event) => this.onRelayout(event));
      this.compare.listen(this.plot);
      this.plot.on("plotly_doubleclick", () => setTimeout(() => this.destroyed || this.board.setZoom(this.tag, null), 0));
      // Without %load_ext's preload, plotly's first animation frame (the smoothing slider's
      // path) is still cold: warm it on a hidden plot when the page is idle.
      const idle = globalThis.requestIdleCallback || ((fn) => setTimeout(fn, 500));
      idle(() => warmPlotly(Plotly), { timeout: 3000 });
    }
  }

  /** What draw() plots: scalars_plot.js's scalarTraces (a card drawing other lines overrides it). */
  traces(smoothing, xAxis) {
    const drawn = scalarTraces({
      runs: this.runs(),
      full: this.full,
      zoom: this.zoom,
      zoomData: this.zoomData,
      smoothing,
      xAxis,
      unit: this.unit,
      colorOf: (run) => this.board.colorOf(run),
      prepare: this.compare.prepare(),
    });
    this.compare.decorate(drawn, xAxis);
    if (!this.groups || !this.groups.size) return drawn;
    const line = this.board.model.get("group_line") || "mean";
    const colorOf = (name) => this.lineColor(name);
    return appendGroups(drawn, groupTraces({ groups: this.groups, zoom: this.zoom, zoomGroups: this.zoomGroups, smoothing, xAxis, unit: this.unit, colorOf, line }));
  }

  /** Every drawn line's overview series: the runs', then the groups' (the step view reads them). */
  overviews() {
    const runs = this.full ? this.runs().map((run) => this.full.get(run)).filter(Boolean) : [];
    return [...runs, ...(this.groups ? this.groups.values() : [])];
  }

  /** The overview series of one drawn line, a run's or a group's, or null. */
  overviewOf(name) {
    return (this.full && this.full.get(name)) || (this.groups && this.groups.get(name)) || null;
  }

  /** The colour of a drawn line: a run's, or a group's (run_groups.js groupColor). */
  lineColor(name) {
    const s = this.groups && this.groups.get(name);
    if (!s) return this.board.colorOf(name);
    return groupColor(name, s.members, { runColors: this.board.trait("run_colors"), colorOf: (run) => this.board.colorOf(run) });
  }

  /** The weight changed: off screen, redraw when scrolled into view. */
  smoothingStale() {
    if (!this.visible && this.drawn) this.needsDraw = true;
  }

  /** Whether this card is on screen with smoothed lines of another weight. */
  needsSmoothing() {
    return this.visible && this.drawn && !this.needsDraw && this.smoothedWith !== this.board.settings.smoothing;
  }

  /** The smoothing weight changed (scalar_smoothing.js). */
  applySmoothing() {
    applySmoothing(this);
  }

  /** After the weight rested (scalar_smoothing.js). */
  settleSmoothing() {
    settleSmoothing(this);
  }

  onRelayout(event) {
    const zoom = zoomFromRelayout(event, { xAxis: this.board.settings.xAxis, unit: this.unit, logY: this.logY, zoom: this.zoom });
    if (zoom === undefined) return;
    // After plotly's own relayout has finished: setZoom redraws this chart.
    setTimeout(() => {
      if (!this.destroyed) this.board.setZoom(this.tag, zoom);
    }, 0);
  }

  /** The plot's box changed size: fit the chart to it (when next on screen if off it now). */
  resized() {
    this.fit.resized();
  }

  destroy() {
    clearTimeout(this.settleTimer);
    this.fit.destroy();
    const Plotly = this.board.plotly;
    if (Plotly && this.drawn) Plotly.purge(this.plot);
    super.destroy();
  }
}

/** A "series" reply -> Map run -> series. */
function seriesMap(msg) {
  const out = new Map();
  for (const entry of msg.series || []) out.set(entry.run, fromMessage(entry));
  return out;
}

/** The traits a scalar card is drawn again on: its step marker, run groups and comparison. */
export const SCALAR_TRAITS = [...STEP_TRAITS, ...GROUP_TRAITS, ...COMPARE_TRAITS];
