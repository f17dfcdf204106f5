// The base of image and audio cards (one tag, one run): a step slider over the run's sampled steps (the
// latest by default, and it follows new steps while on the latest), and the step's images (all
// of its batch) or its audio clip. The bytes are asked for only when the card is on or near the
// screen, one item at a time; they become a Blob URL only with an allowed MIME type (blob.js),
// else a placeholder says why. Blob URLs are revoked when their item leaves the cache or the
// card goes away. With link by step (step_link.js) the slider follows the scalar cards' selected
// step; "Compare runs" shows the step of every selected run side by side (blob_compare.js, in
// the media view the kernel sends on first use: lazy_media.js).

import { blobOutcome, tooLargeText } from "./blob.js";
import { blobSteps } from "./blob_steps.js";
import { h } from "../dom.js";
import { formatCount, formatDateTime } from "../format.js";
import { mediaView } from "./lazy_media.js";
import { RunCard, stepCount } from "./run_card.js";
import { StepSlider } from "../widgets/step_slider.js";
import { atOrBefore, boardLinkedStep, LINK_TRAITS } from "./step_link.js";

export { blobSteps };

/** Items of a batch shown at most (TensorBoard's writers keep 3 by default). */
export const MAX_BATCH = 24;
const CACHE_SIZE = 32;

/** A card of a run's sampled steps of bytes; a subclass shows one item (show) and the step's
 * details (renderInfo). */
export class BlobCard extends RunCard {
  init() {
    this.index = -1; // selected row of this.data
    this.follow = true; // on the latest step: stay there when new steps come
    this.cache = new Map(); // "step:index" -> {show, url, mime, size, width, height}
    this.elements = new Map(); // "step:index" -> {entry, el} as last drawn (kept: audio keeps playing)
    this.comparing = false; // "Compare runs": every selected run at this step, side by side
  }

  build() {
    super.build();
    this.stepper = new StepSlider((index) => this.select(index));
    this.controls = this.stepper.row;
    this.stepText = this.stepper.label;
    this.compareButton = h("button", {
      type: "button",
      class: "tbnb-btn tbnb-compare-toggle",
      text: "Compare runs",
      title: "Show this tag of every selected run at this step",
      "aria-pressed": "false",
      on: { click: () => this.setComparing(!this.comparing) },
    });
    this.controls.append(this.compareButton);
    this.items = h("div", { class: `tbnb-items tbnb-items-${this.kind}` });
    this.info = h("div", { class: "tbnb-blob-info", hidden: true });
    this.compare = null; // made when first asked for (the media view's BlobCompare)
    this.plot.append(this.controls, this.info, this.items);
  }

  setComparing(on) {
    this.comparing = on;
    this.compareButton.classList.toggle("tbnb-on", on);
    this.compareButton.setAttribute("aria-pressed", String(on));
    if (on && !this.compare) {
      mediaView(this).then((mod) => {
        if (this.destroyed || this.compare) return;
        mod.addMediaStyle(this.board.root);
        this.compare = new mod.BlobCompare(this);
        this.plot.append(this.compare.el);
        this.redraw();
      }, (error) => this.fail(error.message));
    }
    this.redraw();
  }

  /** The scalar cards' selected step (or link by step) changed: follow it when linked. */
  settingChanged(name) {
    if (LINK_TRAITS.includes(name) && this.data && this.data.length) {
      const linked = boardLinkedStep(this.board);
      if (linked !== null) {
        this.index = atOrBefore(this.data.map((row) => row.step), linked);
        this.follow = this.index === this.data.length - 1; // at the latest: new steps are followed
      }
    }
    this.redraw();
  }

  runsChanged() {
    if (this.compare) this.compare.reset();
    super.runsChanged();
  }

  load() {
    this.request("steps", { type: "blobs", tag: this.tag, runs: [this.run] }, (msg) => {
      const entry = (msg.runs || []).find((r) => r && r.run === this.run);
      const before = this.data && this.data[this.index];
      this.data = blobSteps(entry);
      const last = this.data.length - 1;
      const linked = boardLinkedStep(this.board);
      let index = last;
      if (linked !== null) index = atOrBefore(this.data.map((row) => row.step), linked);
      else if (!this.follow && before) {
        const same = this.data.findIndex((row) => row.step === before.step);
        index = same >= 0 ? same : Math.max(0, this.data.findIndex((row) => row.step > before.step));
      }
      this.index = index;
      if (this.compare) this.compare.reset(); // new data: the other runs' steps are asked for again
      this.prune();
      this.loading = false;
      this.draw();
    });
  }

  describe() {
    return stepCount(this.data && this.data.length);
  }

  select(index) {
    if (!this.data || !this.data.length) return;
    this.index = Math.min(this.data.length - 1, Math.max(0, index));
    this.follow = this.index === this.data.length - 1;
    this.draw();
  }

