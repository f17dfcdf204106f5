// A scalar card's step selection on the page: the dotted step marker (two and a band with
// range selection) over the chart, dragged with the mouse or moved with the arrow keys, the
// data table under the chart (columns chosen from a menu, sorted by clicking a header, run
// colour swatches), and the sorted, limited hover tooltip. The values come from the kernel's
// "step_table" reply (exact, full resolution); step_table.js holds the pure rules.

import { h, update } from "../../dom.js";
import { groupCell, groupFields } from "../../run_groups.js";
import { addStepStyle } from "./step_style.js";
import { fromDisplayValue, toDisplayValue } from "../../xaxis.js";
import {
  cardSelection,
  columnsFor,
  formatCell,
  formatValue,
  neighbourStep,
  selectionWrites,
  sortRows,
  stepAtX,
  tableRows,
  tooltipRows,
} from "./step_table.js";

/** The traits step selection reads (a card redraws when one changes: scalar_card.js `SCALAR_TRAITS`). */
export const STEP_TRAITS = ["step_selection", "selected_step", "range_selection", "selected_range", "link_step", "card_steps", "tooltip_sort", "tooltip_rows"];

const TABLE_STATE = new WeakMap(); // board -> {columns: {step: Set, range: Set}, sort: {key, order}}

function tableState(board) {
  let state = TABLE_STATE.get(board);
  if (!state) {
    const on = (mode) => new Set(columnsFor(mode).filter((c) => c.on).map((c) => c.key));
    state = { columns: { step: on("step"), range: on("range") }, sort: { key: "run", order: "asc" } };
    TABLE_STATE.set(board, state);
  }
  return state;
}

function traitsOf(board) {
  const out = {};
  for (const name of STEP_TRAITS) out[name] = board.model.get(name);
  return out;
}

/** The step view of a chart that has no data table of its own (a custom-scalars chart draws
 * several tags at once, so no one tag's table fits it): the scalar card's calls do nothing. */
export class NoStepView {
  constructor() {
    this.reply = null;
    this.layer = null;
    this.table = null;
  }
  refresh() {}
  place() {}
  hover() {}
  unhover() {}
  customTooltip() {
    return false;
  }
}

export class StepView {
  constructor(card) {
    this.card = card;
    this.board = card.board;
    addStepStyle(this.board.root);
    this.reply = null;
    this.dragging = null; // {which, step} while a marker is dragged
    this.layer = h("div", { class: "tbnb-step-layer" });
    this.band = h("div", { class: "tbnb-step-band", hidden: true });
    this.markers = [this.marker(0), this.marker(1)];
    this.layer.append(this.band, ...this.markers.map((m) => m.el));
    this.tip = h("div", { class: "tbnb-tooltip", hidden: true, role: "tooltip" });
    this.layer.append(this.tip);
    this.table = h("div", { class: "tbnb-step-table" });
  }

  get traits() {
    return traitsOf(this.board);
  }

  enabled() {
    return this.traits.step_selection !== false;
  }

  ranged() {
    return this.traits.range_selection === true;
  }

  /** Ask the kernel for this card's table at the selection (pushed again as points arrive). */
  refresh() {
    const runs = this.card.runs();
    if (!this.enabled() || runs.length === 0) {
      this.reply = null;
      this.render();
      return;
    }
    const { step, range } = cardSelection(this.traits, this.card.tag);
    const ranged = this.ranged();
    const content = { type: "step_table", tag: this.card.tag, runs, step: ranged ? null : step, range: ranged ? range : null, ranged, smoothing: this.board.settings.smoothing, ...groupFields(this.board.model) };
    this.card.request("steps", content, (msg) => {
      this.reply = msg;
      this.render();
    }, () => {});
  }

  /** Table and markers from the last reply. */
  render() {
    this.renderTable();
    this.place();
  }

  // ---------------------------------------------------------------------------------- table

