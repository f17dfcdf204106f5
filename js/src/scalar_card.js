// One scalar card: title, point count, a plotly chart with a faint raw line and a smoothed line
// per run, unified hover, box zoom that asks the kernel for the exact points of the range,
// double-click to reset, and buttons: log y, pin, full width, download CSV/JSON.

import { AXIS, CONFIG as CHART_CONFIG, baseLayout } from "./chart_card.js";
import { h, icon, iconButton } from "./dom.js";
import { escapePlotly, formatCount, formatDateTime } from "./format.js";
import { yDomain } from "./outliers.js";
import { PlotFit } from "./plot_fit.js";
import { PushSlots } from "./push.js";
import { countPoints, fromMessage, hoverData, maxX, mergeZoom } from "./series.js";
import { smooth } from "./smoothing.js";
import { fromDisplayRange, relativeUnit, toDisplayRange, toDisplayX, xAxisLayout } from "./xaxis.js";

// Double-click is handled here: a reset also drops the zoomed data and the view entry.
const CONFIG = { ...CHART_CONFIG, doubleClick: false };
/** How long the smoothing weight must rest before the y axis and hover text follow it. */
const SETTLE_MS = 200;
const RAW_OPACITY = 0.25; // TensorBoard's opacity of the unsmoothed line

/** A smoothed line's hover text; with smoothing on it also gives the raw value. */
function hoverTemplate(line, on) {
  const time = line.wall ? " · %{customdata[2]}" : "";
  const value = on ? " (value %{customdata[0]:.4~g})" : "";
  return `${line.name}: <b>%{y:.4~g}</b>${value} · step %{customdata[1]:,}${time}<extra></extra>`;
}

let smoothingWarmed = false; // once per page: see draw()

const HOVER = new WeakMap(); // series -> plotly customdata (kept while the series is)

function hoverOf(s) {
  let data = HOVER.get(s);
  if (!data) {
    data = hoverData(s, formatDateTime);
    HOVER.set(s, data);
  }
  return data;
}

function sameRange(a, b) {
  if (a === b) return true;
  if (!a || !b) return false;
  return a[0] === b[0] && a[1] === b[1];
}

/** [a, b] from plotly's relayout event for an axis ("xaxis"), or null when it is not there. */
export function relayoutRange(event, axis) {
  if (Array.isArray(event[`${axis}.range`])) return event[`${axis}.range`].slice(0, 2);
  const a = event[`${axis}.range[0]`];
  const b = event[`${axis}.range[1]`];
  return a !== undefined && b !== undefined ? [a, b] : null;
}

export class ScalarCard {
  /**
   * @param board   the Board (settings, runs, colours, requests, zoom and pin state)
   * @param tag     the scalar tag
   * @param section "pinned" or "group": the same tag can have a card in each
   */
  constructor(board, tag, section) {
    this.board = board;
    this.kind = "scalars";
    this.tag = tag;
    this.run = null;
    this.section = section;
    this.visible = false; // on screen: drawn
    this.near = false; // close to the screen: data fetched ahead
    this.dirty = true; // data must be (re)fetched before drawing
    this.needsDraw = false; // data changed while off screen
    this.drawn = false;
    this.full = null; // Map run -> series: the whole range, thinned by the kernel
    this.fullRuns = new Set(); // runs in `full`
    this.askedRuns = new Set(); // runs in `full` or on their way
    this.unit = null; // relative-time unit, chosen from the overview
    this.zoom = board.zoomOf(tag); // {x: [x0, x1] | null, y: [y0, y1] | null} in data units, or null
    this.zoomData = null; // Map run -> series: the exact points of zoom.x
    this.logY = board.settings.logY;
    this.expanded = false;
    this.smoothedTraces = []; // trace index of each run's smoothed line
    this.shown = []; // [{run, x (protocol units), y}] as drawn
    this.smoothingOn = null;
    this.smoothedWith = null; // the weight the drawn smoothed lines use
    this.error = null;
    this.loading = false;
    this.settleTimer = null;
    this.fit = new PlotFit(this);
    this.pushes = new PushSlots(); // the "full" and "zoom" requests, for pushed replies
    this.build();
    this.updateButtons();
    this.updateSub();
  }

