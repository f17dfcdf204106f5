// The Board's front end: the anywidget module (entry of the bundle). It lays out the header
// (dashboard tabs), run selector, cards and settings, and keeps them in step with the synced
// traits (so settings made in Python apply live: board_listen.js). Messages go through
// router.js; what each dashboard shows and draws is its own module's (dashboards/, read through
// layout.js).

import { imageFilter } from "../cards/blob.js";
import { listen } from "./board_listen.js";
import { Cards } from "./cards.js";
import { PALETTE, normalizeHex } from "./colors.js";
import { DEFAULT_CARD_WIDTH } from "./constants.js";
import { debounce, h } from "../dom.js";
import { Header } from "../widgets/header.js";
import { emptyMessage, layoutItems, plotlyNeed } from "./layout.js";
import { naturalSort } from "../naturalsort.js";
import { deliverPlotly, loadPlotly, plotlyFor, releasePlotly } from "./plotly.js";
import { loadPlugins } from "./plugins.js";
import { Router } from "./router.js";
import { RunSelector } from "../widgets/run_selector.js";
import { shownRuns } from "../runs.js";
import { Sections } from "../widgets/sections.js";
import { SettingsPane } from "../widgets/settings.js";
import { styleElement } from "./style.js";
import { parseIndex, sameLayout } from "./tag_index.js";
import { watchTheme } from "./theme.js";
import { trait } from "./traits.js";

const WAITING = "Asking the kernel for runs and tags…";
const NO_ANSWER =
  "No answer from the kernel yet. Is it running (or busy in another cell)? If it was restarted, run the cell that shows the Board again.";

