// The settings pane: smoothing (slider and number box), x axis, step selection (data table,
// range, link by step), log y, ignore outliers, tooltip sorting and row limit, card width,
// histogram mode, image brightness, contrast and actual size, each bound to its trait both ways
// so that changes from Python apply live.

import { HISTOGRAM_MODES, X_AXES } from "../core/constants.js";
import { TOOLTIP_SORTS, addStepStyle } from "../cards/scalar/step_style.js";
import { h, iconButton, uniqueId } from "../dom.js";
import { CompareSettings } from "./compare_settings.js";

/** What the settings pane calls each x axis and histogram mode (their values: constants.json). */
const X_LABELS = { step: "Step", relative: "Relative", wall: "Wall", log_step: "Step (log scale)", relative_step: "Relative step" };
const MODE_LABELS = { offset: "Offset", overlay: "Overlay" };
const SORT_LABELS = { default: "Default", ascending: "Ascending", descending: "Descending", nearest: "Nearest pixel" };
const check = (board, name) => h("input", { type: "checkbox", on: { change: (e) => board.setTrait(name, e.target.checked) } });

function field(label, control) {
  return h("label", { class: "tbnb-field" }, h("span", { text: label }), control);
}

export class SettingsPane {
  constructor(board, onClose) {
    this.board = board;
    addStepStyle(board.root);
    const smoothingId = uniqueId("tbnb-smoothing");
    this.smoothing = h("input", {
      type: "range",
      min: "0",
      max: "0.999",
      step: "0.001",
      id: smoothingId,
      "aria-label": "Smoothing",
      on: { input: () => this.setSmoothing(this.smoothing.value) },
    });
    this.smoothingBox = h("input", {
      type: "number",
      class: "tbnb-input tbnb-number",
      min: "0",
      max: "0.999",
      step: "0.001",
      "aria-label": "Smoothing value",
      on: { change: () => this.setSmoothing(this.smoothingBox.value) },
    });
    this.xAxis = h(
      "select",
      { class: "tbnb-input tbnb-select", "aria-label": "Horizontal axis", on: { change: () => board.setTrait("x_axis", this.xAxis.value) } },
      X_AXES.map((value) => h("option", { value, text: X_LABELS[value] ?? value })),
    );
    this.compare = new CompareSettings(board, this.xAxis); // tag axes, best, partition
    this.logY = h("input", { type: "checkbox", on: { change: () => board.setTrait("log_y", this.logY.checked) } });
    this.outliers = h("input", {
      type: "checkbox",
      on: { change: () => board.setTrait("ignore_outliers", this.outliers.checked) },
    });
    this.width = h("input", {
      type: "range",
      min: "300",
      max: "1000",
      step: "20",
      "aria-label": "Card width",
      on: { input: () => board.setTrait("card_width", Number(this.width.value), { soon: true }) },
    });
    this.widthText = h("span", { class: "tbnb-runs-count" });
    // TensorBoard's step selection entries; range and link are nested under the first.
    this.stepSelection = check(board, "step_selection");
    this.rangeSelection = check(board, "range_selection");
    this.linkStep = check(board, "link_step");
    this.linkText = h("span", { text: "Link by step" });
    this.stepChildren = h(
      "div",
      { class: "tbnb-nested" },
      h("label", { class: "tbnb-check" }, this.rangeSelection, "Enable range selection"),
      h("label", { class: "tbnb-check" }, this.linkStep, this.linkText),
    );
    this.tooltipSort = h(
      "select",
      { class: "tbnb-input tbnb-select", "aria-label": "Tooltip sorting method", on: { change: () => board.setTrait("tooltip_sort", this.tooltipSort.value) } },
      TOOLTIP_SORTS.map((value) => h("option", { value, text: SORT_LABELS[value] })),
    );
    this.limitRows = h("input", { type: "checkbox", on: { change: () => this.setRows() } });
    this.rows = h("input", { type: "number", class: "tbnb-input tbnb-number", min: "1", step: "1", value: "5", "aria-label": "Tooltip rows", on: { change: () => this.setRows() } });
    this.histogramMode = h(
      "select",
      {
        class: "tbnb-input tbnb-select",
        "aria-label": "Histogram mode",
        on: { change: () => board.setTrait("histogram_mode", this.histogramMode.value) },
      },
      HISTOGRAM_MODES.map((value) => h("option", { value, text: MODE_LABELS[value] ?? value })),
    );
    // TensorBoard's image sliders: 0..2000 and 0..5000, 1000 meaning unchanged, with a reset.
    const imageSlider = (name, label, max) => {
      const input = h("input", {
        type: "range",
        min: "0",
        max: String(max),
        step: "10",
        "aria-label": label,
        on: { input: () => board.setTrait(name, Number(input.value), { soon: true }) },
      });
      const reset = iconButton("reset", `Reset ${label.toLowerCase()}`, () => board.setTrait(name, 1000));
      return [input, field(label, h("div", { class: "tbnb-row" }, input, reset))];
    };
    let brightnessField, contrastField;
    [this.brightness, brightnessField] = imageSlider("image_brightness", "Brightness", 2000);
    [this.contrast, contrastField] = imageSlider("image_contrast", "Contrast", 5000);
    this.actualSize = h("input", {
      type: "checkbox",
      on: { change: () => board.setTrait("image_actual_size", this.actualSize.checked) },
    });
    this.el = h(
      "aside",
      { class: "tbnb-settings", "aria-label": "Settings" },
      h("div", { class: "tbnb-settings-head" }, h("span", { text: "Settings" }), iconButton("close", "Close settings", onClose)),
      h("h3", { text: "General" }),
      field("Horizontal axis", this.xAxis),
      h("label", { class: "tbnb-check" }, this.stepSelection, "Enable step selection and data table (Scalars only)"),
      this.stepChildren,
      field("Card width", h("div", { class: "tbnb-row" }, this.width, this.widthText)),
      h("h3", { text: "Scalars" }),
      h("label", { class: "tbnb-field", for: smoothingId }, h("span", { text: "Smoothing" }), h("div", { class: "tbnb-row" }, this.smoothing, this.smoothingBox)),
      h("label", { class: "tbnb-check" }, this.outliers, "Ignore outliers in chart scaling"),
      h("label", { class: "tbnb-check" }, this.logY, "Log scale for y (all cards)"),
      field("Tooltip sorting method", this.tooltipSort),
      h("label", { class: "tbnb-check" }, this.limitRows, "Limit tooltip rows to", this.rows),
      ...this.compare.fields,
      h("h3", { text: "Histograms" }),
      field("Mode", this.histogramMode),
      h("h3", { text: "Images" }),
      brightnessField,
      contrastField,
      h("label", { class: "tbnb-check" }, this.actualSize, "Show actual image size"),
    );
    this.sync();
  }

