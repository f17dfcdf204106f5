// What a scalar card gives plotly, as pure functions of its state: a faint raw line and a
// smoothed line per run, unified hover text, the y range (outliers, log scale, zoom) and the
// axes; and a plotly relayout event back to a zoom. No DOM: scalar_card.js draws with them.

import { AXIS } from "../chart_card.js";
import { escapePlotly, formatDateTime } from "../../format.js";
import { yDomain } from "./outliers.js";
import { hoverData, mergeZoom } from "../../series.js";
import { smooth } from "../../smoothing.js";
import { fromDisplayRange, toDisplayRange, toDisplayX, xAxisLayout } from "../../xaxis.js";

const RAW_OPACITY = 0.25; // TensorBoard's opacity of the unsmoothed line

/** A smoothed line's hover text; with smoothing on it also gives the raw value. */
export function hoverTemplate(line, on) {
  const time = line.wall ? " · %{customdata[2]}" : "";
  const value = on ? " (value %{customdata[0]:.4~g})" : "";
  return `${line.name}: <b>%{y:.4~g}</b>${value} · step %{customdata[1]:,}${time}<extra></extra>`;
}

const HOVER = new WeakMap(); // series -> plotly customdata (kept while the series is)

function hoverOf(s) {
  let data = HOVER.get(s);
  if (!data) {
    data = hoverData(s, formatDateTime);
    HOVER.set(s, data);
  }
  return data;
}

export function sameRange(a, b) {
  if (a === b) return true;
  if (!a || !b) return false;
  return a[0] === b[0] && a[1] === b[1];
}

/** [a, b] from plotly's relayout event for an axis ("xaxis"), or null when it is not there. */
export function relayoutRange(event, axis) {
  if (Array.isArray(event[`${axis}.range`])) return event[`${axis}.range`].slice(0, 2);
  const a = event[`${axis}.range[0]`];
  const b = event[`${axis}.range[1]`];
  return a !== undefined && b !== undefined ? [a, b] : null;
}

/**
 * The zoom a plotly relayout event asks for ({x, y} in data units, null for none), or
 * undefined when the event is not about the axes' ranges.
 */
export function zoomFromRelayout(event, { xAxis, unit, logY, zoom }) {
  const xr = relayoutRange(event, "xaxis");
  const yr = relayoutRange(event, "yaxis");
  if (!xr && !yr) return undefined;
  const x = xr ? fromDisplayRange(xr, xAxis, unit) : zoom ? zoom.x : null;
  let y = null;
  if (yr) {
    const values = yr.map(Number);
    y = logY ? values.map((v) => Math.pow(10, v)) : values;
    if (!values.every(Number.isFinite)) y = null;
  } else if (!xr && zoom) {
    y = zoom.y;
  }
  return x || y ? { x, y } : null;
}

/**
 * The traces of `runs`: for each run held in `full` (Map run -> series; merged with the exact
 * points of `zoomData` inside `zoom.x`, then passed through `prepare` if given), a raw line
 * then a smoothed line.
 * @returns {{traces: object[], lines: {x, y}[], shown: object[], smoothedTraces: number[], on: boolean}}
 *   lines: what each run's drawn line holds (smoothed when smoothing is on), for the y range;
 *   shown: [{run, x, y, name, wall}] per smoothed line; smoothedTraces: their trace indices
 */
export function scalarTraces({ runs, full, zoom, zoomData, smoothing, xAxis, unit, colorOf, prepare = null }) {
  const on = smoothing > 0;
  const traces = [];
  const lines = [];
  const shown = [];
  const smoothedTraces = [];
  for (const run of runs) {
    const overview = full && full.get(run);
    if (!overview) continue;
    const zoomed = zoom && zoom.x && zoomData ? zoomData.get(run) : null;
    const merged = zoomed ? mergeZoom(overview, zoomed, zoom.x) : overview;
    const s = prepare ? prepare(merged) : merged; // e.g. broken where x goes back (scalar_compare.js)
    const x = toDisplayX(s.x, xAxis, unit);
    const color = colorOf(run);
    const name = escapePlotly(run);
    const smoothed = smooth(s.y, smoothing);
    // The raw line stays drawn when smoothing is off: it lies under the smoothed line, which
    // then has the same values, so a weight crossing 0 changes y values only.
    traces.push({
      type: "scatter",
      mode: "lines",
      name,
      x,
      y: s.y,
      line: { color, width: 1 },
      opacity: RAW_OPACITY,
      hoverinfo: "skip",
      showlegend: false,
    });
    const line = { run, x: s.x, y: s.y, name, wall: Boolean(s.wall) };
    traces.push({
      type: "scatter",
      mode: "lines",
      name,
      x,
      y: smoothed,
      line: { color, width: 1.5 },
      customdata: hoverOf(s),
      hovertemplate: hoverTemplate(line, on),
      showlegend: false,
    });
    smoothedTraces.push(traces.length - 1);
    shown.push(line);
    lines.push({ x: s.x, y: on ? smoothed : s.y });
  }
  return { traces, lines, shown, smoothedTraces, on };
}

/**
 * The y range to draw (plotly's units: log10 on a log axis), or null for plotly's autorange:
 * the zoom's when zoomed in y, else the lines' domain (TensorBoard's outlier rule optional).
 */
export function yRange(lines, { zoom, logY, ignoreOutliers }) {
  const zoomY = zoom && zoom.y;
  if (zoomY) {
    if (!logY) return zoomY;
    return zoomY[0] > 0 && zoomY[1] > 0 ? zoomY.map(Math.log10) : null;
  }
  const xRange = zoom && zoom.x ? zoom.x : null;
  const d = yDomain(lines, { ignoreOutliers, log: logY, xRange });
  if (!d) return null;
  return logY ? d.map(Math.log10) : d;
}

/** The chart's plotly layout: `base` (size, theme) with the x and y axes. */
export function scalarLayout(base, { xAxis, unit, zoom, logY, range }) {
  const xRange = zoom && zoom.x ? toDisplayRange(zoom.x, xAxis, unit) : null;
  return {
    ...base,
    hovermode: "x unified",
    dragmode: "zoom",
    xaxis: {
      ...AXIS,
      ...xAxisLayout(xAxis, unit),
      ...(xRange ? { range: xRange, autorange: false } : { autorange: true }),
    },
    yaxis: {
      ...AXIS,
      type: logY ? "log" : "linear",
      exponentformat: "e",
      ...(range ? { range, autorange: false } : { autorange: true }),
    },
  };
}
