// What a custom-scalars chart draws, as pure functions of the kernel's layout and its series:
// the lines of a chart for the selected runs (multiline: a line per run and matching tag; margin:
// a value line with its lower/upper band per run and series), which tags to ask for (one
// "series" request per tag, as scalar cards ask), the line colours, and a margin chart's band
// traces. No DOM: custom_scalars.js draws with them and the scalar card's machinery (cards/scalar/).

import { formatDateTime, escapePlotly } from "../../format.js";
import { hoverData, mergeZoom } from "../../series.js";
import { toDisplayX } from "../../xaxis.js";
import { hoverTemplate } from "../../cards/scalar/scalars_plot.js";

const BAND_OPACITY = 0.22;

/** A line's name (its key in a chart's data and its hover name): the tag, then the run. */
export function lineKey(tag, run) {
  return `${tag} · ${run}`;
}

/**
 * The lines a chart draws for `runs` (shown runs, in index order), from the kernel's chart entry.
 * multiline: [{key, run, tag}] per run and tag; margin: [{key, run, tag, lower, upper}] per run
 * and series whose value tag it has (a missing bound is null: no band).
 */
export function chartLines(chart, runs) {
  const lines = [];
  for (const run of runs) {
    if (chart.kind === "multiline") {
      for (const tag of (chart.tags && chart.tags[run]) || []) lines.push({ key: lineKey(tag, run), run, tag });
    } else if (chart.kind === "margin") {
      for (const [tag, lower, upper] of (chart.series && chart.series[run]) || []) {
        lines.push({ key: lineKey(tag, run), run, tag, lower: lower ?? null, upper: upper ?? null });
      }
    }
  }
  return lines;
}

/** tag -> the runs to ask it for (every tag a chart's lines and bands read), in line order. */
export function tagRequests(lines) {
  const out = new Map();
  const add = (tag, run) => {
    if (tag === null || tag === undefined) return;
    if (!out.has(tag)) out.set(tag, []);
    if (!out.get(tag).includes(run)) out.get(tag).push(run);
  };
  for (const line of lines) {
    add(line.tag, line.run);
    add(line.lower, line.run);
    add(line.upper, line.run);
  }
  return out;
}

/** A line's colour: its run's when every run has one line in the chart, else the palette by position
 * (several tags of one run must not look alike). */
export function lineColors(lines, runColor, palette) {
  const perRun = new Map();
  for (const line of lines) perRun.set(line.run, (perRun.get(line.run) || 0) + 1);
  const single = [...perRun.values()].every((n) => n === 1);
  return new Map(lines.map((line, i) => [line.key, single ? runColor(line.run) : palette[i % palette.length]]));
}

/** "#rrggbb" -> "rgba(r,g,b,a)" (a band's fill); anything else is returned as it is. */
export function fade(color, alpha) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(color));
  if (!m) return color;
  return `rgba(${parseInt(m[1], 16)},${parseInt(m[2], 16)},${parseInt(m[3], 16)},${alpha})`;
}

/**
 * A margin chart's traces: per line, its upper bound, its lower bound filled up to the upper, and
 * its value line, every one of them smoothed alike (the band stays around the smoothed value).
 * `full`/`zoomData`: Map "tag · run" -> series (as scalar cards hold them).
 * @returns {{traces, lines, shown, smoothedTraces, on}} as scalars_plot.js's scalarTraces
 */
export function marginTraces({ lines, full, zoom, zoomData, smooth, smoothing, xAxis, unit, colorOf }) {
  const on = smoothing > 0;
  const out = { traces: [], lines: [], shown: [], smoothedTraces: [], on };
  const seriesOf = (tag, run) => {
    const key = lineKey(tag, run);
    const overview = full && full.get(key);
    if (!overview) return null;
    const zoomed = zoom && zoom.x && zoomData ? zoomData.get(key) : null;
    return zoomed ? mergeZoom(overview, zoomed, zoom.x) : overview;
  };
  for (const line of lines) {
    const value = seriesOf(line.tag, line.run);
    if (!value) continue;
    const color = colorOf(line.key);
    const lower = line.lower && line.upper ? seriesOf(line.lower, line.run) : null;
    const upper = lower ? seriesOf(line.upper, line.run) : null;
    const parts = [];
    if (lower && upper) {
      parts.push([upper, `${line.key} upper`, { line: { color, width: 0 } }]);
      parts.push([lower, `${line.key} lower`, { line: { color, width: 0 }, fill: "tonexty", fillcolor: fade(color, BAND_OPACITY) }]);
    }
    parts.push([value, line.key, { line: { color, width: 1.5 } }]);
    for (const [s, label, style] of parts) {
      const name = escapePlotly(label);
      const drawn = { run: line.run, x: s.x, y: s.y, name, wall: Boolean(s.wall) };
      const y = smooth(s.y, smoothing);
      out.traces.push({
        type: "scatter",
        mode: "lines",
        name,
        x: toDisplayX(s.x, xAxis, unit),
        y,
        customdata: hoverData(s, formatDateTime),
        hovertemplate: hoverTemplate(drawn, on),
        showlegend: false,
        ...style,
      });
      out.smoothedTraces.push(out.traces.length - 1);
      out.shown.push(drawn);
      out.lines.push({ x: s.x, y: on ? y : s.y });
    }
  }
  return out;
}