class Board {
  constructor(model, el) {
    this.model = model;
    this.index = null; // tag_index.js's parseIndex of the kernel's last "index"
    this.shown = new Set();
    this.order = new Map(); // run -> position in the index
    this.zooms = new Map(); // tag -> {x, y}
    this.lastView = null;
    this.plotlyWanted = null; // the plotly.js build asked for and not yet run
    this.listeners = [];
    this.destroyed = false;
    this.emptyText = WAITING;
    this.saveSoon = debounce(() => model.save_changes(), 150);
    this.router = new Router({
      send: (content) => model.send(content),
      cards: () => this.cards.all(),
      onIndex: (msg) => this.applyIndex(msg),
      onBanner: (text) => this.banner(text),
    });

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
    this.stopTheme = watchTheme(this); // light or dark as the host, live (theme.js)
    this.applyWidth();
    this.applyImageSettings();
    el.append(this.root);

    this.listen();
    this.applyView(); // a zoom set from Python before the Board was shown
    this.layoutCards();
    this.router.requestIndex();
    // No index yet after 10 s: say so, and ask again every 10 s (the kernel may have been busy).
    this.retry = setInterval(() => {
      if (this.index || this.destroyed) return clearInterval(this.retry);
      this.emptyText = NO_ANSWER;
      this.layoutCards();
      this.router.retryIndex();
    }, 10000);
    this.loadPlotly();
    loadPlugins(this, () => this.pluginsLoaded());
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

  /** Several traits in one message ({name: value}). */
  setTraits(values) {
    for (const [name, value] of Object.entries(values)) this.model.set(name, value);
    this.model.save_changes();
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
    listen(this);
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
    this.shown = new Set(shownRuns(this.runNames(), this.trait("runs"), this.trait("hidden_runs"), this.trait("hidden_patterns")));
    this.runSelector.render();
    this.layoutCards();
    for (const card of this.cards.all()) card.runsChanged();
  }

  /** The index's entry for `tag` of `plugin` ({runs, points}), or null. */
  tagInfo(tag, plugin) {
    const tags = this.index && this.index.plugins.get(plugin);
    return (tags && tags.get(tag)) || null;
  }

  /** Runs drawn on the card of `tag` of `plugin`: selected and having the tag, in index order. */
  runsForTag(tag, plugin) {
    const info = this.tagInfo(tag, plugin);
    return info ? info.runs.filter((run) => this.shown.has(run)) : [];
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
    const spec = {
      dashboard: this.trait("dashboard"),
      cardTypes: this.trait("card_types"),
      tags: this.index.plugins,
      shown: this.shown,
      filter,
      pinned: this.trait("pinned"),
      custom: this.trait("custom_cards"),
    };
    const layout = layoutItems(spec);
    // The cards the tag filter hides stay made (not drawn): widening the filter again is quick.
    const spare = filter ? layoutItems({ ...spec, filter: "" }).groups : [];
    const completions = naturalSort(layout.tags);
    const joined = completions.join("\u0000");
    if (joined !== this.completions) {
      this.completions = joined;
      this.header.setTags(completions);
    }
    const message = (this.trait("status") || {}).message;
    const empty = emptyMessage(layout, { tags: this.index.plugins, filter, message });
    this.layoutEmpty = empty !== null;
    this.sections.render({ pinned: layout.pinned, groups: layout.groups, empty, spare });
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

  /** An error that belongs to no card. */
  banner(text) {
    this.header.banner(text);
  }

  // ---------------------------------------------------------------------------------- kernel

  /** The plotly.js the shown dashboard draws with (its declared build, or a larger one), or
   * null until it has run: cards draw when it arrives. */
  get plotly() {
    return plotlyFor(plotlyNeed(this.trait("dashboard")));
  }

  /** Get the plotly.js build the shown dashboard needs, if the page has none that draws it. */
  loadPlotly() {
    const need = plotlyNeed(this.trait("dashboard"));
    if (plotlyFor(need) || this.plotlyWanted === need || (this.plotlyWanted === "full" && need === "cartesian")) return;
    this.plotlyWanted = need;
    this.plotlyRequester = this.plotlyRequester || ((bundle) => this.model.send({ type: "plotly", bundle }));
    loadPlotly(this.plotlyRequester, need).then(
      () => {
        if (this.destroyed) return;
        if (this.plotlyWanted === need) this.plotlyWanted = null;
        for (const card of this.cards.all()) if (card.hasData()) card.redraw();
      },
      (error) => {
        if (this.destroyed) return;
        if (this.plotlyWanted === need) this.plotlyWanted = null;
        this.header.banner(`plotly.js could not be loaded, so charts cannot be drawn: ${error.message}`);
      },
    );
  }

  /** Installed dashboards were registered (plugins.js): their tabs, and the shown one if theirs. */
  pluginsLoaded() {
    this.header.renderTabs();
    this.header.sync();
    this.loadPlotly();
    this.layoutCards();
  }

  applyIndex(msg) {
    const before = this.index;
    this.index = parseIndex(msg);
    this.order = this.index.order;
    this.header.renderProblems();
    // The same runs and tags again (the answer to the request after the index of a first pass,
    // or a resync): the cards made from them stand, and laying them out again would only hold
    // up the drawing of the lines about to arrive.
    if (!sameLayout(before, this.index)) this.runsChanged();
  }

  destroy() {
    this.destroyed = true;
    this.saveSoon.flush();
    for (const [event, fn] of this.listeners) this.model.off(event, fn);
    clearInterval(this.retry);
    cancelAnimationFrame(this.frame);
    if (this.plotlyRequester) releasePlotly(this.plotlyRequester);
    this.stopTheme();
    this.router.destroy();
    this.cards.destroy();
    this.header.destroy();
    this.runSelector.destroy();
    this.root.remove();
  }
}

export default {
  /** Per model, before any view: take plotly.js if the kernel sends it unasked (its first
   * Board sends the cartesian build, while it reads the logdir), so that the script runs
   * before a view asks. */
  initialize({ model }) {
    model.on("msg:custom", (msg, buffers) => {
      if (msg && msg.type === "plotly" && buffers && buffers.length) deliverPlotly(buffers[0], msg.bundle);
    });
  },
  render({ model, el }) {
    const board = new Board(model, el);
    return () => board.destroy();
  },
};
