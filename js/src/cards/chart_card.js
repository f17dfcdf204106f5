// Per-run cards drawn with plotly (histograms, distributions): plotly's look as on the scalar
// cards, resizing, and fetching again when the x axis changes.

import { RunCard, stepCount } from "./run_card.js";
import { PlotFit } from "./plot_fit.js";
import { FONT } from "../core/style.js";
import { plainAxis, relativeUnit } from "../xaxis.js";

export const CONFIG = {
  displayModeBar: false,
  displaylogo: false,
  scrollZoom: false,
  showTips: false,
  responsive: false,
};
const GRID = "rgba(128,128,128,0.18)";
const LINE = "rgba(128,128,128,0.45)";
// Margins that already hold what automargin would add for the usual tick labels: plotly draws a
// chart whose automargin grows a margin a second time, whole (about half of a card's first
// draw: 47 against 99 ms measured for a 16-trace card). The padding it adds around a label is
// the smallest margin up to 12 px, hence every margin at least 12; then the half of the last x
// label that overhangs the right edge (~11 px for "20k"), the half of the top y label above the
// plot (~6 px) and the x labels below (~19 px) fit. Wider labels still grow their margin.
export const MARGIN = Object.freeze({ l: 48, r: 24, t: 20, b: 32, pad: 2 });
export const AXIS = { gridcolor: GRID, linecolor: LINE, showline: true, zeroline: false, ticks: "", automargin: true };

/** plotly layout keys every chart shares (scalar cards too): size, margins, theme colours. */
export function baseLayout(card) {
  const colors = card.board.colors;
  return {
    height: card.plot.clientHeight || (card.expanded ? 420 : 230),
    margin: MARGIN,
    showlegend: false,
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { family: FONT, size: 11, color: colors.text },
    hoverlabel: {
      bgcolor: colors.background,
      bordercolor: colors.border,
      font: { family: FONT, size: 11, color: colors.text },
      namelength: -1,
    },
    uirevision: card.key,
  };
}

export class ChartCard extends RunCard {
  baseLayout() {
    return baseLayout(this);
  }

  /**
   * Ask for this card's reply of `type` (its run, the current x axis); keep `decode(entry)` with
   * the axis and the unit of relative time, and draw. A reply for another axis is dropped.
   */
  loadRun(type, decode) {
    const xAxis = plainAxis(this.board.settings.xAxis); // a tag axis is drawn as steps here
    this.request("data", { type, tag: this.tag, runs: [this.run], x_axis: xAxis }, (msg) => {
      if (msg.x_axis !== undefined && msg.x_axis !== plainAxis(this.board.settings.xAxis)) return;
      const entry = (msg.series || []).find((s) => s && s.run === this.run);
      const data = decode(entry || {});
      let max = 0;
      for (const v of data.x) if (Number.isFinite(v) && v > max) max = v;
      this.data = { ...data, axis: xAxis, unit: relativeUnit(max) };
      this.loading = false;
      this.draw();
    });
  }

  /** {traces, layout} of the data (overridden). */
  figure() {
    return { traces: [], layout: this.baseLayout() };
  }

  render() {
    const Plotly = this.board.plotly;
    if (!Plotly) {
      this.needsDraw = true;
      return false;
    }
    const { traces, layout } = this.figure();
    Plotly.react(this.plot, traces, layout, CONFIG);
    return true;
  }

  /** The x axis changed: the data is in other units now. */
  resetAxis() {
    this.data = null;
    this.invalidate();
  }

  setVisible(visible) {
    super.setVisible(visible);
    if (visible) this.fitter().shown();
  }

  /** The plot's box changed size: fit the chart to it (when next on screen if off it now). */
  resized() {
    this.fitter().resized();
  }

  fitter() {
    if (!this.fit) this.fit = new PlotFit(this);
    return this.fit;
  }

  destroy() {
    if (this.fit) this.fit.destroy();
    const Plotly = this.board.plotly;
    if (Plotly && this.drawn) Plotly.purge(this.plot);
    super.destroy();
  }
}
