// A text card (one tag, one run): every sampled step's text, latest first, as TensorBoard's text
// dashboard lists them. Rank-0 text is Markdown, rendered and sanitised (sanitize.js); rank 1
// and 2 are tables built cell by cell as text (table.js).

import { tooLargeText } from "../../cards/blob.js";
import { h } from "../../dom.js";
import { formatCount, formatDateTime } from "../../format.js";
import { loadMarkdownLibs, markdownLibs } from "./markdown.js";
import { RunCard, stepCount } from "../../cards/run_card.js";
import { renderMarkdown, textFragment } from "./sanitize.js";
import { buildTable } from "../../widgets/table.js";

const FIRST = 10; // steps shown at first; "Show more" adds as many again
const MORE = 20;

export class TextCard extends RunCard {
  init() {
    this.limit = FIRST;
  }

  load() {
    this.request("text", { type: "text", tag: this.tag, run: this.run }, (msg) => {
      const items = (Array.isArray(msg.items) ? msg.items : []).filter((item) => item && typeof item === "object");
      this.data = items.map((item) => ({ ...item, step: Number(item.step) })).sort((a, b) => b.step - a.step);
      this.loading = false;
      this.draw();
    });
  }

  content(item) {
    const doc = this.el.ownerDocument;
    if (item.status === "too_large") {
      return h("div", { class: "tbnb-placeholder tbnb-too_large", text: tooLargeText("Text", Number(item.size), Number(this.board.trait("max_blob_bytes"))) });
    }
    if (item.kind === "table") return h("div", { class: "tbnb-table-wrap" }, buildTable(doc, item.rows));
    const div = h("div", { class: "tbnb-markdown" });
    const libs = markdownLibs();
    if (libs) div.append(renderMarkdown(libs, item.markdown ?? "", doc.defaultView || globalThis.window));
    else if (this.libsError) div.append(textFragment(doc, item.markdown ?? ""));
    else {
      div.append(h("div", { class: "tbnb-placeholder tbnb-loading", text: "rendering…" }));
      this.waitForLibs();
    }
    return div;
  }

  /** Redraw once marked and DOMPurify are running (the first text card on the page starts them). */
  waitForLibs() {
    if (this.waiting) return;
    this.waiting = true;
    loadMarkdownLibs().then(
      () => {
        this.waiting = false;
        if (!this.destroyed) this.redraw();
      },
      (error) => {
        this.waiting = false;
        this.libsError = `Markdown shown as source: ${error.message}`;
        if (!this.destroyed) this.redraw();
      },
    );
  }

  describe() {
    const base = stepCount(this.data && this.data.length);
    return this.libsError ? `${base} · ${this.libsError}` : base;
  }

  render() {
    const items = this.data;
    if (!items.length) {
      this.plot.replaceChildren(h("div", { class: "tbnb-placeholder", text: "No data for this run" }));
      return true;
    }
    const shown = items.slice(0, this.limit).map((item) => {
      const when = Number.isFinite(item.wall_time) ? ` · ${formatDateTime(item.wall_time)}` : "";
      return h(
        "div",
        { class: "tbnb-text-item" },
        h("div", { class: "tbnb-text-step", text: `step ${formatCount(item.step)}${when}` }),
        this.content(item),
      );
    });
    if (items.length > this.limit) {
      const rest = items.length - this.limit;
      shown.push(
        h("button", {
          type: "button",
          class: "tbnb-more",
          text: `Show ${formatCount(Math.min(MORE, rest))} more (of ${formatCount(rest)})`,
          on: {
            click: () => {
              this.limit += MORE;
              this.draw();
            },
          },
        }),
      );
    }
    this.plot.replaceChildren(...shown);
    return true;
  }
}

/** The text tab: a card per text tag and run. */
export const dashboard = {
  id: "text",
  label: "Text",
  cards: {
    text: { Card: TextCard, plugin: "text", noun: "text", perRun: true },
  },
};
