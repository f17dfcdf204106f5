// What each diagnostics chart gives plotly, as pure functions of the kernel's chart data
// (tbnb/reader/plugins/diagnostics/charts.py; tbnb/cards/diagnostic_figures.py draws the same
// for static cards). No DOM. Every label from a log goes through escapePlotly.
//   pair          training and validation on one chart, the gap between them shaded (training
//                 read at the validation steps), the best validation step marked
//   lr            the loss over steps, its learning rate on a second, logarithmic y axis
//   lr_find       loss against the learning rate on a log x axis, the raw loss faint, the
//                 smoothed loss, the steepest-descent suggestion marked
//   update_ratio  a line per tensor on a log y axis, the band shaded, a dashed guide at 1e-3,
//                 lines outside the band thick; with many tensors a heatmap of tensors x steps
// `step`: the Board's selected step (link by step), drawn as a thin line on step-x charts.

import { escapePlotly } from "../../format.js";
import { AXIS } from "../../cards/chart_card.js";
import { withAlpha } from "../../core/colors.js";

export const MARK = "#d32f2f";
export const GAP_FILL = "rgba(211,47,47,0.16)";
export const BAND_FILL = "rgba(76,175,80,0.13)";
export const GUIDE_COLOR = "#2e7d32";
const PREFIX = "update_ratio/";

const num = (a) => Array.from(a || [], Number);

/** A vertical line at x (data units, a log axis too: plotly.js 4 places shapes by value) with an optional label. */
export function vline(x, { color = MARK, dash = "dash", width = 1.5, text = null, name = "" } = {}) {
  const shape = { type: "line", name, xref: "x", yref: "paper", x0: x, x1: x, y0: 0, y1: 1, line: { color, width, dash } };
  const note = text === null ? null : { x, y: 1, xref: "x", yref: "paper", text, showarrow: false, yanchor: "bottom", font: { size: 10, color } };
  return { shape, note };
}

/** y of the piecewise-linear curve (xs ascending) at x; NaN outside it. */
export function interpolate(xs, ys, x) {
  const n = xs.length;
  if (n === 0 || x < xs[0] || x > xs[n - 1]) return NaN;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  if (xs[lo] === x || hi === lo) return ys[lo];
  if (xs[hi] === x) return ys[hi];
  return ys[lo] + ((ys[hi] - ys[lo]) * (x - xs[lo])) / (xs[hi] - xs[lo]);
}

function withStep(layout, step, extra = []) {
  const shapes = [...extra];
  if (Number.isInteger(step)) shapes.push(vline(step, { color: "rgba(128,128,128,0.8)", dash: "dot", width: 1, name: "selected-step" }).shape);
  layout.shapes = [...(layout.shapes || []), ...shapes];
  return layout;
}

/** A pair's chart: {traces, layout}. */
export function pairFigure(data, { color, base, step }) {
  const tStep = num(data.train.step);
  const tValue = num(data.train.value);
  const vStep = num(data.val.step);
  const vValue = num(data.val.value);
  const trainAtVal = vStep.map((s) => interpolate(tStep, tValue, s));
  const traces = [
    { type: "scatter", mode: "lines", name: "gap-base", x: vStep, y: trainAtVal, line: { width: 0 }, hoverinfo: "skip", showlegend: false },
    { type: "scatter", mode: "lines", name: "gap", x: vStep, y: vValue, fill: "tonexty", fillcolor: GAP_FILL, line: { width: 0 }, hoverinfo: "skip", showlegend: false },
    { type: "scatter", mode: "lines", name: escapePlotly(data.train_tag), x: tStep, y: tValue, line: { color, width: 1.6 } },
    { type: "scatter", mode: "lines+markers", name: escapePlotly(data.val_tag), x: vStep, y: vValue, line: { color, width: 2, dash: "dot" }, marker: { size: 4 } },
  ];
  const layout = { ...base, showlegend: true, legend: { orientation: "h", y: -0.2, font: { size: 10 } } };
  layout.xaxis = { ...AXIS, title: { text: "step" } };
  layout.yaxis = { ...AXIS, title: { text: escapePlotly(data.metric) } };
  const marks = [];
  if (Number.isFinite(data.best_step)) {
    const { shape, note } = vline(data.best_step, { text: `best ${escapePlotly(data.val_tag)}: step ${data.best_step}`, name: "best-step" });
    marks.push(shape);
    layout.annotations = [note];
    traces.push({ type: "scatter", mode: "markers", name: "best", x: [data.best_step], y: [data.best_value], marker: { color: MARK, size: 9, symbol: "star" } });
  }
  return { traces, layout: withStep(layout, step, marks) };
}

