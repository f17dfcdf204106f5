// The segmentation card's view (segmentation_card.js is its shell in the bundle; this is built
// apart, js/build.mjs LAZY "media_view", and sent by the kernel on first use). One segmentation TAG
// logged by tbnb.log_segmentation, one run: a step slider over the steps where image, label and prediction were all logged, and
// three views of the step: side by side (image | label | prediction), overlay (label and
// prediction over the image at an opacity) and errors (pixels where label and prediction
// differ). A legend names each class with its colour and its IoU at the step; clicking a class
// hides it from the masks and the errors. The kernel sends class ids (protocol.md,
// Segmentations); the page paints canvases scaled with hard pixel edges. New steps are pushed
// while training writes; with link by step the slider follows the scalar cards' selected step.

import { h } from "../../dom.js";
import { formatCount } from "../../format.js";
import { addMediaStyle } from "./media_style.js";
import { StepSlider } from "../../widgets/step_slider.js";
import { atOrBefore, boardLinkedStep, LINK_TRAITS } from "../../cards/step_link.js";
import { errorPixels, formatIou, maskPixels, overlayPixels } from "./segmentation_pixels.js";

/** The views: [mode, button label]. */
export const MODES = [
  ["panes", "Side by side"],
  ["overlay", "Overlay"],
  ["errors", "Errors"],
];
/** Steps' pixels kept (each a few arrays of the image's size). */
const CACHE_SIZE = 8;

/** The card's state and drawing; `card` (segmentation_card.js) owns the element, the requests
 * and the lifecycle, and keeps the steps in `card.data` (Card draws only with data). */
export class SegmentationView {
  constructor(card) {
    this.card = card;
    this.board = card.board;
    this.tag = card.tag;
    this.run = card.run;
    this.index = -1; // selected position in this.data (the steps)
    this.follow = true; // on the latest step: stay there when new steps come
    this.mode = "panes";
    this.opacity = 0.5;
    this.hidden = new Set(); // class ids switched off in the legend
    this.cache = new Map(); // step -> decoded "segmentation" reply, or {error}
    this.classes = [];
    this.palette = [];
    this.build();
  }

  get data() {
    return this.card.data;
  }

  set data(steps) {
    this.card.data = steps;
  }

  request(...args) {
    return this.card.request(...args);
  }

  redraw() {
    this.card.redraw();
  }

  draw() {
    this.card.draw();
  }

  build() {
    addMediaStyle(this.board.root);
    this.stepper = new StepSlider((index) => this.select(index));
    this.modeButtons = MODES.map(([mode, label]) =>
      h("button", {
        class: "tbnb-btn tbnb-seg-mode",
        type: "button",
        text: label,
        dataset: { mode },
        "aria-pressed": String(mode === this.mode),
        on: { click: () => this.setMode(mode) },
      }),
    );
    this.opacityInput = h("input", {
      type: "range",
      min: "0",
      max: "1",
      step: "0.05",
      value: String(this.opacity),
      class: "tbnb-seg-opacity",
      "aria-label": "Mask opacity",
      on: { input: () => this.setOpacity(this.opacityInput.value) },
    });
    this.opacityField = h("label", { class: "tbnb-seg-opacity-field", hidden: true }, "Opacity", this.opacityInput);
    this.toolbar = h("div", { class: "tbnb-seg-toolbar" }, h("div", { class: "tbnb-seg-modes", role: "group", "aria-label": "View" }, this.modeButtons), this.opacityField);
    this.panes = h("div", { class: "tbnb-seg-panes" });
    this.note = h("div", { class: "tbnb-seg-note" });
    this.legend = h("div", { class: "tbnb-seg-legend", role: "group", "aria-label": "Classes" });
    this.card.plot.replaceChildren(this.stepper.row, this.toolbar, this.panes, this.note, this.legend);
  }

  load() {
    const content = { type: "segmentation_steps", tag: `${this.tag}/prediction`, runs: [this.run] };
    this.request("steps", content, (msg) => {
      const entry = (msg.series || []).find((e) => e && e.run === this.run) || { steps: [] };
      const before = this.data && this.data[this.index];
      this.data = (entry.steps || []).map(Number).filter(Number.isFinite).sort((a, b) => a - b);
      this.classes = Array.isArray(entry.classes) ? entry.classes.map(String) : [];
      this.palette = Array.isArray(entry.palette) ? entry.palette.map(String) : [];
      this.classError = entry.error || null;
      this.index = this.pickIndex(before);
      this.prune();
      this.card.loading = false;
      this.draw();
    });
  }

  /** The step to show after new steps came: the linked one, the latest when following, else the
   * one shown before (or the next one logged). */
  pickIndex(before) {
    const steps = this.data;
    const linked = boardLinkedStep(this.board);
    if (linked !== null) return atOrBefore(steps, linked);
    if (this.follow || before === undefined) return steps.length - 1;
    const same = steps.indexOf(before);
    return same >= 0 ? same : Math.max(0, steps.findIndex((s) => s > before));
  }

  select(index) {
    if (!this.data || !this.data.length) return;
    this.index = Math.min(this.data.length - 1, Math.max(0, index));
    this.follow = this.index === this.data.length - 1;
    this.draw();
  }

  /** The scalar cards' selected step (or link by step) changed: follow it when linked. */
  settingChanged(name) {
    if (LINK_TRAITS.includes(name) && this.data && this.data.length) {
      const linked = boardLinkedStep(this.board);
      if (linked !== null) {
        this.index = atOrBefore(this.data, linked);
        this.follow = this.index === this.data.length - 1; // at the latest: new steps are followed
      }
    }
    this.redraw();
  }

  setMode(mode) {
    this.mode = mode;
    this.redraw();
  }

