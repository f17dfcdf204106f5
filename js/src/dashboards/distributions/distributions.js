// A distribution card (one histogram tag, one run): the nine basis points of every sampled step
// over step, relative or wall time, as nested shaded bands and a median line (TensorBoard's
// distributions dashboard).

import { AXIS, ChartCard } from "../../cards/chart_card.js";
import { withAlpha } from "../../core/colors.js";
import { BAND_OPACITY, LABELS, distributionBands, fromDistributionMessage, rowOrder } from "./distribution.js";
import { escapePlotly } from "../../format.js";
import { stepCount } from "../../cards/run_card.js";
import { toDisplayX, xAxisLayout } from "../../xaxis.js";

export class DistributionCard extends ChartCard {
  load() {
    this.loadRun("distributions", fromDistributionMessage);
  }

  describe() {
    return stepCount(this.data && this.data.n);
  }

  figure() {
    const layout = this.baseLayout();
    const { x, values, steps, axis, unit } = this.data;
    const rows = rowOrder(x, this.data.n);
    const color = this.board.colorOf(this.run);
    const name = escapePlotly(this.run);
    const xs = toDisplayX(Float64Array.from(rows, (row) => x[row]), axis, unit);
    const stepOf = Array.from(rows, (row) => steps[row]);
    const { bands, median } = distributionBands(values, rows);
    const edge = (y, label, fill) => ({
      type: "scatter",
      mode: "lines",
      name,
      x: xs,
      y,
      line: { color: withAlpha(color, 0), width: 0 },
      fill: fill ? "tonexty" : "none",
      fillcolor: withAlpha(color, BAND_OPACITY),
      hovertemplate: `${label}: %{y:.4~g}<extra></extra>`,
      showlegend: false,
    });
    const traces = [];
    for (const band of bands) {
      traces.push(edge(band.lower, LABELS[band.lowerColumn], false));
      traces.push(edge(band.upper, LABELS[band.upperColumn], true));
    }
    traces.push({
      type: "scatter",
      mode: "lines",
      name,
      x: xs,
      y: median,
      line: { color, width: 1.5 },
      customdata: stepOf,
      hovertemplate: `<b>${name}</b> step %{customdata:,}<br>median: %{y:.4~g}<extra></extra>`,
      showlegend: false,
    });
    Object.assign(layout, { hovermode: "x unified", dragmode: "zoom" });
    layout.xaxis = { ...AXIS, ...xAxisLayout(axis, unit), autorange: true };
    layout.yaxis = { ...AXIS, exponentformat: "e", autorange: true };
    return { traces, layout };
  }
}

/** The distributions tab: a card per histogram tag and run. */
export const dashboard = {
  id: "distributions",
  label: "Distributions",
  cards: {
    distributions: { Card: DistributionCard, plugin: "histograms", noun: "histogram", perRun: true },
  },
};
