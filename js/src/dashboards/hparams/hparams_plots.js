// The hparams dashboard's charts as plotly figures: parallel coordinates (one line per trial,
// an axis per hparam and metric) and a scatter-plot matrix of the hparams against the metrics.
// Pure functions: no DOM. Labels are escaped (escapePlotly): hparams values and metric names are
// text from the logs, and plotly renders its HTML subset in labels.

import { PALETTE } from "../../core/colors.js";
import { escapePlotly } from "../../format.js";
import { axisOf, columnLabel, isNumeric } from "./hparams_table.js";

/** The columns drawn as axes: hparams then metrics that have values, not hidden. */
export function plotColumns(columns, rows, hidden = new Set()) {
  return columns.filter((c) => (c.kind === "hparam" || c.kind === "metric") && !hidden.has(c.key) && axisOf(c, rows));
}

/**
 * The parcoords trace: one line per row, coloured by the first metric (else uniform).
 * `brushes` ({key: [[lo, hi], ...]}) are put back as constraint ranges, so that redrawing keeps
 * what the user brushed. Each dimension carries its column key (for reading brushes back).
 */
export function parcoordsTrace(columns, rows, brushes = {}, colors = {}) {
  const drawn = plotColumns(columns, rows);
  const dimensions = drawn.map((c) => {
    const axis = axisOf(c, rows);
    const dim = {
      label: escapePlotly(columnLabel(c)),
      values: rows.map((r) => axis.value(r.values[c.key])),
      name: c.key,
    };
    if (axis.categorical) {
      dim.tickvals = axis.labels.map((_, i) => i);
      // parcoords writes tick text as plain SVG text (no HTML subset, unlike its axis titles):
      // the values go as they are, escaping them would show "&lt;" to the reader.
      dim.ticktext = axis.labels.slice();
      dim.range = [0, Math.max(axis.labels.length - 1, 1)];
    }
    const ranges = brushes[c.key];
    if (Array.isArray(ranges) && ranges.length) dim.constraintrange = ranges.length === 1 ? ranges[0] : ranges;
    return dim;
  });
  const metric = drawn.find((c) => c.kind === "metric");
  const line = metric
    ? {
        color: rows.map((r) => (typeof r.values[metric.key] === "number" ? r.values[metric.key] : NaN)),
        colorscale: colors.scale || "Viridis",
        showscale: true,
        colorbar: { title: { text: escapePlotly(columnLabel(metric)) }, thickness: 10 },
      }
    : { color: colors.line || PALETTE[0] };
  return { type: "parcoords", dimensions, line };
}

/** The brushes of a drawn parcoords trace: {key: [[lo, hi], ...]} of its constraint ranges. */
export function brushesOf(trace) {
  const out = {};
  for (const dim of (trace && trace.dimensions) || []) {
    const cr = dim.constraintrange;
    if (!Array.isArray(cr) || cr.length === 0 || typeof dim.name !== "string") continue;
    out[dim.name] = Array.isArray(cr[0]) ? cr.map((r) => [Number(r[0]), Number(r[1])]) : [[Number(cr[0]), Number(cr[1])]];
  }
  return out;
}

/**
 * The scatter-plot matrix of numeric hparams and metrics (a point per row, in the run's colour,
 * hover naming the run), or null when fewer than two such columns have values.
 */
export function splomTrace(columns, rows, colorOf = () => PALETTE[0]) {
  const numeric = plotColumns(columns, rows).filter((c) => isNumeric(c, rows));
  if (numeric.length < 2) return null;
  return {
    type: "splom",
    dimensions: numeric.map((c) => ({
      label: escapePlotly(columnLabel(c)),
      values: rows.map((r) => (typeof r.values[c.key] === "number" ? r.values[c.key] : NaN)),
    })),
    text: rows.map((r) => escapePlotly(r.run)),
    hovertemplate: "%{text}<br>(%{x:.4~g}, %{y:.4~g})<extra></extra>",
    marker: { color: rows.map((r) => colorOf(r.run)), size: 7, line: { width: 0 } },
  };
}