/** A loss with its learning rate: {traces, layout}; `at`: the finding's step, marked. */
export function lrFigure(data, { color, base, step, at = null }) {
  const traces = [{ type: "scatter", mode: "lines", name: escapePlotly(data.loss_tag), x: num(data.loss.step), y: num(data.loss.value), line: { color, width: 1.6 } }];
  const layout = { ...base, showlegend: true, legend: { orientation: "h", y: -0.2, font: { size: 10 } } };
  layout.xaxis = { ...AXIS, title: { text: "step" } };
  layout.yaxis = { ...AXIS, title: { text: escapePlotly(data.loss_tag) } };
  if (data.lr) {
    traces.push({ type: "scatter", mode: "lines", name: escapePlotly(data.lr_tag), yaxis: "y2", x: num(data.lr.step), y: num(data.lr.value), line: { color: "#757575", width: 1.2, dash: "dash" } });
    layout.yaxis2 = { ...AXIS, type: "log", overlaying: "y", side: "right", showgrid: false, title: { text: escapePlotly(data.lr_tag) } };
    layout.margin = { ...(base.margin || {}), r: 56 };
  }
  const marks = [];
  if (Number.isFinite(at)) {
    const { shape, note } = vline(at, { text: `step ${at}`, name: "finding-step" });
    marks.push(shape);
    layout.annotations = [note];
  }
  return { traces, layout: withStep(layout, step, marks) };
}

/** Loss against the learning rate (log x); a range test's suggestion marked. */
export function lrFindFigure(data, { color, base }) {
  const lrName = escapePlotly(data.lr_tag);
  const smoothed = num(data.smoothed);
  const traces = [
    { type: "scatter", mode: "lines", name: escapePlotly(data.loss_tag), x: num(data.all_lr), y: num(data.all_loss), line: { color: withAlpha(color, 0.3), width: 1 } },
    { type: "scatter", mode: "lines", name: "smoothed", x: num(data.lr), y: smoothed, customdata: num(data.step), line: { color, width: 2 }, hovertemplate: `${lrName} %{x:.3g}: %{y:.4g} · step %{customdata}<extra></extra>` },
  ];
  const layout = { ...base, showlegend: true, legend: { orientation: "h", y: -0.2, font: { size: 10 } } };
  layout.xaxis = { ...AXIS, type: "log", title: { text: lrName } };
  layout.yaxis = { ...AXIS, title: { text: escapePlotly(data.loss_tag) } };
  const finite = num(data.all_loss).filter(Number.isFinite);
  const top = smoothed.filter(Number.isFinite);
  if (finite.length && top.length) {
    const lo = Math.min(...finite);
    const hi = Math.max(...top);
    const pad = 0.1 * (hi - lo || 1);
    layout.yaxis.range = [lo - pad, hi + pad];
  }
  if (Number.isFinite(data.suggestion) && data.suggestion > 0) {
    const { shape, note } = vline(data.suggestion, { text: `suggested ${lrName} = ${data.suggestion.toPrecision(3)}`, name: "suggestion" });
    layout.shapes = [shape];
    layout.annotations = [note];
    const lrs = num(data.lr);
    let k = 0;
    for (let i = 1; i < lrs.length; i += 1) if (Math.abs(lrs[i] - data.suggestion) < Math.abs(lrs[k] - data.suggestion)) k = i;
    traces.push({ type: "scatter", mode: "markers", name: "suggestion", x: [data.suggestion], y: [smoothed[k]], marker: { color: MARK, size: 10, symbol: "star" } });
  }
  return { traces, layout };
}