  setOpacity(value) {
    this.opacity = Math.min(1, Math.max(0, Number(value)));
    this.redraw();
  }

  toggleClass(id) {
    if (this.hidden.has(id)) this.hidden.delete(id);
    else this.hidden.add(id);
    this.redraw();
  }

  render() {
    const steps = this.data;
    for (const button of this.modeButtons) {
      const on = button.dataset.mode === this.mode;
      button.classList.toggle("tbnb-on", on);
      button.setAttribute("aria-pressed", String(on));
    }
    this.opacityField.hidden = this.mode !== "overlay";
    this.opacityInput.value = String(this.opacity);
    if (!steps.length) {
      this.stepper.row.hidden = true;
      this.panes.replaceChildren(h("div", { class: "tbnb-placeholder", text: "No step with image, label and prediction yet" }));
      this.note.textContent = "";
      this.legend.replaceChildren();
      return true;
    }
    const step = steps[this.index];
    this.stepper.row.hidden = false;
    this.stepper.set(steps.length, this.index);
    this.stepper.label.textContent = `step ${formatCount(step)}`;
    this.stepper.label.title = `${this.index + 1} of ${steps.length} steps`;
    this.card.el.dataset.step = String(step);
    const got = this.cache.get(step);
    if (!got) {
      this.ask(step);
      if (!this.panes.querySelector("canvas")) this.panes.replaceChildren(h("div", { class: "tbnb-placeholder tbnb-loading", text: "loading…" }));
      return true;
    }
    if (got.error) {
      this.panes.replaceChildren(h("div", { class: "tbnb-placeholder tbnb-error", text: `Could not load: ${got.error}` }));
      this.note.textContent = "";
      this.renderLegend(null);
      return true;
    }
    this.paint(got);
    this.renderLegend(got);
    return true;
  }

  /** Draw the current view of one step's reply. */
  paint(got) {
    const { width, height, image, label, prediction } = got;
    const palette = got.palette || this.palette;
    let panes;
    let note = "";
    if (this.mode === "overlay") {
      panes = [
        ["Label over image", overlayPixels(image, label, palette, this.hidden, this.opacity)],
        ["Prediction over image", overlayPixels(image, prediction, palette, this.hidden, this.opacity)],
      ];
    } else if (this.mode === "errors") {
      const errors = errorPixels(image, label, prediction, this.hidden);
      panes = [["Errors (label ≠ prediction)", errors.pixels]];
      const share = errors.counted ? ` (${((100 * errors.wrong) / errors.counted).toFixed(1)}%)` : "";
      note = `${formatCount(errors.wrong)} of ${formatCount(errors.counted)} pixels wrong${share}`;
    } else {
      panes = [
        ["Image", new Uint8ClampedArray(image)],
        ["Label", maskPixels(label, palette, this.hidden)],
        ["Prediction", maskPixels(prediction, palette, this.hidden)],
      ];
    }
    this.panes.dataset.mode = this.mode;
    this.panes.replaceChildren(...panes.map(([caption, pixels]) => pane(caption, pixels, width, height, this.mode)));
    this.note.textContent = note;
  }

  renderLegend(got) {
    const classes = (got && got.classes) || this.classes;
    const palette = (got && got.palette) || this.palette;
    const iou = got && got.iou;
    const chips = classes.map((name, id) => {
      const off = this.hidden.has(id);
      const score = iou ? formatIou(Number(iou[id])) : "";
      return h(
        "button",
        {
          type: "button",
          class: `tbnb-seg-class${off ? " tbnb-off" : ""}`,
          dataset: { class: String(id) },
          "aria-pressed": String(!off),
          title: `${off ? "Show" : "Hide"} ${name}${score ? ` · IoU ${score} at this step` : ""}`,
          on: { click: () => this.toggleClass(id) },
        },
        h("span", { class: "tbnb-seg-swatch", style: { background: palette[id] || "#888" } }),
        h("span", { text: name }),
        score ? h("span", { class: "tbnb-seg-iou", text: score }) : null,
      );
    });
    const error = this.classError ? h("span", { class: "tbnb-error", text: this.classError }) : null;
    this.legend.replaceChildren(...chips, ...(error ? [error] : []));
  }

  ask(step) {
    const content = { type: "segmentation", tag: this.tag, run: this.run, step };
    this.card.requestOnce(
      "pixels",
      step,
      content,
      (msg) => {
        const s = Number(msg.step ?? step);
        this.remember(s, msg);
        if (this.data && this.data[this.index] === s) this.redraw();
      },
      (message) => {
        this.remember(step, { error: message });
        if (this.data && this.data[this.index] === step) this.redraw();
      },
    );
  }

  remember(step, entry) {
    this.cache.delete(step);
    this.cache.set(step, entry);
    const current = this.data && this.data[this.index];
    for (const key of this.cache.keys()) {
      if (this.cache.size <= CACHE_SIZE) break;
      if (key !== current) this.cache.delete(key);
    }
  }

  /** Forget cached steps no longer listed; a pushed list may carry the same step rewritten. */
  prune() {
    const steps = new Set(this.data || []);
    for (const key of [...this.cache.keys()]) if (!steps.has(key)) this.cache.delete(key);
  }

  destroy() {
    this.cache.clear();
  }
}

/** One view: a caption over a canvas of the pixels, scaled with hard pixel edges. */
function pane(caption, pixels, width, height, mode) {
  const canvas = h("canvas", { class: "tbnb-seg-canvas", width, height, "aria-label": caption, dataset: { pane: caption } });
  const ctx = canvas.getContext("2d");
  if (ctx) ctx.putImageData(new ImageData(pixels, width, height), 0, 0);
  return h("figure", { class: `tbnb-seg-pane tbnb-seg-view-${mode}` }, canvas, h("figcaption", { text: caption }));
}
