// A histogram card (one tag, one run): the kernel's rebinned steps (30 bins over the run's
// range) drawn as TensorBoard's OFFSET ridges or OVERLAY lines (the `histogram_mode` trait);
// hovering a point names its step, its bucket's range and its count. With link by step, the
// step the scalar cards select (its nearest logged step at or before) is drawn bold. "Compare
// runs" draws every selected run's histogram at that step (or the latest) as lines, one a run.

import { AXIS, ChartCard } from "../../cards/chart_card.js";
import { rampColor } from "../../core/colors.js";
import { h } from "../../dom.js";
import { escapePlotly, formatDateTime } from "../../format.js";
import { fromHistogramMessage, offsetGeometry, overlayGeometry } from "./histogram.js";
import { stepCount } from "../../cards/run_card.js";
import { atOrBefore, boardLinkedStep, LINK_TRAITS } from "../../cards/step_link.js";
import { timeTicks } from "./ticks.js";
import { toDisplayX } from "../../xaxis.js";

/** The trait choosing TensorBoard's OFFSET or OVERLAY drawing. */
const MODE = "histogram_mode";

export class HistogramCard extends ChartCard {
  build() {
    super.build();
    this.comparing = false;
    this.compared = null; // [{run, steps, edges, counts, bins}] of every selected run
    this.compareButton = h("button", {
      type: "button",
      class: "tbnb-btn tbnb-compare-toggle",
      text: "Compare runs",
      title: "Every selected run's histogram at one step",
      "aria-pressed": "false",
      on: { click: () => this.setComparing(!this.comparing) },
    });
    this.sub.append(this.compareButton);
  }

  setComparing(on) {
    this.comparing = on;
    this.compareButton.classList.toggle("tbnb-on", on);
    this.compareButton.setAttribute("aria-pressed", String(on));
    if (on) this.loadCompared();
    this.redraw();
  }

  loadCompared() {
    const runs = this.board.runsForTag(this.tag, this.plugin);
    this.request("compare", { type: "histograms", tag: this.tag, runs, x_axis: "step" }, (msg) => {
      this.compared = (msg.series || []).filter((e) => e && typeof e.run === "string").map((e) => ({ run: e.run, ...fromHistogramMessage(e) }));
      this.redraw();
    });
  }

  load() {
    this.loadRun("histograms", fromHistogramMessage);
    if (this.comparing) this.loadCompared();
  }

  /** Each run's histogram at the linked step (else the latest step of any run), as lines. */
  comparedFigure() {
    const layout = this.baseLayout();
    const linked = boardLinkedStep(this.board);
    let target = linked;
    if (target === null) for (const d of this.compared) if (d.steps.length) target = Math.max(target ?? -Infinity, d.steps[d.steps.length - 1]);
    const traces = [];
    for (const d of this.compared) {
      const i = target === null ? -1 : atOrBefore(d.steps, target);
      if (i < 0 || !d.bins || d.steps[i] > target) continue; // nothing logged yet at that step
      const x = Array.from({ length: d.bins }, (_, b) => (d.edges[b] + d.edges[b + 1]) / 2);
      const name = `${escapePlotly(d.run)} · step ${d.steps[i]}`;
      traces.push({ type: "scatter", mode: "lines", name, x, y: Array.from(d.counts.subarray(i * d.bins, (i + 1) * d.bins)),
        line: { color: this.board.colorOf(d.run), width: 1.6, shape: "spline" }, hovertemplate: `${name}<br>%{x:.4~g}: <b>%{y:,.4~g}</b><extra></extra>` });
    }
    Object.assign(layout, { hovermode: "closest", dragmode: false, showlegend: true, legend: { orientation: "h", y: -0.2, font: { size: 10 } } });
    layout.xaxis = { ...AXIS, fixedrange: true, exponentformat: "e" };
    layout.yaxis = { ...AXIS, fixedrange: true, rangemode: "tozero" };
    return { traces, layout };
  }

  describe() {
    return stepCount(this.data && this.data.steps.length);
  }

