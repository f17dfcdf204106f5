// The Board's front end: the anywidget module (entry of the bundle). It lays out the header
// (dashboard tabs), run selector, cards and settings; keeps them in step with the synced traits
// (so settings made in Python apply live); and speaks the message protocol of
// tbnb/board/protocol.py, "Dashboards beyond scalars" included.

import { imageFilter } from "./blob.js";
import { Cards } from "./cards.js";
import { decode } from "./codec.js";
import { PALETTE, normalizeHex } from "./colors.js";
import { DEFAULT_CARD_WIDTH } from "./constants.js";
import { NOUNS, PLUGIN_OF, layoutItems } from "./dashboards.js";
import { debounce, h } from "./dom.js";
import { saveText } from "./download.js";
import { fileNameFor } from "./format.js";
import { Header } from "./header.js";
import { naturalSort } from "./naturalsort.js";
import { deliverPlotly, loadPlotly, releasePlotly } from "./plotly.js";
import { Requests } from "./requests.js";
import { RunSelector } from "./run_selector.js";
import { shownRuns } from "./runs.js";
import { Sections } from "./sections.js";
import { SettingsPane } from "./settings.js";
import { styleElement } from "./style.js";
import { trait } from "./traits.js";

const SCALARS = "scalars";
const WAITING = "Asking the kernel for runs and tags…";
const NO_ANSWER =
  "No answer from the kernel yet. Is it running (or busy in another cell)? If it was restarted, run the cell that shows the Board again.";
const MIME = { csv: "text/csv", json: "application/json" };

class Board {
  constructor(model, el) {
    this.model = model;
    // {runs: [name], colors: Map, plugins: Map plugin -> Map tag -> {runs, points}, tags (the
    // scalars' map), problems: []}
    this.index = null;
    this.shown = new Set();
    this.order = new Map(); // run -> position in the index
    this.zooms = new Map(); // tag -> {x, y}
    this.lastView = null;
    this.plotly = globalThis.Plotly || null;
    this.listeners = [];
    this.destroyed = false;
    this.indexPending = false;
    this.indexAgain = false;
    this.emptyText = WAITING;
    this.saveSoon = debounce(() => model.save_changes(), 150);
    this.requests = new Requests((content) => model.send(content));

    // Keys pressed inside the board are the board's: without this, JupyterLab's and Notebook 7's
    // command-mode shortcuts take arrow keys from a focused slider and A/B/X/D insert, cut or
    // delete cells. JupyterLab handles keys as they bubble to the document: stopping them at the
    // root is enough. Notebook 7 handles them on the way down, before the board sees them, and
    // Lumino skips a binding only when an element carrying data-lm-suppress-shortcuts comes
    // before one matching its selector, walking up from the target; the notebook's selector
    // ("... :focus") matches the focused control itself, so the attribute goes on whatever
    // takes focus in the board.
    this.root = h("div", { class: "tbnb", "data-lm-suppress-shortcuts": "true" });
    this.root.addEventListener("keydown", (event) => event.stopPropagation());
    this.root.addEventListener("focusin", (event) => {
      const target = event.target;
      if (target instanceof Element && !target.hasAttribute("data-lm-suppress-shortcuts")) {
        target.setAttribute("data-lm-suppress-shortcuts", "true");
      }
    });
    this.root.append(styleElement());
    this.header = new Header(this, () => this.toggleSettings());
    this.runSelector = new RunSelector(this);
    this.main = h("div", { class: "tbnb-main" });
    this.settingsPane = new SettingsPane(this, () => this.toggleSettings(false));
    this.settingsPane.el.hidden = true;
    this.root.append(
      ...this.header.el,
      h("div", { class: "tbnb-body" }, this.runSelector.el, this.main, this.settingsPane.el),
    );
    this.cards = new Cards(this, this.main);
    this.sections = new Sections(this, this.main);
    this.applyWidth();
    this.applyImageSettings();
    el.append(this.root);

    this.listen();
    this.applyView(); // a zoom set from Python before the Board was shown
    this.layoutCards();
    this.requestIndex();
    // No index yet after 10 s: say so, and ask again every 10 s (the kernel may have been busy).
    this.retry = setInterval(() => {
      if (this.index || this.destroyed) return clearInterval(this.retry);
      this.emptyText = NO_ANSWER;
      this.layoutCards();
      this.indexPending = false;
      this.requestIndex();
    }, 10000);
    this.loadPlotly();
    // The settings pane starts open when there is room for it, as in TensorBoard.
    this.frame = requestAnimationFrame(() => {
      if (this.root.clientWidth >= 1150) this.toggleSettings(true);
    });
  }

