// Cards of one tag and one run (histograms, distributions, images, audio, text): the head (tag,
// pin, full width), a sub line with the run's colour dot, its name and what the card holds, and
// the run as the only one asked for.

import { Card } from "./card.js";
import { h } from "../dom.js";
import { formatCount } from "../format.js";

export class RunCard extends Card {
  build() {
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
    return super.runs().includes(this.run) ? [this.run] : [];
  }

  fail(message) {
    this.loading = false;
    this.dirty = true; // asked again when it next comes into view
    this.error = `Could not load ${this.tag} (${this.run}): ${message}`;
    this.updateSub();
  }

  redraw() {
    this.updateColor();
    super.redraw();
  }
}

/** "3 steps", "1 step", "no steps": what a card of sampled steps says it holds; "" before its
 * data came (`n` null). */
export function stepCount(n) {
  if (n === null || n === undefined) return "";
  return n ? `${formatCount(n)} step${n === 1 ? "" : "s"}` : "no steps";
}
