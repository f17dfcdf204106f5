// What a PR card gives plotly and the kernel, as pure functions of its data: the steps its
// slider walks (every run's sampled steps, merged), the `steps` of its request, one
// precision–recall line per run with threshold, precision, recall and the four counts in the
// hover, and the axes (recall 0..1 across, precision 0..1 up, as TensorBoard draws them). No DOM.

import { AXIS } from "../../cards/chart_card.js";
import { toNumbers } from "../../core/codec.js";
import { escapePlotly, formatCount } from "../../format.js";

export const COUNTS = ["true_positives", "false_positives", "true_negatives", "false_negatives"];

/** A decoded "pr_curves" entry -> {run, steps: number[], step, wall, thresholds, precision, recall,
 * true_positives, ...} with Float64Arrays (empty when the run has no readable step). */
export function fromMessage(entry) {
  const out = {
    run: String(entry.run),
    steps: Array.from(toNumbers(entry.steps || [])),
    step: Number.isFinite(entry.step) ? entry.step : null,
    wall: Number.isFinite(entry.wall_time) ? entry.wall_time : null,
  };
  for (const name of ["thresholds", "precision", "recall", ...COUNTS]) out[name] = toNumbers(entry[name] || []);
  return out;
}

/** Every step some run has, ascending, once each: the positions of the card's slider. */
export function unionSteps(curves) {
  const all = new Set();
  for (const c of curves) for (const s of c.steps) if (Number.isFinite(s)) all.add(s);
  return [...all].sort((a, b) => a - b);
}

/** The request's `steps`: null while following the latest step (each run's last), else the
 * slider's step for every run (the kernel takes each run's nearest). */
export function stepsFor(runs, step) {
  if (step === null || step === undefined) return null;
  return Object.fromEntries(runs.map((run) => [run, step]));
}

/** The slider's position for `step` (the nearest position; the last when step is null). */
export function sliderIndex(steps, step) {
  if (!steps.length) return 0;
  if (step === null || step === undefined) return steps.length - 1;
  let best = 0;
  for (let i = 1; i < steps.length; i++) if (Math.abs(steps[i] - step) < Math.abs(steps[best] - step)) best = i;
  return best;
}

/** "step 8", or "step 8 (b: 5)" when some run shows another step than the slider's. */
export function stepText(curves, step) {
  const shown = curves.filter((c) => c.step !== null);
  if (!shown.length) return "no readable step";
  const main = step ?? Math.max(...shown.map((c) => c.step));
  const others = shown.filter((c) => c.step !== main).map((c) => `${c.run}: ${formatCount(c.step)}`);
  return `step ${formatCount(main)}${others.length ? ` (${others.join(", ")})` : ""}`;
}

/** The hover text of a run's line; the run's name is escaped (plotly renders a subset of HTML). */
export function hoverTemplate(run, step) {
  return (
    `<b>${escapePlotly(run)}</b> · step ${formatCount(step)}<br>` +
    "threshold %{customdata[0]:.3f}<br>precision %{y:.4f} · recall %{x:.4f}<br>" +
    "TP %{customdata[1]:,.4~g} · FP %{customdata[2]:,.4~g} · TN %{customdata[3]:,.4~g} · FN %{customdata[4]:,.4~g}<extra></extra>"
  );
}

/** One line per run with a readable step, in `runs` order: recall across, precision up. */
export function prTraces(curves, runs, colorOf) {
  const byRun = new Map(curves.map((c) => [c.run, c]));
  const traces = [];
  for (const run of runs) {
    const c = byRun.get(run);
    if (!c || c.step === null || !c.thresholds.length) continue;
    const customdata = Array.from(c.thresholds, (t, i) => [t, ...COUNTS.map((name) => c[name][i])]);
    traces.push({
      type: "scatter",
      mode: c.thresholds.length === 1 ? "markers" : "lines",
      name: escapePlotly(run),
      x: Array.from(c.recall),
      y: Array.from(c.precision),
      customdata,
      hovertemplate: hoverTemplate(run, c.step),
      line: { color: colorOf(run), width: 1.5 },
      marker: { color: colorOf(run), size: 5 },
      showlegend: false,
    });
  }
  return traces;
}

/** The chart's layout: `base` (size, theme) with both axes fixed to [0, 1] (a little headroom). */
export function prLayout(base) {
  return {
    ...base,
    hovermode: "closest",
    dragmode: "zoom",
    xaxis: { ...AXIS, title: { text: "recall", standoff: 2 }, range: [-0.02, 1.02], autorange: false },
    yaxis: { ...AXIS, title: { text: "precision", standoff: 2 }, range: [-0.02, 1.05], autorange: false },
  };
}