  // ---------------------------------------------------------------------------------- traits

  trait(name) {
    return trait(this.model, name);
  }

  /** Set a trait here (its change handlers run at once) and send it to the kernel. */
  setTrait(name, value, { soon = false } = {}) {
    this.model.set(name, value);
    if (soon) this.saveSoon();
    else this.model.save_changes();
  }

  get settings() {
    return {
      smoothing: Number(this.trait("smoothing")) || 0,
      xAxis: this.trait("x_axis"),
      logY: Boolean(this.trait("log_y")),
      ignoreOutliers: Boolean(this.trait("ignore_outliers")),
      cardWidth: Number(this.trait("card_width")) || DEFAULT_CARD_WIDTH,
    };
  }

  /** Theme colours for plotly, read from the page once the Board is on it. */
  get colors() {
    if (!this.themeColors && this.root.isConnected) {
      const style = getComputedStyle(this.root);
      const opaque = (c) => c && !/^rgba\(.*,\s*0\)$|^transparent$/.test(c);
      this.themeColors = {
        text: style.color || "#212121",
        background: opaque(style.backgroundColor) ? style.backgroundColor : "#ffffff",
        border: style.borderTopColor || "#e0e0e0",
      };
    }
    return this.themeColors || { text: "#212121", background: "#ffffff", border: "#e0e0e0" };
  }

  listen() {
    const on = (event, fn) => {
      this.model.on(event, fn);
      this.listeners.push([event, fn]);
    };
    const cards = () => this.cards.all();
    on("msg:custom", (msg, buffers) => this.onMessage(msg, buffers || []));
    on("change:smoothing", () => {
      this.settingsPane.sync();
      this.cards.smoothingChanged();
    });
    on("change:x_axis", () => {
      this.settingsPane.sync();
      this.zooms.clear();
      this.writeView();
      for (const card of cards()) card.resetAxis();
    });
    on("change:log_y", () => {
      this.settingsPane.sync();
      for (const card of cards()) card.setLogY(this.settings.logY);
    });
    on("change:ignore_outliers", () => {
      this.settingsPane.sync();
      for (const card of cards()) card.redraw();
    });
    on("change:card_width", () => {
      this.settingsPane.sync();
      this.applyWidth();
    });
    on("change:runs", () => {
      this.runSelector.syncFilter();
      this.runsChanged();
    });
    on("change:hidden_runs", () => this.runsChanged());
    on("change:run_colors", () => {
      this.runSelector.render();
      for (const card of cards()) card.redraw();
    });
    on("change:tag_filter", () => {
      this.header.sync();
      this.layoutCards();
    });
    on("change:pinned", () => this.layoutCards());
    on("change:view", () => this.applyView());
    on("change:status", () => {
      this.header.renderStatus();
      if (this.index && this.layoutEmpty) this.layoutCards();
    });
    on("change:dashboard", () => {
      this.header.sync();
      this.layoutCards();
    });
    on("change:card_types", () => {
      this.header.sync();
      this.layoutCards();
    });
    on("change:histogram_mode", () => {
      this.settingsPane.sync();
      for (const card of cards()) if (card.kind === "histograms") card.redraw();
    });
    for (const name of ["image_brightness", "image_contrast", "image_actual_size"]) {
      on(`change:${name}`, () => {
        this.settingsPane.sync();
        this.applyImageSettings();
      });
    }
  }

  /** Brightness and contrast (a CSS filter) and actual size apply to every image at once. */
  applyImageSettings() {
    this.root.style.setProperty("--tbnb-image-filter", imageFilter(this.trait("image_brightness"), this.trait("image_contrast")));
    this.root.classList.toggle("tbnb-actual-size", Boolean(this.trait("image_actual_size")));
  }

