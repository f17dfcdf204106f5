// The settings pane's entries for comparing runs: the scalar tags offered as x axes (Aim's
// "align by metric"), marking each run's best point, and TensorBoard's "Partition non-monotonic
// X axis". Each is bound to its trait both ways; settings.js places and syncs them.

import { X_AXES } from "../core/constants.js";
import { h } from "../dom.js";

const BEST_LABELS = { "": "None", min: "Minimum", max: "Maximum" };

/** The scalar tags an x axis can be (the index's), plus the current one if not among them. */
export function tagAxes(index, current) {
  const tags = index && index.plugins && index.plugins.get("scalars");
  const names = tags ? [...tags.keys()].sort() : [];
  if (current && !X_AXES.includes(current) && !names.includes(current)) names.push(current);
  return names;
}

export class CompareSettings {
  /** `xAxis`: the pane's x axis select, which gets a group of scalar tags. */
  constructor(board, xAxis) {
    this.board = board;
    this.xAxis = xAxis;
    this.tagGroup = h("optgroup", { label: "Scalar tag (value at each step)" });
    this.xAxis.append(this.tagGroup);
    this.xAxis.addEventListener("focus", () => this.syncTags()); // tags may have arrived since
    this.best = h(
      "select",
      { class: "tbnb-input tbnb-select", "aria-label": "Mark each run's best value", on: { change: () => board.setTrait("best", this.best.value || null) } },
      Object.entries(BEST_LABELS).map(([value, text]) => h("option", { value, text })),
    );
    this.partition = h("input", { type: "checkbox", on: { change: () => board.setTrait("partition_x", this.partition.checked) } });
    this.fields = [
      h("label", { class: "tbnb-field" }, h("span", { text: "Mark each run's best value" }), this.best),
      h("label", { class: "tbnb-check" }, this.partition, "Partition non-monotonic X axis"),
    ];
  }

  /** The tag options follow the index (kept when unchanged, so an open menu is not rebuilt). */
  syncTags() {
    const names = tagAxes(this.board.index, this.board.trait("x_axis"));
    const now = [...this.tagGroup.children].map((o) => o.value);
    if (now.length === names.length && now.every((v, i) => v === names[i])) return;
    this.tagGroup.replaceChildren(...names.map((value) => h("option", { value, text: value })));
    this.tagGroup.hidden = names.length === 0;
  }

  sync() {
    this.syncTags();
    const best = this.board.model.get("best");
    this.best.value = best === "min" || best === "max" ? best : "";
    this.partition.checked = this.board.model.get("partition_x") === true;
  }
}
