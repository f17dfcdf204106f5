// The step slider of cards that show one step at a time (image and audio cards, PR curves): a range
// input over the positions of the steps present and a label beside it. One builder, so that every such
// card looks the same and answers the keyboard the same way.
import { h } from "../dom.js";

export class StepSlider {
  /** onSelect(position) is called as the user moves the slider. */
  constructor(onSelect) {
    this.input = h("input", {
      type: "range",
      min: "0",
      step: "1",
      class: "tbnb-step-slider",
      "aria-label": "Step",
      on: { input: () => onSelect(Number(this.input.value)) },
    });
    this.label = h("span", { class: "tbnb-step-text" });
    this.row = h("div", { class: "tbnb-step-row" }, this.input, this.label);
  }

  /** `count` positions, the thumb at `index`; nothing to choose (fewer than two) disables it. */
  set(count, index) {
    this.input.max = String(Math.max(0, count - 1));
    this.input.value = String(Math.max(0, index));
    this.input.disabled = count < 2;
  }
}