  applyWidth() {
    this.root.style.setProperty("--tbnb-card-width", `${this.settings.cardWidth}px`);
  }

  toggleSettings(open = this.settingsPane.el.hidden) {
    this.settingsPane.el.hidden = !open;
    this.header.settingsButton.classList.toggle("tbnb-on", open);
  }

  // ---------------------------------------------------------------------------------- runs

  runNames() {
    return this.index ? this.index.runs : [];
  }

  problems() {
    return this.index ? this.index.problems : [];
  }

  runsChanged() {
    this.shown = new Set(shownRuns(this.runNames(), this.trait("runs"), this.trait("hidden_runs")));
    this.runSelector.render();
    this.layoutCards();
    for (const card of this.cards.all()) card.runsChanged();
  }

  /** Runs drawn on the card of `tag` of `plugin`: selected and having the tag, in index order. */
  runsForTag(tag, plugin = SCALARS) {
    const tags = this.index && this.index.plugins.get(plugin);
    const info = tags && tags.get(tag);
    if (!info) return [];
    return info.runs.filter((run) => this.shown.has(run));
  }

  pointsInIndex(tag, runs) {
    const info = this.index && this.index.tags.get(tag);
    if (!info) return 0;
    return runs.reduce((sum, run) => sum + (Number(info.points[run]) || 0), 0);
  }

  colorOf(run) {
    const chosen = normalizeHex((this.trait("run_colors") || {})[run]);
    if (chosen) return chosen;
    const fromIndex = this.index && normalizeHex(this.index.colors.get(run));
    if (fromIndex) return fromIndex;
    const i = this.order.has(run) ? this.order.get(run) : 0;
    return PALETTE[i % PALETTE.length];
  }

  setRunColor(run, color) {
    this.setTrait("run_colors", { ...this.trait("run_colors"), [run]: color }, { soon: true });
  }

  // ---------------------------------------------------------------------------------- cards

  isPinned(tag) {
    return (this.trait("pinned") || []).includes(tag);
  }

  togglePin(tag) {
    const pinned = this.trait("pinned") || [];
    this.setTrait("pinned", pinned.includes(tag) ? pinned.filter((t) => t !== tag) : [...pinned, tag]);
  }

  layoutCards() {
    if (!this.index) {
      this.sections.render({ pinned: [], groups: [], empty: this.emptyText });
      return;
    }
    const filter = this.trait("tag_filter");
    const layout = layoutItems({
      dashboard: this.trait("dashboard"),
      cardTypes: this.trait("card_types"),
      tags: this.index.plugins,
      shown: this.shown,
      filter,
      pinned: this.trait("pinned"),
    });
    const completions = naturalSort(layout.tags);
    const joined = completions.join("\u0000");
    if (joined !== this.completions) {
      this.completions = joined;
      this.header.setTags(completions);
    }
    const { kinds } = layout;
    const nouns = [...new Set(kinds.map((kind) => NOUNS[kind]))];
    const noun = nouns.length > 1 ? `${nouns.slice(0, -1).join(", ")} or ${nouns[nouns.length - 1]}` : nouns[0];
    const anyTag = kinds.some((kind) => (this.index.plugins.get(PLUGIN_OF[kind]) || new Map()).size > 0);
    const message = (this.trait("status") || {}).message;
    let empty = null;
    if (kinds.length === 0) empty = "No card type is selected: tick Scalars, Histograms or Images above.";
    else if (!anyTag) {
      const appear = noun === "scalar" ? "scalars appear" : "data appears";
      empty = typeof message === "string" && message ? `No ${noun} data yet: ${message}.` : `No ${noun} data yet. The kernel reads the logdir again and again: ${appear} here once written.`;
    } else if (layout.tags.length === 0) empty = `No selected run has ${noun} data: see the run selector on the left.`;
    else if (layout.groups.length === 0) empty = `No tag matches the filter “${filter}”.`;
    this.layoutEmpty = empty !== null;
    this.sections.render({ pinned: layout.pinned, groups: layout.groups, empty });
  }

