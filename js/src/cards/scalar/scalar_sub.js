// The line under a scalar card's title: how many points it holds and draws, in view when
// zoomed, and which runs the x axis cannot place (a tag axis they lack; steps a log axis
// cannot show). A pure function of the card's state: no DOM.

import { formatCount } from "../../format.js";
import { withGroupPoints } from "../../run_groups.js";
import { countPoints } from "../../series.js";

/**
 * @param {object} state
 *   runs: the card's selected runs; full/zoomData: Map run -> series (or null); zoom: {x, y} | null;
 *   points: the index's point count (before the first reply); absent: runs the x axis cannot place;
 *   dropped: points left out by the axis; xAxis; loading; groups: run_groups.js groupNote;
 *   fullGroups/zoomGroups: Map group -> series (run_groups.js groupMap) of full/zoomData: a group
 *   counts its members' points, which its runs' series are not sent for
 * @returns {string}
 */
export function subText({ runs, full, zoom, zoomData, points, absent = [], dropped = 0, xAxis, loading, groups = "",
  fullGroups = null, zoomGroups = null }) {
  if (runs.length === 0) return "no run selected has this tag";
  let text;
  if (full) {
    const all = withGroupPoints(countPoints(full, runs), fullGroups);
    text = `${formatCount(all.total)} points`;
    if (!all.exact) text += ` (${formatCount(all.sent)} drawn)`;
    if (zoom && zoom.x && zoomData) {
      const z = withGroupPoints(countPoints(zoomData, runs), zoomGroups);
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
