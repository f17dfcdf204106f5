// The graph explorer, the graphs dashboard's card's insides: handed over by the kernel with the
// layout worker (the `graph_explorer` request; tbnb/board/dashboards/graph_assets.py) and not
// part of the bundle, which is saved with every widget. The kernel sends only the open levels of
// the hierarchy (`graph` requests, protocol.md "Graphs"); each open level is laid out with dagre
// in a worker (worker.js) and drawn as SVG (view.js). Its state is the `graph_*`
// traits, so Python sets and reads what is open and selected.

import { h } from "../../dom.js";
import { formatCount } from "../../format.js";
import { nodeColors } from "./colors.js";
import { downloadPng, downloadSvg } from "./export.js";
import { layoutInput, levelModel, place } from "./levels.js";
import { infoPanel, legend, searchResults } from "./panel.js";
import { GRAPH_CSS } from "./style.js";
import { GraphView } from "./view.js";
import { layoutWorker } from "./worker.js";

export const COLOR_BY = [
  ["none", "None"],
  ["structure", "Structure"],
  ["device", "Device"],
  ["op", "Op type"],
  ["compute_time", "Compute time"],
  ["memory", "Memory"],
];
const SEARCH_DELAY_MS = 250;

/** "" is the run's op graph; other tags are shown as they are. */
export function tagLabel(tag) {
  return tag === "" ? "Op graph" : tag;
}

/** `expanded` with `more` added (in order, each once). */
export function withOpened(expanded, more) {
  return [...new Set([...(expanded || []), ...(more || [])])];
}

/** `expanded` with `id` switched: closing a scope also closes what was open inside it. */
export function toggled(expanded, id) {
  const list = expanded || [];
  if (!list.includes(id)) return [...list, id];
  return list.filter((x) => x !== id && !x.startsWith(`${id}/`));
}

export class Explorer {
  /** @param card  the graphs dashboard's card (graphs.js): requests, board, element */
  constructor(card) {
    this.card = card;
    this.board = card.board;
    this.list = null; // [{run, tags}]
    this.model = null;
    this.searchReply = null;
    this.infoReply = null;
    this.traceIds = null;
    this.generation = 0;
    this.timings = {}; // the last draw's: asked, replied, laid out, drawn (performance.now())
    this.build();
  }

  get destroyed() {
    return this.card.destroyed;
  }

  get visible() {
    return this.card.visible;
  }

  request(purpose, content, onReply, onError) {
    return this.card.request(purpose, content, onReply, onError || ((message) => this.fail(message)));
  }