  zoomOf(tag) {
    return this.zooms.get(tag) || null;
  }

  /** Zoom every card of `tag` to `zoom` ({x, y} in data units; null resets) and write `view`. */
  setZoom(tag, zoom, { write = true } = {}) {
    const z = zoom && (zoom.x || zoom.y) ? { x: zoom.x || null, y: zoom.y || null } : null;
    if (z) this.zooms.set(tag, z);
    else this.zooms.delete(tag);
    for (const card of this.cards.forTag(tag)) card.setZoom(z);
    if (write) this.writeView();
  }

  writeView() {
    const tags = {};
    for (const [tag, zoom] of this.zooms) tags[tag] = { x: zoom.x ? zoom.x.slice() : null };
    const view = { tags, x_axis: this.settings.xAxis };
    this.lastView = JSON.stringify(view);
    this.setTrait("view", view, { soon: true });
  }

  /** `view` set from Python: zoom the cards it names, reset the others. */
  applyView() {
    const view = this.trait("view") || {};
    const text = JSON.stringify(view);
    if (text === this.lastView) return;
    this.lastView = text;
    if (view.x_axis && view.x_axis !== this.settings.xAxis) return;
    const wanted = new Map();
    for (const [tag, entry] of Object.entries(view.tags || {})) {
      const x = entry && entry.x;
      if (Array.isArray(x) && x.length === 2 && x.every(Number.isFinite)) wanted.set(tag, { x: [Math.min(...x), Math.max(...x)], y: null });
    }
    for (const tag of new Set([...this.zooms.keys(), ...wanted.keys()])) {
      this.setZoom(tag, wanted.get(tag) || null, { write: false });
    }
  }

  download(tag, format) {
    this.requests.sendNow(
      { type: format, tag, runs: this.runsForTag(tag) },
      {
        onReply: (msg) => saveText(fileNameFor(tag, msg.format || format), String(msg.text ?? ""), MIME[format]),
        onError: (message) => this.header.banner(`Download of ${tag} failed: ${message}`),
      },
    );
  }

  // ---------------------------------------------------------------------------------- kernel

  loadPlotly() {
    if (this.plotly) return;
    this.plotlyRequester = () => this.model.send({ type: "plotly" });
    loadPlotly(this.plotlyRequester).then(
      (Plotly) => {
        if (this.destroyed) return;
        this.plotly = Plotly;
        for (const card of this.cards.all()) if (card.full || card.data) card.redraw();
      },
      (error) => {
        if (this.destroyed) return;
        this.header.banner(`plotly.js could not be loaded, so charts cannot be drawn: ${error.message}`);
      },
    );
  }

  requestIndex() {
    if (this.indexPending) {
      this.indexAgain = true;
      return;
    }
    this.indexPending = true;
    this.model.send({ type: "index" });
  }

  onMessage(msg, buffers) {
    if (!msg || typeof msg !== "object" || this.destroyed) return;
    switch (msg.type) {
      case "plotly":
        if (buffers.length) deliverPlotly(buffers[0]);
        break;
      case "index":
        this.applyIndex(msg);
        break;
      case "series":
      case "histograms":
      case "distributions":
      case "blobs":
      case "blob":
      case "text": {
        if (msg.push === true) {
          this.onPush(msg, buffers);
          break;
        }
        if (!this.requests.owns(msg.id)) return;
        let decoded;
        try {
          decoded = decode(msg, buffers);
        } catch (error) {
          this.requests.handle({ type: "error", id: msg.id, message: `bad reply: ${error.message}` });
          return;
        }
        this.requests.handle(decoded, buffers);
        break;
      }
      case "download":
        this.requests.handle(msg, buffers);
        break;
      case "changed":
        this.onChanged(msg);
        break;
      case "error":
        if (msg.id === null || msg.id === undefined) this.header.banner(msg.message ?? "error");
        else this.requests.handle(msg, buffers);
        break;
      default:
        break;
    }
  }

