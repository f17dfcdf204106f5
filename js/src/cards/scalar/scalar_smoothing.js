// A scalar card's smoothing slider path: while the weight moves, only the smoothed lines' values
// change (plotly's transition path); once it rests for SETTLE_MS, the y range and the hover text
// follow. Functions of the card (scalar_card.js's ScalarCard, whose methods call them).

import { smooth } from "../../smoothing.js";
import { hoverTemplate } from "./scalars_plot.js";

/** How long the smoothing weight must rest before the y axis and hover text follow it. */
export const SETTLE_MS = 200;

/**
 * The smoothing weight changed: only the smoothed lines' values change at once, through
 * plotly's transition path, which redraws just those traces (a full update also rebuilds the
 * raw lines, axes and margins: too slow for a slider). The y axis and the hover text follow
 * once the weight has rested for SETTLE_MS, so that a drag does not make the axis jump at
 * every step.
 */
export function applySmoothing(card) {
  const Plotly = card.board.plotly;
  if (!card.drawn || !card.visible || !Plotly) {
    card.needsDraw = card.needsDraw || card.drawn || Boolean(card.full);
    return;
  }
  const { smoothing } = card.board.settings;
  if (card.groups && card.groups.size) {
    // Bands are smoothed too: a full redraw (and the table's smoothed values follow).
    card.draw();
    if (card.steps.reply && card.steps.reply.smoothing !== smoothing) card.steps.refresh();
    return;
  }
  card.smoothedWith = smoothing;
  // Plain arrays: plotly walks a frame's objects key by key, and a typed array's keys are
  // its indices; an Array it passes over.
  const ys = card.shown.map((line) => Array.from(smooth(line.y, smoothing)));
  Plotly.animate(
    card.plot,
    { data: ys.map((y) => ({ y })), traces: card.smoothedTraces },
    { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } },
  ).catch(() => {}); // a newer weight or a redraw interrupts it: nothing to report
  clearTimeout(card.settleTimer);
  card.settleTimer = setTimeout(() => card.settleSmoothing(), SETTLE_MS);
}

/** After the weight rested: fit the y range to the lines as drawn, and say "(value ...)" in
 * the hover text exactly when smoothing is on. One update, only if something differs. */
export function settleSmoothing(card) {
  const Plotly = card.board.plotly;
  if (card.destroyed || !card.drawn || !Plotly) return;
  const on = card.board.settings.smoothing > 0;
  if (card.steps.reply && card.steps.reply.smoothing !== card.board.settings.smoothing) card.steps.refresh();
  const data = {};
  if (on !== card.smoothingOn && !card.steps.customTooltip()) {
    data.hovertemplate = card.shown.map((line) => hoverTemplate(line, on));
    card.smoothingOn = on;
  }
  const layout = {};
  if (!(card.zoom && card.zoom.y)) {
    const lines = card.shown.map((line, i) => ({ x: line.x, y: card.plot.data[card.smoothedTraces[i]].y }));
    const range = card.yRange(lines);
    const now = card.plot.layout && card.plot.layout.yaxis && card.plot.layout.yaxis.range;
    if (range && !(now && now[0] === range[0] && now[1] === range[1])) {
      Object.assign(layout, { "yaxis.range": range, "yaxis.autorange": false });
    }
  }
  if (!data.hovertemplate && !Object.keys(layout).length) return;
  // Plotly.update, not relayout: a relayout event would be taken for a zoom by the user.
  Plotly.update(card.plot, data, layout, card.smoothedTraces);
}