  get key() {
    return `${this.section}\u0000${this.tag}`;
  }

  build() {
    this.logButton = iconButton("log", "Log scale for y (this card)", () => this.setLogY(!this.logY));
    this.pinButton = iconButton("pin", "Pin", () => this.board.togglePin(this.tag));
    this.expandButton = iconButton("expand", "Full width", () => this.setExpanded(!this.expanded));
    const item = (label, format) =>
      h("button", {
        type: "button",
        text: label,
        on: {
          click: () => {
            this.menu.open = false;
            this.board.download(this.tag, format);
          },
        },
      });
    this.menu = h(
      "details",
      { class: "tbnb-menu" },
      h("summary", { class: "tbnb-btn", title: "Download data", "aria-label": "Download data" }, icon("download")),
      h("div", { class: "tbnb-menu-items" }, item("Download CSV", "csv"), item("Download JSON", "json")),
    );
    // TensorBoard drops the "/scalar_summary" suffix of TF1 summaries from titles.
    const title = this.tag.replace(/\/scalar_summary$/, "");
    this.title = h("div", { class: "tbnb-card-title", text: title, title: this.tag });
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.plot = h("div", { class: "tbnb-plot" });
    this.el = h(
      "div",
      { class: "tbnb-card", dataset: { tag: this.tag } },
      h("div", { class: "tbnb-card-head" }, this.title, this.logButton, this.pinButton, this.expandButton, this.menu),
      this.sub,
      this.plot,
    );
  }

  updateButtons() {
    const pinned = this.board.isPinned(this.tag);
    this.pinButton.classList.toggle("tbnb-on", pinned);
    this.pinButton.title = pinned ? "Unpin" : "Pin";
    this.pinButton.setAttribute("aria-pressed", String(pinned));
    this.logButton.classList.toggle("tbnb-on", this.logY);
    this.logButton.setAttribute("aria-pressed", String(this.logY));
    this.expandButton.replaceChildren(icon(this.expanded ? "shrink" : "expand"));
    this.expandButton.title = this.expanded ? "Normal width" : "Full width";
  }

  /** The runs drawn: shown in the run selector and having this tag. */
  runs() {
    return this.board.runsForTag(this.tag);
  }

  updateSub() {
    const runs = this.runs();
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    if (this.error) {
      this.sub.textContent = this.error;
      this.sub.title = this.error;
      return;
    }
    let text;
    if (this.full) {
      const all = countPoints(this.full, runs);
      text = `${formatCount(all.total)} points`;
      if (!all.exact) text += ` (${formatCount(all.sent)} drawn)`;
      if (this.zoom && this.zoom.x && this.zoomData) {
        const z = countPoints(this.zoomData, runs);
        text += ` · in view: ${formatCount(z.total)}`;
        text += z.exact ? " (every point)" : ` (${formatCount(z.sent)} drawn: zoom in for every point)`;
      }
    } else {
      text = `${formatCount(this.board.pointsInIndex(this.tag, runs))} points`;
    }
    if (runs.length === 0) text = "no run selected has this tag";
    else if (this.loading) text += " · loading…";
    this.sub.textContent = text;
    this.sub.title = "";
  }

  // ---------------------------------------------------------------------------------- data

  setVisible(visible) {
    this.visible = visible;
    if (!visible) return;
    this.ensure();
    this.fit.shown();
  }

  setNear(near) {
    this.near = near;
    if (near) this.ensure();
  }

  /** Fetch whatever is missing if near the screen; draw if on screen. */
  ensure() {
    if (!this.visible && !this.near) return;
    const runs = this.runs();
    const missing = runs.some((run) => !this.askedRuns.has(run));
    if (this.dirty || missing) this.fetch();
    else if (this.visible && (this.needsDraw || !this.drawn)) this.draw();
  }