  render() {
    const rows = this.data;
    if (!rows.length) {
      this.controls.hidden = true;
      this.info.textContent = "";
      this.items.replaceChildren(h("div", { class: "tbnb-placeholder", text: "No data for this run" }));
      this.items.hidden = false;
      if (this.compare) this.compare.el.hidden = true;
      return true;
    }
    const row = rows[this.index];
    this.controls.hidden = false;
    this.el.dataset.step = String(row.step);
    this.stepper.set(rows.length, this.index);
    const when = Number.isFinite(row.wall) ? ` · ${formatDateTime(row.wall)}` : "";
    this.stepText.textContent = `step ${formatCount(row.step)}${when}`;
    this.stepText.title = `${this.index + 1} of ${rows.length} sampled steps`;
    this.renderInfo(row);
    const count = Math.min(row.count, MAX_BATCH);
    this.items.classList.toggle("tbnb-batch", count > 1);
    const slots = [];
    const drawn = this.elements;
    this.elements = new Map();
    for (let i = 0; i < count; i++) slots.push(this.slot(row.step, i, drawn));
    if (row.count > count) slots.push(h("div", { class: "tbnb-placeholder", text: `${formatCount(row.count - count)} more in this step's batch` }));
    if (row.count === 0) slots.push(h("div", { class: "tbnb-placeholder", text: "Empty batch" }));
    // Only when something changed: moving a playing <audio> out of the page pauses it.
    const now = this.items.children;
    if (now.length !== slots.length || slots.some((el, i) => now[i] !== el)) this.items.replaceChildren(...slots);
    this.items.hidden = this.comparing && this.compare !== null;
    if (this.compare) this.compare.el.hidden = !this.comparing;
    if (this.comparing && this.compare) this.compare.render(row.step);
    return true;
  }

  renderInfo() {}

  /** The element for item `index` of `step`: from the cache, or a placeholder while it is asked for. */
  slot(step, index, drawn) {
    const key = `${step}:${index}`;
    const entry = this.cache.get(key);
    if (entry) {
      this.cache.delete(key); // most recently used last
      this.cache.set(key, entry);
      const before = drawn.get(key);
      const el = before && before.entry === entry ? before.el : this.show(entry, step, index);
      this.elements.set(key, { entry, el });
      return el;
    }
    this.ask(step, index);
    return h("div", { class: "tbnb-placeholder tbnb-loading", text: "loading…" });
  }

  ask(step, index) {
    const content = { type: "blob", tag: this.tag, run: this.run, step, index };
    this.requestOnce(`blob${index}`, step, content, (msg, buffers) => {
      const s = Number(msg.step ?? step);
      const i = Number(msg.index ?? index);
      const outcome = blobOutcome(this.kind, msg, buffers);
      const entry = { ...outcome, size: Number(msg.size), width: msg.width, height: msg.height, url: null };
      if (outcome.show === "ok") entry.url = URL.createObjectURL(new Blob([outcome.bytes], { type: outcome.mime }));
      delete entry.bytes;
      this.remember(`${s}:${i}`, entry);
      const row = this.data && this.data[this.index];
      if (row && row.step === s && this.visible) this.draw();
      else if (row && row.step === s) this.needsDraw = true;
    }, (message) => {
      this.remember(`${step}:${index}`, { show: "error", message, url: null });
      const row = this.data && this.data[this.index];
      if (row && row.step === step) this.redraw();
    });
  }

  remember(key, entry) {
    const old = this.cache.get(key);
    if (old && old.url) URL.revokeObjectURL(old.url);
    this.cache.delete(key);
    this.cache.set(key, entry);
    const current = this.data && this.data[this.index] ? `${this.data[this.index].step}:` : null;
    for (const [k, e] of this.cache) {
      if (this.cache.size <= CACHE_SIZE) break;
      if (current && k.startsWith(current)) continue; // never evict what is on screen
      if (e.url) URL.revokeObjectURL(e.url);
      this.cache.delete(k);
    }
  }

  /** Forget cached items of steps no longer sampled. */
  prune() {
    const steps = new Set((this.data || []).map((row) => String(row.step)));
    for (const [k, e] of this.cache) {
      if (steps.has(k.split(":")[0])) continue;
      if (e.url) URL.revokeObjectURL(e.url);
      this.cache.delete(k);
    }
  }

  placeholder(entry, what) {
    let text;
    if (entry.show === "too_large") text = tooLargeText(what, entry.size, Number(this.board.trait("max_blob_bytes")));
    else if (entry.show === "error") text = `Could not load: ${entry.message}`;
    else text = `Unsupported ${what.toLowerCase()}${entry.mime ? ` (${entry.mime})` : ""}`;
    return h("div", { class: `tbnb-placeholder tbnb-${entry.show}`, text, title: text });
  }

  destroy() {
    for (const entry of this.cache.values()) if (entry.url) URL.revokeObjectURL(entry.url);
    this.cache.clear();
    this.elements.clear();
    if (this.compare) this.compare.destroy();
    super.destroy();
  }
}