  /** Time of step `row` as hover text (for the relative and wall axes). */
  timeText(row) {
    const { axis, x, unit } = this.data;
    if (axis === "wall") return formatDateTime(x[row]);
    if (axis === "relative") return `${Number((x[row] / unit.seconds).toPrecision(4))} ${unit.name}`;
    return "";
  }

  /** plotly customdata of a curve's points: [step, bucket left, bucket right, count, time]. */
  hoverData(curve) {
    const { steps, edges, counts, bins } = this.data;
    const time = this.timeText(curve.row);
    return curve.bin.map((b) => [steps[curve.row], edges[b], edges[b + 1], counts[curve.row * bins + b], time]);
  }

  hoverTemplate() {
    const time = this.data.axis === "step" ? "" : " · %{customdata[4]}";
    return (
      `<b>${escapePlotly(this.run)}</b><br>step %{customdata[0]:,}${time}<br>` +
      "[%{customdata[1]:.4~g}, %{customdata[2]:.4~g}): <b>%{customdata[3]:,.4~g}</b><extra></extra>"
    );
  }

  figure() {
    if (this.comparing && this.compared) return this.comparedFigure();
    const layout = this.baseLayout();
    const { steps, counts, bins, edges, axis, unit } = this.data;
    if (!steps.length || !bins) return { traces: [], layout };
    const times = toDisplayX(this.data.x, axis, unit);
    const color = this.board.colorOf(this.run);
    const name = escapePlotly(this.run);
    const template = this.hoverTemplate();
    const spec = { times, counts, bins, edges };
    const linked = boardLinkedStep(this.board);
    const mark = linked === null ? -1 : atOrBefore(steps, linked); // the row drawn bold
    const valueAxis = { ...AXIS, fixedrange: true, exponentformat: "e", hoverformat: ".4~g" };
    Object.assign(layout, { hovermode: "closest", dragmode: false });
    if (this.board.trait(MODE) === "overlay") {
      const { lines } = overlayGeometry(spec);
      const traces = lines.map((line) => ({
        type: "scatter",
        mode: "lines",
        name,
        x: line.x,
        y: line.y,
        line: { color: rampColor(color, line.fraction), width: line.row === mark ? 3 : 1.2 },
        customdata: this.hoverData(line),
        hovertemplate: template,
        showlegend: false,
      }));
      layout.xaxis = { ...valueAxis };
      layout.yaxis = { ...valueAxis, rangemode: "tozero", title: { text: "" } };
      return { traces, layout };
    }
    // OFFSET: a ridge per step on a downward time axis, labelled on the right as TensorBoard.
    const geometry = offsetGeometry(spec);
    const outline = this.board.colors.background;
    const traces = geometry.ridges.map((ridge) => ({
      type: "scatter",
      mode: "lines",
      name,
      x: ridge.x,
      y: ridge.y,
      fill: "toself",
      fillcolor: rampColor(color, ridge.fraction),
      line: ridge.row === mark ? { color: this.board.colors.text, width: 2 } : { color: outline, width: 0.6 },
      hoveron: "points",
      customdata: this.hoverData(ridge),
      hovertemplate: template,
      showlegend: false,
    }));
    const ticks = timeTicks(geometry.t0, geometry.t1, axis, unit && unit.name, 4);
    layout.margin = { l: 12, r: 8, t: 8, b: 28, pad: 2 };
    layout.xaxis = { ...valueAxis, showgrid: false };
    layout.yaxis = {
      ...AXIS,
      fixedrange: true,
      showline: false,
      showgrid: false,
      side: "right",
      range: geometry.range,
      autorange: false,
      tickmode: "array",
      tickvals: ticks.tickvals,
      ticktext: ticks.ticktext,
    };
    return { traces, layout };
  }
}

/** The histograms tab: a card per tag and run; also a card type of the time series tab. */
export const dashboard = {
  id: "histograms",
  label: "Histograms",
  cards: {
    histograms: { Card: HistogramCard, plugin: "histograms", noun: "histogram", perRun: true, redrawOn: [MODE, ...LINK_TRAITS] },
  },
};
