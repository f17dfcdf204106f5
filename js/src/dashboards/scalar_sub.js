// The line under a scalar card's title: how many points it holds and draws, in view when
// zoomed, and which runs the x axis cannot place (a tag axis they lack; steps a log axis
// cannot show). A pure function of the card's state: no DOM.

import { formatCount } from "../format.js";
import { countPoints } from "../series.js";

/**
 * @param {object} state
 *   runs: the card's selected runs; full/zoomData: Map run -> series (or null); zoom: {x, y} | null;
 *   points: the index's point count (before the first reply); absent: runs the x axis cannot place;
 *   dropped: points left out by the axis; xAxis; loading
 * @returns {string}
 */
export function subText({ runs, full, zoom, zoomData, points, absent = [], dropped = 0, xAxis, loading, groups = "" }) {
  if (runs.length === 0) return "no run selected has this tag";
  let text;
  if (full) {
    const all = countPoints(full, runs);
    text = `${formatCount(all.total)} points`;
    if (!all.exact) text += ` (${formatCount(all.sent)} drawn)`;
    if (zoom && zoom.x && zoomData) {
      const z = countPoints(zoomData, runs);
      text += ` · in view: ${formatCount(z.total)}`;
      text += z.exact ? " (every point)" : ` (${formatCount(z.sent)} drawn: zoom in for every point)`;
    }
  } else {
    text = `${formatCount(points)} points`;
  }
  const missing = absent.filter((run) => runs.includes(run));
  if (missing.length) text += ` · no ${xAxis}: ${missing.join(", ")}`;
  if (dropped > 0) text += ` · ${formatCount(dropped)} off the axis`;
  text += groups; // run groups' note (run_groups.js groupNote)
  if (loading) text += " · loading…";
  return text;
}