  /** Data changed in the kernel: refetch now if near the screen, else when scrolled to. */
  invalidate() {
    this.dirty = true;
    this.ensure();
  }

  priority() {
    return (this.visible ? 10 : this.near ? 5 : 0) + (this.section === "pinned" ? 1 : 0);
  }

  request(range, onReply) {
    const runs = this.runs();
    const width = Math.max(100, Math.round(this.plot.clientWidth || this.board.settings.cardWidth));
    const xAxis = this.board.settings.xAxis;
    const purpose = range ? "zoom" : "full";
    const content = { type: "series", tag: this.tag, runs, x_axis: xAxis, range, width };
    const deliver = (msg) => {
      if (this.destroyed || msg.x_axis !== this.board.settings.xAxis) return;
      onReply(msg, runs);
    };
    const id = this.board.requests.enqueue(content, {
      key: `${this.key}\u0000${purpose}`,
      priority: () => this.priority(),
      onReply: (msg) => {
        this.pushes.answered(purpose, id);
        deliver(msg);
      },
      onError: (message) => {
        this.pushes.failed(purpose, id);
        if (this.destroyed) return;
        if (!range) this.askedRuns = new Set(this.fullRuns); // asked again at the next scroll
        this.loading = false;
        this.error = `Could not load ${this.tag}: ${message}`;
        this.updateSub();
      },
    });
    this.pushes.asked(purpose, id, content, deliver);
  }