  build() {
    this.runSelect = h("select", { class: "tbnb-input tbnb-select tbnb-graph-run", "aria-label": "Run", on: { change: () => this.board.setTrait("graph_run", this.runSelect.value) } });
    this.tagSelect = h("select", { class: "tbnb-input tbnb-select tbnb-graph-tag", "aria-label": "Graph", on: { change: () => this.board.setTrait("graph_tag", this.tagSelect.value) } });
    this.tagLabel = h("label", {}, "graph", this.tagSelect);
    this.searchBox = h("input", {
      type: "search",
      class: "tbnb-input tbnb-graph-searchbox",
      placeholder: "Search nodes (regex)",
      "aria-label": "Search nodes (regular expression)",
      value: String(this.trait("graph_search") || ""),
      on: { input: () => this.searchTyped() },
    });
    this.colorSelect = h(
      "select",
      { class: "tbnb-input tbnb-select tbnb-graph-color", "aria-label": "Colour by", on: { change: () => this.board.setTrait("graph_color_by", this.colorSelect.value) } },
      COLOR_BY.map(([value, label]) => h("option", { value, text: label })),
    );
    const button = (text, title, fn, cls) => h("button", { type: "button", class: `tbnb-btn ${cls}`, title, text, on: { click: fn } });
    const bar = h(
      "div",
      { class: "tbnb-graph-bar" },
      h("label", {}, "run", this.runSelect),
      this.tagLabel,
      this.searchBox,
      h("label", {}, "colour", this.colorSelect),
      button("Fit", "Fit the graph to the view", () => this.view.fit(), "tbnb-graph-fit"),
      button("SVG", "Download the drawn graph as SVG", () => this.download("svg"), "tbnb-graph-svg-download"),
      button("PNG", "Download the drawn graph as PNG", () => this.download("png"), "tbnb-graph-png-download"),
    );
    this.sub = h("div", { class: "tbnb-graph-sub" });
    this.plot = h("div", { class: "tbnb-graph-canvas" });
    this.legendBox = h("div");
    this.searchBoxResults = h("div");
    this.infoBox = h("div");
    this.side = h("div", { class: "tbnb-graph-side" }, this.legendBox, this.searchBoxResults, this.infoBox);
    this.el = this.card.el;
    this.el.replaceChildren(
      h("style", { class: "tbnb-graph-style", text: GRAPH_CSS }),
      bar,
      this.sub,
      h("div", { class: "tbnb-graph-main" }, this.plot, this.side),
    );
    this.view = new GraphView(this.plot, { select: (id) => this.select(id), toggle: (id) => this.toggle(id) });
    layoutWorker().catch(() => {}); // started now, while the first requests are answered
    this.search = (() => {
      let timer = null;
      return () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.board.setTrait("graph_search", this.searchBox.value), SEARCH_DELAY_MS);
      };
    })();
  }

  trait(name) {
    return this.board.model.get(name);
  }

  get expanded() {
    const value = this.trait("graph_expanded");
    return Array.isArray(value) ? value : [];
  }

  /** An object trait of id -> bool (graph_series, graph_include), {} when unset. */
  choices(name) {
    const value = this.trait(name);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  }

  say(text, error = false) {
    this.sub.textContent = text;
    this.sub.classList.toggle("tbnb-error", error);
  }

  fail(message) {
    this.card.loading = false;
    this.card.dirty = true;
    this.say(`Could not load the graph: ${message}`, true);
  }

  // ------------------------------------------------------------------------------- requests

  /** Ask for the list of graphs (or take `pending`, the card's request of it) and show one. */
  load(pending = null) {
    this.say("loading the list of graphs…");
    const take = (msg) => {
      if (this.destroyed) return;
      this.list = Array.isArray(msg.runs) ? msg.runs : [];
      this.card.data = this.list;
      this.pickRun();
    };
    if (pending) pending.then(take, (error) => this.fail(error.message || String(error)));
    else this.request("list", { type: "graph_list" }, take);
  }

  /** The run and tag shown: the traits' when they name a graph, else the first (written back). */
  pickRun() {
    const list = this.list || [];
    if (!list.length) {
      this.say("No run has a graph.");
      return;
    }
    let entry = list.find((e) => e.run === this.trait("graph_run"));
    if (!entry) {
      entry = list[0];
      this.board.setTrait("graph_run", entry.run); // its change handler loads the graph
      return;
    }
    const tag = String(this.trait("graph_tag") ?? "");
    if (!entry.tags.includes(tag)) {
      this.board.setTrait("graph_tag", entry.tags[0]);
      return;
    }
    this.runSelect.replaceChildren(...list.map((e) => h("option", { value: e.run, text: e.run })));
    this.runSelect.value = entry.run;
    this.tagSelect.replaceChildren(...entry.tags.map((t) => h("option", { value: t, text: tagLabel(t) })));
    this.tagSelect.value = tag;
    this.tagLabel.hidden = entry.tags.length < 2;
    this.colorSelect.value = this.trait("graph_color_by") || "structure";
    if (!this.current || this.current.run !== entry.run || this.current.tag !== tag) this.fitted = false; // a new graph: fit it
    this.current = { run: entry.run, tag };
    this.requestLevels();
    if (this.trait("graph_selected")) this.requestInfo();
    if (this.trait("graph_search")) this.requestSearch();
  }

  ask(purpose, what, extra, onReply) {
    if (!this.current) return;
    const content = { type: "graph", run: this.current.run, tag: this.current.tag, what, ...extra };
    this.request(purpose, content, onReply);
  }

  requestLevels() {
    const generation = (this.generation += 1);
    this.timings = { asked: performance.now() };
    this.say("loading…");
    const choices = { series: this.choices("graph_series"), include: this.choices("graph_include") };
    this.ask("levels", "levels", { expanded: this.expanded, ...choices }, (msg) => {
      this.timings.replied = performance.now();
      const model = levelModel(msg);
      this.layOut(model, msg, generation);
    });
  }

  layOut(model, msg, generation) {
    layoutWorker()
      .then((worker) => worker.layout(layoutInput(model)))
      .then(({ result, ms }) => {
        if (this.destroyed || generation !== this.generation) return;
        this.timings.laidOut = performance.now();
        this.timings.layoutMs = ms;
        this.model = model;
        this.placed = place(model, result);
        this.card.loading = false;
        this.render(msg);
      })
      .catch((error) => {
        if (!this.destroyed) this.fail(error.message);
      });
  }

  requestInfo() {
    const name = this.trait("graph_selected");
    if (!name) {
      this.infoReply = null;
      this.traceIds = null;
      this.drawSide();
      this.mark();
      return;
    }
    this.ask("info", "info", { name, series: this.choices("graph_series") }, (msg) => {
      this.infoReply = msg;
      this.drawSide();
    });
  }

  requestSearch() {
    const pattern = String(this.trait("graph_search") || "");
    if (this.searchBox.value !== pattern && this.el.ownerDocument.activeElement !== this.searchBox) this.searchBox.value = pattern;
    if (!pattern) {
      this.searchReply = null;
      this.drawSide();
      this.mark();
      return;
    }
    this.ask("search", "search", { pattern, series: this.choices("graph_series") }, (msg) => {
      this.searchReply = msg;
      this.drawSide();
      this.mark();
    });
  }

  trace() {
    const name = this.trait("graph_selected");
    if (this.traceIds || !name) {
      this.traceIds = null;
      this.mark();
      this.drawSide();
      return;
    }
    this.ask("trace", "trace", { name, expanded: this.expanded, series: this.choices("graph_series") }, (msg) => {
      this.traceIds = msg.error ? null : msg.ids;
      this.mark();
      this.drawSide();
    });
  }

  // ------------------------------------------------------------------------------- actions

  select(id) {
    this.traceIds = null;
    this.board.setTrait("graph_selected", id);
  }

  toggle(id) {
    this.board.setTrait("graph_expanded", toggled(this.expanded, id));
  }

  /** One of the info panel's switches (panel.js nodeActions): its trait's entry set. */
  choose({ trait, id, value }) {
    this.traceIds = null;
    this.board.setTrait(trait, { ...this.choices(trait), [id]: value });
  }

  searchTyped() {
    let ok = true;
    try {
      new RegExp(this.searchBox.value);
    } catch {
      ok = false;
    }
    this.searchBox.classList.toggle("tbnb-invalid", !ok);
    this.search();
  }

  pickMatch(k) {
    const reply = this.searchReply;
    const id = reply.ids[k];
    this.pendingCenter = id;
    this.board.setTrait("graph_expanded", withOpened(this.expanded, reply.expand[k]));
    this.select(id);
  }

  download(kind) {
    if (!this.placed) return;
    const name = `${this.current.run}${this.current.tag ? `-${this.current.tag}` : ""}-graph.${kind}`.replace(/[^\w.-]+/g, "_");
    const box = { width: this.placed.width, height: this.placed.height };
    if (kind === "svg") downloadSvg(name, this.view.scene, box);
    else downloadPng(name, this.view.scene, box);
  }

  settingChanged(name) {
    if (!this.list) return;
    if (name === "graph_run" || name === "graph_tag") {
      this.infoReply = null;
      this.traceIds = null;
      this.pickRun();
    } else if (name === "graph_expanded" || name === "graph_include") this.requestLevels();
    else if (name === "graph_series") {
      this.requestLevels();
      this.requestInfo();
      if (this.trait("graph_search")) this.requestSearch();
    }
    else if (name === "graph_selected") {
      this.requestInfo();
      this.mark();
    } else if (name === "graph_search") this.requestSearch();
    else if (name === "graph_color_by") {
      this.colorSelect.value = this.trait("graph_color_by");
      if (this.model) this.render(null);
    }
  }

  // ------------------------------------------------------------------------------- drawing

  draw() {
    if (this.model && this.visible) this.render(null);
  }

  render(msg) {
    if (!this.model) return false;
    const first = !this.view.size.width;
    const colors = nodeColors(this.model, this.trait("graph_color_by") || "structure");
    this.colors = colors;
    this.view.draw(this.model, this.placed, colors.fill);
    if (first || msg) this.fitOrCenter(first);
    this.mark();
    this.drawSide();
    this.timings.drawn = performance.now();
    const info = msg || this.lastLevels || {};
    if (msg) this.lastLevels = msg;
    const unknown = (info.unknown || []).length ? ` · not found: ${info.unknown.join(", ")}` : "";
    this.say(`${formatCount(this.model.n)} nodes drawn of ${formatCount(info.ops_total || 0)} ops · ${(info.levels || []).length} open level${(info.levels || []).length === 1 ? "" : "s"}${unknown}`);
    const t = this.timings;
    // What the last draw took, for the benchmark: the reply's wait, the layout, the drawing.
    this.el.dataset.timings = JSON.stringify({ reply: t.replied - t.asked, layout: t.laidOut - t.replied, worker: t.layoutMs, draw: t.drawn - t.laidOut });
    this.el.dataset.drawn = String(this.generation);
    return true;
  }

  fitOrCenter(first) {
    if (this.pendingCenter) {
      const id = this.pendingCenter;
      this.pendingCenter = null;
      if (this.model.byId.has(id)) {
        this.view.center(id);
        return;
      }
    }
    if (first || !this.fitted) {
      this.view.fit();
      this.fitted = true;
    }
  }

  mark() {
    this.view.mark({ selected: this.trait("graph_selected") || "", trace: this.traceIds, matches: this.searchReply ? this.searchReply.ids : [] });
  }

  drawSide() {
    this.legendBox.replaceChildren(legend(this.colors && this.colors.legend));
    this.searchBoxResults.replaceChildren(searchResults(this.searchReply, (k) => this.pickMatch(k)));
    const drawn = (id) => this.model && this.model.byId.get(id);
    this.infoBox.replaceChildren(infoPanel(this.infoReply, { trace: () => this.trace(), tracing: Boolean(this.traceIds), drawn, choose: (a) => this.choose(a) }));
  }

}