  setSmoothing(text) {
    let value = Number(text);
    if (!Number.isFinite(value)) return;
    value = Math.min(0.999, Math.max(0, value));
    this.board.setTrait("smoothing", value, { soon: true });
  }

  /** "Limit tooltip rows to n": the checkbox and the number make `tooltip_rows` (0: no limit). */
  setRows() {
    const n = Math.max(1, Math.round(Number(this.rows.value) || 5));
    this.board.setTrait("tooltip_rows", this.limitRows.checked ? n : 0);
  }

  /** Controls follow the traits (set from Python or from another view of the same widget). */
  sync() {
    const b = this.board;
    const smoothing = Number(b.trait("smoothing"));
    this.smoothing.value = String(smoothing);
    if (b.root.ownerDocument.activeElement !== this.smoothingBox) this.smoothingBox.value = String(smoothing);
    this.compare.sync();
    this.xAxis.value = b.trait("x_axis");
    this.logY.checked = Boolean(b.trait("log_y"));
    this.outliers.checked = Boolean(b.trait("ignore_outliers"));
    this.width.value = String(b.trait("card_width"));
    this.widthText.textContent = `${b.trait("card_width")} px`;
    const mode = b.trait("histogram_mode");
    this.histogramMode.value = HISTOGRAM_MODES.includes(mode) ? mode : HISTOGRAM_MODES[0];
    this.brightness.value = String(b.trait("image_brightness"));
    this.contrast.value = String(b.trait("image_contrast"));
    this.actualSize.checked = Boolean(b.trait("image_actual_size"));
    const on = b.model.get("step_selection") !== false;
    this.stepSelection.checked = on;
    this.stepChildren.hidden = !on;
    this.rangeSelection.checked = b.model.get("range_selection") === true;
    this.linkStep.checked = b.model.get("link_step") !== false;
    const step = b.model.get("selected_step");
    this.linkText.textContent = Number.isInteger(step) ? `Link by step ${step}` : "Link by step";
    this.tooltipSort.value = TOOLTIP_SORTS.includes(b.model.get("tooltip_sort")) ? b.model.get("tooltip_sort") : "default";
    const rows = Number(b.model.get("tooltip_rows")) || 0;
    this.limitRows.checked = rows > 0;
    if (rows > 0 && b.root.ownerDocument.activeElement !== this.rows) this.rows.value = String(rows);
  }
}