  renderTable() {
    const msg = this.reply;
    this.table.hidden = !this.enabled() || !msg;
    if (this.table.hidden) return this.table.replaceChildren();
    const mode = msg.mode === "range" ? "range" : "step";
    const state = tableState(this.board);
    const chosen = state.columns[mode];
    const columns = columnsFor(mode).filter((c) => chosen.has(c.key));
    const groups = msg.groups || {}; // group -> members (run_groups.js)
    const shown = new Set([...this.card.runs(), ...Object.keys(groups)]); // hidden runs are absent
    let rows = tableRows(msg.columns).filter((row) => shown.has(row.run));
    rows = sortRows(rows, state.sort.key, state.sort.order);
    const header = (key, label) => {
      const sorted = state.sort.key === key;
      const arrow = sorted ? (state.sort.order === "asc" ? " ↑" : " ↓") : "";
      return h("th", {
        text: label + arrow,
        class: "tbnb-sortable",
        tabindex: "0",
        "aria-sort": sorted ? (state.sort.order === "asc" ? "ascending" : "descending") : "none",
        on: {
          click: () => this.sortBy(key),
          keydown: (e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), this.sortBy(key)),
        },
      });
    };
    const head = h("tr", {}, h("th", { class: "tbnb-swatch-cell" }), header("run", "Run"), columns.map((c) => header(c.key, c.label)));
    const body = rows.map((row) =>
      h(
        "tr",
        { dataset: { run: row.run } },
        h("td", { class: "tbnb-swatch-cell" }, h("span", { class: "tbnb-dot", style: { background: this.colorOf(row.run) } })),
        h("td", { class: "tbnb-run-cell", text: row.run, title: groups[row.run] ? `${row.run}: ${groups[row.run].join(", ")}` : row.run }),
        columns.map((c) => h("td", { text: (groups[row.run] && groupCell(row, c.key, formatValue)) || formatCell(c.key, row[c.key]), dataset: { key: c.key } })),
      ),
    );
    const picker = h(
      "details",
      { class: "tbnb-menu tbnb-columns" },
      h("summary", { class: "tbnb-btn", title: "Choose columns", "aria-label": "Choose columns", text: "⋮" }),
      h(
        "div",
        { class: "tbnb-menu-items" },
        columnsFor(mode).map((c) =>
          h("label", { class: "tbnb-check" }, h("input", { type: "checkbox", checked: chosen.has(c.key), on: { change: (e) => this.choose(mode, c.key, e.target.checked) } }), c.label),
        ),
      ),
    );
    const empty = rows.length ? null : h("div", { class: "tbnb-empty-table", text: "No run selected has this tag" });
    const table = h("table", { class: "tbnb-data-table" }, h("thead", {}, head), h("tbody", {}, body));
    this.table.replaceChildren(...[h("div", { class: "tbnb-table-head" }, picker), table, empty].filter(Boolean));
  }

  /** A row's colour: a run's, or its group's when the card draws groups. */
  colorOf(name) {
    return this.card.lineColor ? this.card.lineColor(name) : this.board.colorOf(name);
  }

  sortBy(key) {
    const state = tableState(this.board);
    state.sort = { key, order: state.sort.key === key && state.sort.order === "asc" ? "desc" : "asc" };
    for (const card of this.board.cards.all()) if (card.steps) card.steps.renderTable();
  }

  choose(mode, key, on) {
    const chosen = tableState(this.board).columns[mode];
    if (on) chosen.add(key);
    else chosen.delete(key);
    for (const card of this.board.cards.all()) if (card.steps) card.steps.renderTable();
  }

  // ---------------------------------------------------------------------------------- markers

  marker(which) {
    const label = h("span", { class: "tbnb-step-label" });
    const handle = h("div", {
      class: "tbnb-step-handle",
      tabindex: "0",
      role: "slider",
      "aria-label": which === 0 ? "Selected step" : "Range end step",
      on: {
        keydown: (e) => this.onKey(e, which),
        pointerdown: (e) => this.startDrag(e, which),
      },
    }, label);
    const el = h("div", { class: "tbnb-step-marker", hidden: true, dataset: { which: String(which) } }, handle);
    el.addEventListener("pointerdown", (e) => this.startDrag(e, which));
    return { el, handle, label };
  }

  /** The steps the reply put the markers at: [step] or [start, end]. */
  markerSteps() {
    const msg = this.reply;
    if (!msg) return [];
    if (this.dragging) {
      const steps = msg.mode === "range" ? msg.range.slice() : [msg.step];
      steps[this.dragging.which] = this.dragging.step;
      return steps;
    }
    if (msg.mode === "range") return msg.range ? msg.range.slice() : [];
    return msg.step === null || msg.step === undefined ? [] : [msg.step];
  }

  /** Protocol x of a marker at `step` (`which` 0 start, 1 end): the step itself on the step axis;
   * on a time axis the time of the first run's chosen point. */
  markerX(step, which) {
    const { xAxis } = this.board.settings;
    if (xAxis === "step" || xAxis === "log_step") return step;
    const cols = this.reply && this.reply.columns;
    if (!cols || !cols.run || !cols.run.length) return null;
    const suffix = xAxis === "relative" ? "relative" : "wall";
    const key = this.reply.mode === "range" ? `${which === 0 ? "start" : "end"}_${suffix}` : suffix;
    if (!this.dragging && (xAxis === "relative" || xAxis === "wall")) return Number(cols[key][0]);
    const overview = this.card.overviewOf(cols.run[0]);
    if (!overview) return null;
    let best = null;
    for (let i = 0; i < overview.step.length; i++) {
      const d = Math.abs(Number(overview.step[i]) - step);
      if (best === null || d < best[0]) best = [d, overview.x[i]];
    }
    return best && best[1];
  }

  /** Put the markers (and the band) where the reply's steps are on the drawn chart. */
  place() {
    const plot = this.card.plot;
    // The layer covers the plot (both children of the card, which is their offset parent).
    Object.assign(this.layer.style, { left: `${plot.offsetLeft}px`, top: `${plot.offsetTop}px`, width: `${plot.offsetWidth}px`, height: `${plot.offsetHeight}px` });
    const full = plot && plot._fullLayout;
    const steps = this.enabled() && full && full.xaxis ? this.markerSteps() : [];
    const xa = full && full.xaxis;
    const ya = full && full.yaxis;
    const px = steps.map((step, which) => {
      const x = this.markerX(step, which);
      if (x === null || !Number.isFinite(x)) return null;
      const p = xa.d2p(toDisplayValue(x, this.board.settings.xAxis, this.card.unit));
      return Number.isFinite(p) ? xa._offset + p : null;
    });
    this.markers.forEach((m, i) => {
      const left = px[i];
      const visible = i < steps.length && left !== null && left !== undefined && left >= xa._offset - 1 && left <= xa._offset + xa._length + 1;
      update(m.el, { hidden: !visible });
      if (!visible) return;
      Object.assign(m.el.style, { left: `${left}px`, top: `${ya._offset}px`, height: `${ya._length}px` });
      // (placed again after every draw: only what moved is written)
      update(m.label, { text: Math.round(steps[i]).toLocaleString("en-US") });
      update(m.handle, { attrs: { "aria-valuenow": String(steps[i]) } });
      update(m.el, { data: { step: String(steps[i]) } });
    });
    const band = steps.length === 2 && px.every((p) => p !== null);
    update(this.band, { hidden: !band });
    if (band) {
      const [a, b] = [Math.min(...px), Math.max(...px)];
      Object.assign(this.band.style, { left: `${a}px`, width: `${b - a}px`, top: `${ya._offset}px`, height: `${ya._length}px` });
    }
  }

  /** The card's steps (from the drawn series) that arrow keys move through. */
  cardSteps() {
    const steps = [];
    for (const s of this.card.overviews()) for (const v of s.step) steps.push(Number(v));
    return steps;
  }

  onKey(event, which) {
    const keys = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1, Home: -Infinity, End: Infinity };
    if (!(event.key in keys)) return;
    event.preventDefault();
    const steps = this.markerSteps();
    if (steps[which] === undefined) return;
    const all = this.cardSteps();
    if (!all.length) return;
    const dir = keys[event.key];
    const next = Number.isFinite(dir) ? neighbourStep(all, steps[which], dir) : dir > 0 ? Math.max(...all) : Math.min(...all);
    this.commit(which, next);
  }

  startDrag(event, which) {
    if (event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    const target = this.markers[which].el;
    target.setPointerCapture?.(event.pointerId);
    this.markers[which].handle.focus({ preventScroll: true });
    const move = (e) => {
      const step = this.stepAtPointer(e);
      if (step === null) return;
      this.dragging = { which, step };
      this.place();
    };
    const up = (e) => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
      target.removeEventListener("pointercancel", up);
      const drag = this.dragging;
      const step = e.type === "pointerup" ? this.stepAtPointer(e) : null;
      this.dragging = null;
      if (step !== null) this.commit(which, step);
      else if (drag) this.commit(which, drag.step);
      else this.place();
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", up);
    target.addEventListener("pointercancel", up);
  }

  /** The step under the pointer, clamped to the plot area. */
  stepAtPointer(event) {
    const full = this.card.plot._fullLayout;
    if (!full || !full.xaxis) return null;
    const xa = full.xaxis;
    const box = this.layer.getBoundingClientRect();
    const p = Math.min(Math.max(event.clientX - box.left - xa._offset, 0), xa._length);
    const { xAxis } = this.board.settings;
    const x = fromDisplayValue(xa.p2d(p), xAxis, this.card.unit);
    return stepAtX(x, xAxis, this.card.overviews());
  }

  /** A marker let go at `step`: the traits that say so (the board's, or the card's own). */
  commit(which, step) {
    const traits = this.traits;
    let selection;
    if (this.ranged()) {
      const now = this.reply && this.reply.range ? this.reply.range.slice() : [step, step];
      now[which] = step;
      selection = { step: null, range: [Math.min(...now), Math.max(...now)] };
    } else {
      selection = { step, range: null };
    }
    const writes = selectionWrites(traits, this.card.tag, selection);
    for (const [name, value] of Object.entries(writes)) this.board.model.set(name, value);
    this.board.model.save_changes();
  }

  // ---------------------------------------------------------------------------------- tooltip

  /** Whether the card draws its own tooltip (sorted or limited) instead of plotly's. */
  customTooltip() {
    const t = this.traits;
    return (t.tooltip_sort && t.tooltip_sort !== "default") || Number(t.tooltip_rows) > 0;
  }

  /** plotly's hover event: the rows in the chosen order, at most the chosen number. */
  hover(event) {
    if (!this.customTooltip() || !event || !event.points) return;
    const full = this.card.plot._fullLayout;
    const box = this.layer.getBoundingClientRect();
    const cursorY = event.event ? event.event.clientY - box.top : NaN;
    const rows = event.points.map((pt) => ({
      run: this.card.shown[this.card.smoothedTraces.indexOf(pt.curveNumber)]?.run ?? "",
      y: pt.y,
      pixelY: full.yaxis._offset + full.yaxis.l2p(full.yaxis.type === "log" ? Math.log10(pt.y) : pt.y),
      step: pt.customdata ? pt.customdata[1] : null,
    }));
    const t = this.traits;
    const shown = tooltipRows(rows, t.tooltip_sort, Number(t.tooltip_rows) || 0, cursorY);
    this.tip.replaceChildren(
      ...shown.map((row) =>
        h("div", { class: "tbnb-tip-row" }, h("span", { class: "tbnb-dot", style: { background: this.colorOf(row.run) } }), h("span", { text: row.run }), h("b", { text: formatValue(row.y) }), row.step !== null ? h("span", { text: `step ${Number(row.step).toLocaleString("en-US")}` }) : null),
      ),
    );
    if (shown.length < rows.length) this.tip.append(h("div", { class: "tbnb-tip-more", text: `${rows.length - shown.length} more` }));
    const x = event.event ? event.event.clientX - box.left : 0;
    Object.assign(this.tip.style, { left: `${Math.min(x + 12, Math.max(0, box.width - 220))}px`, top: `${Math.max(0, cursorY - 10)}px` });
    this.tip.hidden = false;
  }

  unhover() {
    this.tip.hidden = true;
  }
}
