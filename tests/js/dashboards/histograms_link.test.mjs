// Link by step on histogram cards: the ridge (OFFSET) or line (OVERLAY) of the selected step's
// nearest logged step at or before it is drawn bold; none without link by step.
import test from "node:test";
import assert from "node:assert/strict";
import { HistogramCard } from "../../../js/src/dashboards/histograms/histograms.js";

function card(mode, traits) {
  const c = Object.create(HistogramCard.prototype);
  const values = { histogram_mode: mode, ...traits };
  c.board = {
    model: { get: (name) => values[name] },
    trait: (name) => values[name],
    colors: { text: "#111111", background: "#ffffff", border: "#dddddd" },
    colorOf: () => "#12b5cb",
  };
  c.plot = { clientHeight: 230 };
  c.section = "group";
  c.kind = "histograms";
  c.tag = "w";
  c.run = "a";
  c.expanded = false;
  const steps = new Float64Array([0, 10, 20, 30]);
  c.data = { steps, x: steps, edges: new Float64Array([0, 1, 2, 3]), counts: new Float64Array([1, 2, 3, 2, 2, 1, 3, 1, 2, 1, 1, 1]), bins: 3, axis: "step", unit: null };
  return c;
}

const bold = (traces, key) => traces.map((t, i) => [i, t]).filter(([, t]) => key(t)).map(([i, t]) => t.customdata[0][0]);

test("OFFSET: the ridge of the linked step is outlined bold", () => {
  const { traces } = card("offset", { link_step: true, selected_step: 25 }).figure();
  assert.deepEqual(bold(traces, (t) => t.line.width === 2), [20], "25 is not logged: 20, the step at or before it");
  assert.deepEqual(bold(card("offset", { link_step: false, selected_step: 25 }).figure().traces, (t) => t.line.width === 2), []);
  assert.deepEqual(bold(card("offset", { link_step: true, selected_step: null }).figure().traces, (t) => t.line.width === 2), []);
});

test("OVERLAY: the line of the linked step is drawn bold", () => {
  const { traces } = card("overlay", { selected_step: 30 }).figure();
  assert.deepEqual(bold(traces, (t) => t.line.width === 3), [30]);
  assert.equal(traces.length, 4);
});

test("compare runs: each run's histogram at the linked step (else the latest), one line a run", () => {
  const c = card("offset", { link_step: true, selected_step: 15 });
  const mk = (run, steps, rows) => ({ run, steps: new Float64Array(steps), edges: new Float64Array([0, 1, 2, 3]), bins: 3, counts: new Float64Array(rows.flat()) });
  c.comparing = true;
  c.compared = [mk("a", [0, 10, 20], [[1, 1, 1], [2, 5, 2], [9, 9, 9]]), mk("b", [12], [[4, 0, 1]]), mk("late", [30], [[1, 2, 3]])];
  const { traces } = c.figure();
  assert.deepEqual(traces.map((t) => [t.name, t.x, t.y]), [
    ["a · step 10", [0.5, 1.5, 2.5], [2, 5, 2]],
    ["b · step 12", [0.5, 1.5, 2.5], [4, 0, 1]],
  ], "late logged nothing at or before 15: left out");
  c.board.model.get = (name) => (name === "link_step" ? false : null);
  assert.deepEqual(c.figure().traces.map((t) => t.name), ["a · step 20", "b · step 12", "late · step 30"], "unlinked: the latest step of any run");
});
