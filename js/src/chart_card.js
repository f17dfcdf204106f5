// Per-run cards drawn with plotly (histograms, distributions): plotly's look as on the scalar
// cards, resizing, and fetching again when the x axis changes.

import { RunCard, stepCount } from "./run_card.js";
import { PlotFit } from "./plot_fit.js";
import { FONT } from "./style.js";
import { plainAxis, relativeUnit } from "./xaxis.js";

export const CONFIG = {
  displayModeBar: false,
  displaylogo: false,
  scrollZoom: false,
  showTips: false,
  responsive: false,
};
const GRID = "rgba(128,128,128,0.18)";
const LINE = "rgba(128,128,128,0.45)";
export const AXIS = { gridcolor: GRID, linecolor: LINE, showline: true, zeroline: false, ticks: "", automargin: true };

/** plotly layout keys every chart shares (scalar cards too): size, margins, theme colours. */
export function baseLayout(card) {
  const colors = card.board.colors;
  return {
    height: card.plot.clientHeight || (card.expanded ? 420 : 230),
    margin: { l: 48, r: 12, t: 8, b: 28, pad: 2 },
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