/** Rows of a heatmap's z (a 2-D typed array with .shape, or nested arrays). */
export function rows(z) {
  if (!z) return [];
  if (Array.isArray(z)) return z.map(num);
  const [n, m] = z.shape || [0, 0];
  const out = [];
  for (let i = 0; i < n; i += 1) out.push(Array.from(z.subarray(i * m, (i + 1) * m), (v) => (Number.isFinite(v) ? v : null)));
  return out;
}

/** A run's update ratios: lines (log y, band, guide) or, with many tensors, a heatmap. */
export function ratioFigure(data, { base, palette, step }) {
  const [low, high] = data.band;
  const layout = { ...base };
  if (data.heatmap) {
    const hm = data.heatmap;
    const names = hm.tags.map((t) => escapePlotly(String(t).slice(PREFIX.length)));
    const g = Math.log10(data.guide);
    const traces = [{ type: "heatmap", name: "ratios", x: num(hm.x), y: names, z: rows(hm.z), zmin: g - 2, zmax: g + 2, colorscale: "RdBu", reversescale: true, colorbar: { title: { text: "log10" }, thickness: 10 }, hovertemplate: "%{y}<br>step %{x}<br>log10 ratio %{z:.2f}<extra></extra>" }];
    layout.xaxis = { ...AXIS, title: { text: "step" } };
    layout.yaxis = { ...AXIS, autorange: "reversed", tickfont: { size: 8 } };
    layout.height = Math.max(base.height || 0, 12 * names.length + 80);
    return { traces, layout: withStep(layout, step) };
  }
  const traces = data.lines.map((line, i) => {
    const loud = Boolean(line.outside);
    return {
      type: "scatter",
      mode: "lines",
      name: escapePlotly(String(line.tag).slice(PREFIX.length)),
      x: num(line.step),
      y: num(line.value).map((v) => (v > 0 ? v : null)),
      line: { color: palette[i % palette.length], width: loud ? 2.6 : 1.1 },
      opacity: loud ? 1 : 0.45,
      meta: loud ? "outside" : "inside",
    };
  });
  const band = { type: "rect", name: "band", xref: "paper", yref: "y", x0: 0, x1: 1, y0: low, y1: high, fillcolor: BAND_FILL, line: { width: 0 }, layer: "below" };
  const guide = { type: "line", name: "guide", xref: "paper", yref: "y", x0: 0, x1: 1, y0: data.guide, y1: data.guide, line: { color: GUIDE_COLOR, width: 1.2, dash: "dash" } };
  layout.xaxis = { ...AXIS, title: { text: "step" } };
  layout.yaxis = { ...AXIS, type: "log", title: { text: "update / weight" }, exponentformat: "power" };
  layout.showlegend = true;
  layout.legend = { orientation: "h", y: -0.2, font: { size: 10 } };
  return { traces, layout: withStep(layout, step, [band, guide]) };
}

/** The sentence parts of a finding: [run, what, evidence, advice] as plain text. */
export function sentence(f) {
  const what = String(f.finding || "").replace(/_/g, " ");
  return [String(f.run), `${what} (${String(f.metric)})`, `${String(f.evidence)}.`, String(f.advice)];
}

/** The runs with nothing found, in one line (cards/diagnostics.py writes the same). */
export function quietLine(quiet) {
  const n = quiet.length;
  if (n === 0) return "";
  const names = quiet.slice(0, 20).join(", ") + (n > 20 ? ` and ${n - 20} more` : "");
  return `Nothing found in ${n} run${n === 1 ? "" : "s"}: ${names}.`;
}

/** A chart spec's key (which chart a reply or an item is). */
export function chartKey(spec) {
  const keys = Object.keys(spec).filter((k) => k !== "runs").sort();
  return JSON.stringify(keys.map((k) => [k, spec[k]]));
}