  applyIndex(msg) {
    this.indexPending = false;
    const plugins = new Map(); // plugin -> tag -> {runs, points}
    const names = [];
    const colors = new Map();
    for (const run of msg.runs || []) {
      const name = typeof run === "string" ? run : run && run.name;
      if (typeof name !== "string" || colors.has(name)) continue;
      names.push(name);
      colors.set(name, run.color);
    }
    for (const entry of msg.tags || []) {
      if (!entry || typeof entry.tag !== "string") continue;
      const plugin = entry.plugin === undefined ? SCALARS : entry.plugin;
      if (typeof plugin !== "string") continue;
      const runs = (entry.runs || []).filter((run) => typeof run === "string");
      for (const run of runs) {
        if (!colors.has(run)) {
          names.push(run);
          colors.set(run, undefined);
        }
      }
      if (!plugins.has(plugin)) plugins.set(plugin, new Map());
      const tags = plugins.get(plugin);
      const known = tags.get(entry.tag);
      if (known) {
        // the same tag and plugin twice: merge
        for (const run of runs) if (!known.runs.includes(run)) known.runs.push(run);
        Object.assign(known.points, entry.points || {});
      } else tags.set(entry.tag, { runs, points: { ...(entry.points || {}) } });
    }
    // Cards draw runs in index order; keep it stable for runs already seen.
    this.order = new Map(names.map((name, i) => [name, i]));
    for (const tags of plugins.values()) {
      for (const info of tags.values()) info.runs.sort((a, b) => this.order.get(a) - this.order.get(b));
    }
    if (!plugins.has(SCALARS)) plugins.set(SCALARS, new Map());
    this.index = { runs: names, colors, plugins, tags: plugins.get(SCALARS), problems: (msg.problems || []).map(String) };
    this.header.renderProblems();
    this.runsChanged();
    if (this.indexAgain) {
      this.indexAgain = false;
      this.requestIndex();
    }
  }

  /**
   * A reply the kernel's poll thread pushed (protocol.py, "Pushed replies"): to the cards whose
   * request it answers. It does not settle any pending request: their own replies still come.
   */
  onPush(msg, buffers) {
    let decoded;
    try {
      decoded = decode(msg, buffers);
    } catch {
      return; // a reply to the request follows anyway, once the kernel is free
    }
    for (const card of this.cards.all()) card.takePush(decoded, buffers);
  }

  /** New data after a poll: refetch visible cards whose tag changed, mark the others. */
  onChanged(msg) {
    const nonEmpty = (list) => Array.isArray(list) && list.length > 0;
    if (nonEmpty(msg.new_runs) || nonEmpty(msg.new_tags) || nonEmpty(msg.removed_runs)) this.requestIndex();
    const changed = new Map(); // tag -> runs
    if (msg.tags && typeof msg.tags === "object") {
      for (const [run, tags] of Object.entries(msg.tags)) {
        for (const tag of tags || []) {
          if (!changed.has(tag)) changed.set(tag, new Set());
          changed.get(tag).add(run);
        }
      }
    }
    const runsOnly = !msg.tags && Array.isArray(msg.runs) ? new Set(msg.runs) : null;
    for (const card of this.cards.all()) {
      const runs = card.runs();
      const touched = runsOnly ? runs.some((run) => runsOnly.has(run)) : changed.has(card.tag) && runs.some((run) => changed.get(card.tag).has(run));
      if (touched) card.invalidate();
    }
  }

  destroy() {
    this.destroyed = true;
    this.saveSoon.flush();
    for (const [event, fn] of this.listeners) this.model.off(event, fn);
    clearInterval(this.retry);
    cancelAnimationFrame(this.frame);
    if (this.plotlyRequester) releasePlotly(this.plotlyRequester);
    this.requests.destroy();
    this.cards.destroy();
    this.header.destroy();
    this.runSelector.destroy();
    this.root.remove();
  }
}

export default {
  /** Per model, before any view: take plotly.js if the kernel sends it unasked (its first
   * Board does, while it reads the logdir), so that the script runs before a view asks. */
  initialize({ model }) {
    model.on("msg:custom", (msg, buffers) => {
      if (msg && msg.type === "plotly" && buffers && buffers.length) deliverPlotly(buffers[0]);
    });
  },
  render({ model, el }) {
    const board = new Board(model, el);
    return () => board.destroy();
  },
};
