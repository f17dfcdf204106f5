// The PR curves tab, and the PR card type of the time series tab: one card per tag drawing a
// precision–recall line per selected run at one step, chosen with the card's step slider
// (the latest by default; it follows new steps while on the latest). Each run shows the step
// nearest the slider's, as the kernel picks it; hover gives threshold, precision, recall and the
// four counts. Steps whose tensor could not be read are listed under the title.

import { Card } from "../../cards/card.js";
import { CONFIG, baseLayout } from "../../cards/chart_card.js";
import { h } from "../../dom.js";
import { formatCount } from "../../format.js";
import { PlotFit } from "../../cards/plot_fit.js";
import { StepSlider } from "../../widgets/step_slider.js";
import { fromMessage, prLayout, prTraces, sliderIndex, stepText, stepsFor, unionSteps } from "./pr_plot.js";

export class PrCurveCard extends Card {
  init() {
    this.step = null; // the slider's step; null: each run's latest
    this.steps = []; // the slider's positions
    this.problems = [];
    this.fit = new PlotFit(this);
  }

  build() {
    this.title = h("div", { class: "tbnb-card-title", text: this.tag, title: this.tag });
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.stepper = new StepSlider((index) => this.select(index));
    this.controls = this.stepper.row;
    this.stepLabel = this.stepper.label;
    this.problemList = h("div", { class: "tbnb-card-sub tbnb-error tbnb-pr-problems", hidden: true });
    this.plot = h("div", { class: "tbnb-plot" });
    this.el = h(
      "div",
      { class: `tbnb-card tbnb-card-${this.kind}`, dataset: { tag: this.tag, kind: this.kind } },
      h("div", { class: "tbnb-card-head" }, this.title, this.pinButton, this.expandButton),
      this.sub,
      this.problemList,
      this.controls,
      this.plot,
    );
  }

  updateSub() {
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    const runs = this.runs();
    let text = this.error || `${formatCount(runs.length)} run${runs.length === 1 ? "" : "s"}`;
    if (!this.error && runs.length === 0) text = "no run selected has this tag";
    else if (!this.error && this.loading) text += " · loading…";
    this.sub.textContent = text;
    this.sub.title = this.error || "";
  }

  /** One card draws every run: with none selected it says so. */
  canLoad() {
    return true;
  }

  load() {
    const runs = this.runs();
    if (runs.length === 0) {
      this.loading = false;
      this.data = [];
      this.steps = [];
      this.draw();
      return;
    }
    const content = { type: "pr_curves", tag: this.tag, runs, steps: stepsFor(runs, this.step) };
    this.request("data", content, (msg) => {
      this.data = (msg.series || []).map(fromMessage);
      this.problems = (msg.problems || []).map(String);
      this.steps = unionSteps(this.data);
      this.loading = false;
      this.draw();
    });
  }

  /** The slider moved: ask for every run's curve at that step (the last position follows new steps). */
  select(index) {
    if (!this.steps.length) return;
    const i = Math.min(this.steps.length - 1, Math.max(0, index));
    this.step = i === this.steps.length - 1 ? null : this.steps[i];
    this.stepLabel.textContent = `step ${formatCount(this.steps[i])} · loading…`;
    this.invalidate();
  }

  runsChanged() {
    this.updateSub();
    this.invalidate();
  }

  render() {
    const Plotly = this.board.plotly;
    if (!Plotly) {
      this.needsDraw = true;
      return false;
    }
    const curves = this.data;
    this.problemList.hidden = this.problems.length === 0;
    this.problemList.textContent = this.problems.length
      ? `${formatCount(this.problems.length)} step${this.problems.length === 1 ? "" : "s"} could not be read: ${this.problems.join("; ")}`
      : "";
    this.problemList.title = this.problems.join("\n");
    this.controls.hidden = this.steps.length === 0;
    this.stepper.set(this.steps.length, sliderIndex(this.steps, this.step));
    this.stepLabel.textContent = stepText(curves, this.step);
    const traces = prTraces(curves, this.runs(), (run) => this.board.colorOf(run));
    Plotly.react(this.plot, traces, prLayout(baseLayout(this)), CONFIG);
    return true;
  }

  setVisible(visible) {
    super.setVisible(visible);
    if (visible) this.fit.shown();
  }

  resized() {
    this.fit.resized();
  }

  destroy() {
    this.fit.destroy();
    const Plotly = this.board.plotly;
    if (Plotly && this.drawn) Plotly.purge(this.plot);
    super.destroy();
  }
}

/** The PR curves tab: a card per tag with every selected run. */
export const dashboard = {
  id: "pr_curves",
  label: "PR curves",
  cards: {
    pr_curves: { Card: PrCurveCard, plugin: "pr_curves", noun: "PR curve", perRun: false },
  },
};
