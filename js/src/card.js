// The cards other than scalars' (histograms, distributions, images, audio, text): one per tag
// and run. This base holds what they share: the head (tag, pin, full width), the run's name and
// colour, lazy loading (data is asked for only when the card is near the screen, drawn only
// when on it), requests keyed per card, and the no-op answers to the Board's scalar-only calls.

import { PLUGIN_OF } from "./dashboards.js";
import { h, icon, iconButton } from "./dom.js";
import { PushSlots } from "./push.js";

export class Card {
  /**
   * @param board   the Board
   * @param item    {kind, tag, run}
   * @param section "pinned" or "group"
   */
  constructor(board, item, section) {
    this.board = board;
    this.kind = item.kind;
    this.tag = item.tag;
    this.run = item.run;
    this.section = section;
    this.visible = false;
    this.near = false;
    this.dirty = true; // data must be (re)fetched before drawing
    this.needsDraw = false;
    this.drawn = false;
    this.data = null;
    this.error = null;
    this.loading = false;
    this.expanded = false;
    this.destroyed = false;
    this.purposes = new Set();
    this.pushes = new PushSlots(); // requests by purpose, for pushed replies
    this.build();
    this.updateButtons();
    this.updateSub();
  }

  get key() {
    return `${this.section}\u0000${this.kind}\u0000${this.tag}\u0000${this.run}`;
  }

  build() {
    this.pinButton = iconButton("pin", "Pin", () => this.board.togglePin(this.tag));
    this.expandButton = iconButton("expand", "Full width", () => this.setExpanded(!this.expanded));
    this.title = h("div", { class: "tbnb-card-title", text: this.tag, title: this.tag });
    this.dot = h("span", { class: "tbnb-dot" });
    this.runName = h("span", { class: "tbnb-card-run", text: this.run, title: this.run });
    this.meta = h("span", { class: "tbnb-card-meta" });
    this.sub = h("div", { class: "tbnb-card-sub" }, this.dot, this.runName, this.meta);
    this.plot = h("div", { class: `tbnb-body-${this.kind}` });
    this.el = h(
      "div",
      { class: `tbnb-card tbnb-card-${this.kind}`, dataset: { tag: this.tag, run: this.run, kind: this.kind } },
      h("div", { class: "tbnb-card-head" }, this.title, this.pinButton, this.expandButton),
      this.sub,
      this.plot,
    );
    this.updateColor();
  }

  updateColor() {
    this.dot.style.background = this.board.colorOf(this.run);
  }

  updateButtons() {
    const pinned = this.board.isPinned(this.tag);
    this.pinButton.classList.toggle("tbnb-on", pinned);
    this.pinButton.title = pinned ? "Unpin" : "Pin";
    this.pinButton.setAttribute("aria-pressed", String(pinned));
    this.expandButton.replaceChildren(icon(this.expanded ? "shrink" : "expand"));
    this.expandButton.title = this.expanded ? "Normal width" : "Full width";
  }

  /** What the sub line says after the run's name (overridden). */
  describe() {
    return "";
  }

  updateSub() {
    this.meta.classList.toggle("tbnb-error", Boolean(this.error));
    let text = this.error || this.describe();
    if (!this.error && this.loading) text = text ? `${text} · loading…` : "loading…";
    this.meta.textContent = text ? ` · ${text}` : "";
    this.meta.title = this.error || "";
  }

  /** [run] while the run is selected and has the tag, else []. */
  runs() {
    return this.board.runsForTag(this.tag, PLUGIN_OF[this.kind]).includes(this.run) ? [this.run] : [];
  }

  // ---------------------------------------------------------------------------------- loading

  setVisible(visible) {
    this.visible = visible;
    if (visible) this.ensure();
  }

  setNear(near) {
    this.near = near;
    if (near) this.ensure();
  }

  ensure() {
    if ((!this.visible && !this.near) || this.destroyed) return;
    if (this.runs().length === 0) return; // its run was switched off: the card is going away
    if (this.dirty) this.fetch();
    else if (this.visible && (this.needsDraw || !this.drawn)) this.draw();
  }

  fetch() {
    this.dirty = false;
    this.loading = true;
    this.error = null;
    this.updateSub();
    this.load();
  }

  /** Ask the kernel for this card's data (overridden); replies go through request(). */
  load() {}

  priority() {
    return (this.visible ? 10 : this.near ? 5 : 0) + (this.section === "pinned" ? 1 : 0);
  }

  /**
   * Queue `content`; a newer request of the same `purpose` supersedes an older one. A reply the
   * kernel pushes for it later (histograms, distributions) goes to `onReply` too.
   */
  request(purpose, content, onReply, onError = (message) => this.fail(message)) {
    this.purposes.add(purpose);
    const deliver = (msg, buffers) => {
      if (!this.destroyed) onReply(msg, buffers || []);
    };
    const id = this.board.requests.enqueue(content, {
      key: `${this.key}\u0000${purpose}`,
      priority: () => this.priority(),
      onReply: (msg, buffers) => {
        this.pushes.answered(purpose, id);
        deliver(msg, buffers);
      },
      onError: (message) => {
        this.pushes.failed(purpose, id);
        if (!this.destroyed) onError(message);
      },
    });
    this.pushes.asked(purpose, id, content, deliver);
    return id;
  }

  /** A reply the kernel pushed (protocol.py, "Pushed replies"); returns whether it was taken. */
  takePush(msg, buffers) {
    if (this.destroyed || this.pushes.take(msg, buffers) === 0) return false;
    if (this.error) {
      this.error = null;
      this.updateSub();
    }
    return true;
  }

  fail(message) {
    this.loading = false;
    this.dirty = true; // asked again when it next comes into view
    this.error = `Could not load ${this.tag} (${this.run}): ${message}`;
    this.updateSub();
  }

  /** New data in the kernel: fetch again now if near the screen, else when scrolled to. */
  invalidate() {
    this.dirty = true;
    this.ensure();
  }

  runsChanged() {
    this.updateSub();
    this.ensure();
  }

  // ---------------------------------------------------------------------------------- drawing

  redraw() {
    this.updateColor();
    if (this.visible) this.draw();
    else this.needsDraw = true;
  }

  draw() {
    if (!this.visible || !this.data || this.destroyed) {
      this.needsDraw = true;
      return;
    }
    this.needsDraw = false;
    this.updateSub();
    if (this.render() !== false) this.drawn = true;
  }

  /** Put the data on the card (overridden); false when it could not be drawn yet. */
  render() {}

  setExpanded(on) {
    this.expanded = on;
    this.el.classList.toggle("tbnb-expanded", on);
    this.updateButtons();
    this.redraw();
  }

  // Scalar-card calls the Board makes on every card: nothing to do here.
  resetAxis() {}
  setLogY() {}
  setZoom() {}
  smoothingStale() {}
  needsSmoothing() {
    return false;
  }
  applySmoothing() {}
  resized() {}

  destroy() {
    this.destroyed = true;
    for (const purpose of this.purposes) this.board.requests.cancel(`${this.key}\u0000${purpose}`);
    this.el.remove();
  }
}
