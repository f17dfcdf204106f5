// A scalar card's run comparison on the page: the best point markers, the focused run, lines
// broken where x goes back (scalar_compare.js computes them), a click on a line focusing its
// run on every card (the `focus` trait), and Escape clearing it. One per ScalarCard.

import { COMPARE_TRAITS, applyFocus, bestMode, bestOf, bestTrace, breakBackwards, clickedRun } from "./scalar_compare.js";
import { nextFocus } from "../../focus.js";

const ESCAPE_BOARDS = new WeakSet(); // boards whose root clears the focus on Escape

export class CompareView {
  constructor(card) {
    this.card = card;
    this.board = card.board;
    this.best = new Map(); // run -> {value, step, x}: the last overview reply's
    this.absent = []; // runs the x axis cannot place (a tag axis they lack)
    this.dropped = new Map(); // run -> points the x axis leaves out
    watchEscape(this.board);
  }

  /** The fields a series or download request carries for these settings. */
  request() {
    return { best: bestMode(this.board) };
  }

  /** An overview reply arrived: keep its best points and what the axis could not place. */
  take(msg) {
    this.best = bestOf(msg);
    this.absent = Array.isArray(msg.absent) ? msg.absent.map(String) : [];
    this.dropped = new Map((msg.series || []).map((e) => [e.run, Number(e.dropped) || 0]));
  }

  /** For the card's sub-title: runs absent from the axis and points it leaves out. */
  missing(runs) {
    return { absent: this.absent, dropped: runs.reduce((sum, run) => sum + (this.dropped.get(run) || 0), 0) };
  }

  /** How scalarTraces prepares each run's series: broken where x goes back, when asked. */
  prepare() {
    return this.board.model.get("partition_x") === true ? breakBackwards : null;
  }

  /** The drawn traces plus the best markers, faded around the focused run. */
  decorate(drawn, xAxis) {
    const mode = bestMode(this.board);
    const best = mode
      ? bestTrace({ runs: drawn.shown.map((line) => line.run), best: this.best, mode, xAxis, unit: this.card.unit, colorOf: (run) => this.board.colorOf(run) })
      : null;
    if (best) drawn.traces.push(best);
    applyFocus({ ...drawn, best }, this.board.model.get("focus"));
    return drawn;
  }

  /** A comparison trait changed: "best" needs the kernel's points, the others a redraw. */
  settingChanged(name) {
    if (name === "best") this.card.invalidate();
    else this.card.redraw();
  }

  /** The chart was drawn for the first time: listen to clicks on it. */
  listen(plot) {
    plot.setAttribute("tabindex", "-1"); // focusable: a click on a line focuses it (see click)
    plot.on("plotly_click", (event) => this.click(event));
  }

  /** A click on the chart: focus the clicked line's run, or clear the focus on it. */
  click(event) {
    const card = this.card;
    const full = card.plot._fullLayout;
    if (!full || !event) return;
    const ya = full.yaxis;
    const box = card.plot.getBoundingClientRect();
    const clickY = event.event ? event.event.clientY - box.top : NaN;
    const pixelOf = (pt) => ya._offset + ya.l2p(ya.type === "log" ? Math.log10(pt.y) : pt.y);
    const runOf = (curve) => card.shown[card.smoothedTraces.indexOf(curve)]?.run;
    const run = clickedRun(event.points, clickY, pixelOf, runOf);
    if (run === null) return;
    // plotly's drag layer keeps the click from moving the focus: move it, so Escape reaches the board
    card.plot.focus({ preventScroll: true });
    this.board.setTrait("focus", nextFocus(this.board.model.get("focus"), run));
  }
}

/** Escape anywhere in the board clears the focus (once per board). */
function watchEscape(board) {
  if (ESCAPE_BOARDS.has(board)) return;
  ESCAPE_BOARDS.add(board);
  board.root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && board.model.get("focus")) board.setTrait("focus", null);
  });
}

export { COMPARE_TRAITS };