  /**
   * A reply the kernel pushed (protocol.py, "Pushed replies"): applied like the reply to the
   * request it answers, keeping zoom and hover. Returns whether this card took it.
   */
  takePush(msg) {
    if (this.destroyed || this.pushes.take(msg) === 0) return false;
    if (this.error) {
      this.error = null; // e.g. "no answer from the kernel (is it busy…)": its poll thread answers
      this.updateSub();
    }
    return true;
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
    this.request(null, (msg, asked) => {
      this.full = this.seriesMap(msg);
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
    this.request(range.slice(), (msg) => {
      if (!this.zoom || !sameRange(this.zoom.x, range)) return;
      this.zoomData = this.seriesMap(msg);
      this.loading = false;
      this.draw();
    });
  }

  seriesMap(msg) {
    const out = new Map();
    for (const entry of msg.series || []) out.set(entry.run, fromMessage(entry));
    return out;
  }

  /** The x axis changed: every x value and range is in other units now. */
  resetAxis() {
    this.full = null;
    this.fullRuns = new Set();
    this.askedRuns = new Set();
    this.zoom = null;
    this.zoomData = null;
    this.invalidate();
    this.updateSub();
  }

  /** The selected runs changed: draw the runs held, fetch the ones missing. */
  runsChanged() {
    this.updateSub();
    this.needsDraw = true;
    this.ensure();
  }

  /** Zoom set from this card, its twin in another section, the `view` trait or a reset. */
  setZoom(zoom) {
    const before = this.zoom;
    this.zoom = zoom;
    const xChanged = !sameRange(before && before.x, zoom && zoom.x);
    if (xChanged) {
      this.zoomData = null;
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

  setExpanded(on) {
    this.expanded = on;
    this.el.classList.toggle("tbnb-expanded", on);
    this.updateButtons();
    this.redraw();
  }

  /** Draw now if on screen, else at the next scroll into view. */
  redraw() {
    if (this.visible) this.draw();
    else this.needsDraw = true;
  }

  // ---------------------------------------------------------------------------------- drawing

  /** Values of each drawn line for the y domain: smoothed when smoothing is on, as TensorBoard. */
  domain(lines) {
    const { ignoreOutliers } = this.board.settings;
    const xRange = this.zoom && this.zoom.x && !this.zoom.y ? this.zoom.x : null;
    return yDomain(lines, { ignoreOutliers, log: this.logY, xRange });
  }

  yRange(lines) {
    const zoomY = this.zoom && this.zoom.y;
    if (zoomY) {
      if (!this.logY) return zoomY;
      return zoomY[0] > 0 && zoomY[1] > 0 ? zoomY.map(Math.log10) : null;
    }
    const d = this.domain(lines);
    if (!d) return null;
    return this.logY ? d.map(Math.log10) : d;
  }

  layout(lines) {
    const { xAxis } = this.board.settings;
    const yRange = this.yRange(lines);
    const xRange = this.zoom && this.zoom.x ? toDisplayRange(this.zoom.x, xAxis, this.unit) : null;
    return {
      ...baseLayout(this),
      hovermode: "x unified",
      dragmode: "zoom",
      xaxis: {
        ...AXIS,
        ...xAxisLayout(xAxis, this.unit),
        ...(xRange ? { range: xRange, autorange: false } : { autorange: true }),
      },
      yaxis: {
        ...AXIS,
        type: this.logY ? "log" : "linear",
        exponentformat: "e",
        ...(yRange ? { range: yRange, autorange: false } : { autorange: true }),
      },
    };
  }

  traces() {
    const { smoothing, xAxis } = this.board.settings;
    const on = smoothing > 0;
    const traces = [];
    const lines = [];
    this.shown = [];
    this.smoothedTraces = [];
    for (const run of this.runs()) {
      const overview = this.full && this.full.get(run);
      if (!overview) continue;
      const zoomed = this.zoom && this.zoom.x && this.zoomData ? this.zoomData.get(run) : null;
      const s = zoomed ? mergeZoom(overview, zoomed, this.zoom.x) : overview;
      const x = toDisplayX(s.x, xAxis, this.unit);
      const color = this.board.colorOf(run);
      const name = escapePlotly(run);
      const smoothed = smooth(s.y, smoothing);
      // The raw line stays drawn when smoothing is off: it lies under the smoothed line, which
      // then has the same values, so a weight crossing 0 changes y values only.
      traces.push({
        type: "scatter",
        mode: "lines",
        name,
        x,
        y: s.y,
        line: { color, width: 1 },
        opacity: RAW_OPACITY,
        hoverinfo: "skip",
        showlegend: false,
      });
      const line = { run, x: s.x, y: s.y, name, wall: Boolean(s.wall) };
      traces.push({
        type: "scatter",
        mode: "lines",
        name,
        x,
        y: smoothed,
        line: { color, width: 1.5 },
        customdata: hoverOf(s),
        hovertemplate: hoverTemplate(line, on),
        showlegend: false,
      });
      this.smoothedTraces.push(traces.length - 1);
      this.shown.push(line);
      lines.push({ x: s.x, y: on ? smoothed : s.y });
    }
    this.smoothingOn = on;
    this.smoothedWith = smoothing;
    return { traces, lines };
  }

  draw() {
    const Plotly = this.board.plotly;
    if (!this.visible || !Plotly || !this.full) {
      this.needsDraw = true;
      return;
    }
    this.needsDraw = false;
    this.updateSub();
    const { traces, lines } = this.traces();
    // A smoothing frame still queued (plotly runs them at its next animation frame) holds the
    // lines of the old data: drop it before the new data is drawn.
    if (this.drawn) Plotly.animate(this.plot, [], { mode: "immediate" }).catch(() => {});
    Plotly.react(this.plot, traces, this.layout(lines), CONFIG);
    if (!this.drawn) {
      this.drawn = true;
      this.plot.on("plotly_relayout", (event) => this.onRelayout(event));
      this.plot.on("plotly_doubleclick", () => setTimeout(() => this.destroyed || this.board.setZoom(this.tag, null), 0));
      if (!smoothingWarmed) {
        // The first smoothing change on a page costs two to three times the later ones: V8 has
        // not compiled plotly's transition path yet. One change to the same weight (same
        // values), when the page is idle, makes the user's first slider move as quick.
        smoothingWarmed = true;
        const idle = globalThis.requestIdleCallback || ((fn) => setTimeout(fn, 500));
        idle(() => this.visible && !this.destroyed && this.applySmoothing(), { timeout: 3000 });
      }
    }
  }

  /** The weight changed: off screen, redraw when scrolled into view. */
  smoothingStale() {
    if (!this.visible && this.drawn) this.needsDraw = true;
  }

  /** Whether this card is on screen with smoothed lines of another weight. */
  needsSmoothing() {
    return this.visible && this.drawn && !this.needsDraw && this.smoothedWith !== this.board.settings.smoothing;
  }

  /**
   * The smoothing weight changed: only the smoothed lines' values change at once, through
   * plotly's transition path, which redraws just those traces (a full update also rebuilds the
   * raw lines, axes and margins: about twice the time, too slow for a slider). The y axis and
   * the hover text follow once the weight has rested for SETTLE_MS, so that a drag does not
   * make the axis jump at every step.
   */
  applySmoothing() {
    const Plotly = this.board.plotly;
    if (!this.drawn || !this.visible || !Plotly) {
      this.needsDraw = this.needsDraw || this.drawn || Boolean(this.full);
      return;
    }
    const { smoothing } = this.board.settings;
    this.smoothedWith = smoothing;
    // Plain arrays: plotly walks a frame's objects key by key, and a typed array's keys are
    // its indices (3-4 ms per card here); an Array it passes over.
    const ys = this.shown.map((line) => Array.from(smooth(line.y, smoothing)));
    Plotly.animate(
      this.plot,
      { data: ys.map((y) => ({ y })), traces: this.smoothedTraces },
      { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } },
    ).catch(() => {}); // a newer weight or a redraw interrupts it: nothing to report
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.settleSmoothing(), SETTLE_MS);
  }

  /** After the weight rested: fit the y range to the lines as drawn, and say "(value ...)" in
   * the hover text exactly when smoothing is on. One update, only if something differs. */
  settleSmoothing() {
    const Plotly = this.board.plotly;
    if (this.destroyed || !this.drawn || !Plotly) return;
    const on = this.board.settings.smoothing > 0;
    const data = {};
    if (on !== this.smoothingOn) {
      data.hovertemplate = this.shown.map((line) => hoverTemplate(line, on));
      this.smoothingOn = on;
    }
    const layout = {};
    if (!(this.zoom && this.zoom.y)) {
      const lines = this.shown.map((line, i) => ({ x: line.x, y: this.plot.data[this.smoothedTraces[i]].y }));
      const range = this.yRange(lines);
      const now = this.plot.layout && this.plot.layout.yaxis && this.plot.layout.yaxis.range;
      if (range && !(now && now[0] === range[0] && now[1] === range[1])) {
        Object.assign(layout, { "yaxis.range": range, "yaxis.autorange": false });
      }
    }
    if (!data.hovertemplate && !Object.keys(layout).length) return;
    // Plotly.update, not relayout: a relayout event would be taken for a zoom by the user.
    Plotly.update(this.plot, data, layout, this.smoothedTraces);
  }

  onRelayout(event) {
    const xr = relayoutRange(event, "xaxis");
    const yr = relayoutRange(event, "yaxis");
    if (!xr && !yr) return;
    const { xAxis } = this.board.settings;
    const x = xr ? fromDisplayRange(xr, xAxis, this.unit) : this.zoom ? this.zoom.x : null;
    let y = null;
    if (yr) {
      const values = yr.map(Number);
      y = this.logY ? values.map((v) => Math.pow(10, v)) : values;
      if (!values.every(Number.isFinite)) y = null;
    } else if (!xr && this.zoom) {
      y = this.zoom.y;
    }
    // After plotly's own relayout has finished: setZoom redraws this chart.
    setTimeout(() => {
      if (!this.destroyed) this.board.setZoom(this.tag, x || y ? { x, y } : null);
    }, 0);
  }

  /** The plot's box changed size: fit the chart to it (when next on screen if off it now). */
  resized() {
    this.fit.resized();
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.settleTimer);
    this.board.requests.cancel(`${this.key}\u0000full`);
    this.board.requests.cancel(`${this.key}\u0000zoom`);
    this.fit.destroy();
    const Plotly = this.board.plotly;
    if (Plotly && this.drawn) Plotly.purge(this.plot);
    this.el.remove();
  }
}
