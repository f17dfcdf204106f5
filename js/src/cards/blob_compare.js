// "Compare runs" on an image or audio card: the card's tag in every selected run that has it,
// side by side at the card's step (each run at its nearest logged step at or before it, as
// link by step picks), the first item of each step's batch. The card owns the requests (its
// purposes "compare" and "compare:<run>"); this module keeps the runs' steps and items.

import { blobOutcome } from "./blob.js";
import { blobSteps } from "./blob_steps.js";
import { h } from "../dom.js";
import { formatCount } from "../format.js";
import { atOrBefore } from "./step_link.js";

const CACHE_SIZE = 48;

export class BlobCompare {
  constructor(card) {
    this.card = card;
    this.listing = null; // run -> ascending steps, from a "blobs" reply over the card's runs
    this.cache = new Map(); // "run\0step" -> {show, url, mime, size, width, height}
    this.elements = new Map(); // "run\0step" -> {entry, el} as last drawn
    this.el = h("div", { class: "tbnb-compare", hidden: true });
  }

  /** The selected runs holding the card's tag, in index order. */
  runs() {
    return this.card.board.runsForTag(this.card.tag, this.card.plugin);
  }

  /** Ask for every run's steps again (new data, other runs selected). */
  reset() {
    this.listing = null;
  }

  load() {
    const runs = this.runs();
    this.card.requestOnce("compare", runs.join("\u0000"), { type: "blobs", tag: this.card.tag, runs }, (msg) => {
      this.listing = new Map((msg.runs || []).filter((e) => e && typeof e.run === "string").map((e) => [e.run, blobSteps(e).map((row) => row.step)]));
      this.card.redraw();
    });
  }

  /** Fill the row for `step` (the card's); items not yet here are asked for. */
  render(step) {
    if (!this.listing) {
      this.load();
      this.el.replaceChildren(h("div", { class: "tbnb-placeholder tbnb-loading", text: "loading…" }));
      return;
    }
    const drawn = this.elements;
    this.elements = new Map();
    const cells = this.runs().map((run) => {
      const steps = this.listing.get(run);
      const i = steps ? atOrBefore(steps, step) : -1;
      const head = h("div", { class: "tbnb-compare-head", title: run }, h("span", { class: "tbnb-dot", style: { background: this.card.board.colorOf(run) } }), h("span", { text: run }));
      if (i < 0 || steps[i] > step) return h("div", { class: "tbnb-compare-cell", dataset: { run } }, head, h("div", { class: "tbnb-placeholder", text: `Nothing logged at or before step ${formatCount(step)}` }));
      const at = steps[i];
      head.append(h("span", { text: ` · step ${formatCount(at)}` }));
      return h("div", { class: "tbnb-compare-cell", dataset: { run, step: String(at) } }, head, this.slot(run, at, drawn));
    });
    this.el.replaceChildren(...cells);
  }

  slot(run, step, drawn) {
    const key = `${run}\u0000${step}`;
    const entry = this.cache.get(key);
    if (!entry) {
      this.ask(run, step);
      return h("div", { class: "tbnb-placeholder tbnb-loading", text: "loading…" });
    }
    const before = drawn.get(key);
    const el = before && before.entry === entry ? before.el : this.card.show(entry, step, 0);
    this.elements.set(key, { entry, el });
    return el;
  }

  ask(run, step) {
    const content = { type: "blob", tag: this.card.tag, run, step, index: 0 };
    this.card.requestOnce(`compare:${run}`, step, content, (msg, buffers) => {
      const outcome = blobOutcome(this.card.kind, msg, buffers);
      const entry = { ...outcome, size: Number(msg.size), width: msg.width, height: msg.height, url: null };
      if (outcome.show === "ok") entry.url = URL.createObjectURL(new Blob([outcome.bytes], { type: outcome.mime }));
      delete entry.bytes;
      this.remember(`${run}\u0000${Number(msg.step ?? step)}`, entry);
      this.card.redraw();
    }, (message) => {
      this.remember(`${run}\u0000${step}`, { show: "error", message, url: null });
      this.card.redraw();
    });
  }

  remember(key, entry) {
    const old = this.cache.get(key);
    if (old && old.url) URL.revokeObjectURL(old.url);
    this.cache.delete(key);
    this.cache.set(key, entry);
    for (const [k, e] of this.cache) {
      if (this.cache.size <= CACHE_SIZE) break;
      if (this.elements.has(k)) continue; // on screen
      if (e.url) URL.revokeObjectURL(e.url);
      this.cache.delete(k);
    }
  }

  destroy() {
    for (const entry of this.cache.values()) if (entry.url) URL.revokeObjectURL(entry.url);
    this.cache.clear();
    this.elements.clear();
  }
}
