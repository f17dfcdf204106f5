// The data table's pure rules: rows from a reply, sorting, cell text, the card's selection
// (linked or its own), where a dragged marker lands, arrow-key steps and tooltip order.
import test from "node:test";
import assert from "node:assert/strict";
import {
  cardSelection,
  closestIndex,
  columnsFor,
  formatCell,
  formatRelative,
  formatValue,
  neighbourStep,
  selectionWrites,
  sortRows,
  stepAtX,
  tableRows,
  tooltipRows,
} from "../../../js/src/cards/scalar/step_table.js";

const reply = {
  run: ["b", "a", "c"],
  step: BigInt64Array.from([5n, 10n, 10n]),
  value: Float64Array.from([2, NaN, -1]),
  smoothed: Float64Array.from([1.5, NaN, -0.5]),
  relative: Float64Array.from([200, 30, 7200]),
  wall: Float64Array.from([1e9, 1e9, 1e9]),
};

test("rows from a reply: steps as numbers, NaN as null", () => {
  const rows = tableRows(reply);
  assert.deepEqual(rows.map((r) => [r.run, r.step, r.value]), [["b", 5, 2], ["a", 10, null], ["c", 10, -1]]);
  const ranged = tableRows({ run: ["a"], step_at_min: BigInt64Array.from([-1n]), min: Float64Array.from([NaN]) });
  assert.equal(ranged[0].step_at_min, null);
});

test("sorting by a column: NaN last ascending (TensorBoard's -Infinity), stable", () => {
  const rows = tableRows(reply);
  assert.deepEqual(sortRows(rows, "value", "asc").map((r) => r.run), ["a", "c", "b"]);
  assert.deepEqual(sortRows(rows, "value", "desc").map((r) => r.run), ["b", "c", "a"]);
  assert.deepEqual(sortRows(rows, "run", "asc").map((r) => r.run), ["a", "b", "c"]);
  assert.deepEqual(sortRows(rows, "step", "asc").map((r) => r.run), ["b", "a", "c"]);
});

test("TensorBoard's column choices and cell text", () => {
  assert.deepEqual(columnsFor("step").filter((c) => c.on).map((c) => c.label), ["Smoothed", "Value", "Step", "Relative"]);
  assert.ok(["Min", "Max", "Mean", "Start value", "End value", "Value change"].every((l) => columnsFor("range").some((c) => c.label === l)));
  assert.equal(formatRelative(200), "3.33 min");
  assert.equal(formatRelative(12), "12 sec");
  assert.equal(formatRelative(7200), "2 hr");
  assert.equal(formatValue(0.084213), "0.08421");
  assert.equal(formatValue(null), "NaN");
  assert.equal(formatValue(-Infinity), "-Infinity");
  assert.equal(formatCell("step", 19999), "19,999");
  assert.equal(formatCell("percent_change", -0.5), "-50%");
});

test("a card's selection: the board's when linked, its own entry when not", () => {
  const traits = { selected_step: 7, selected_range: [9, 3], link_step: true, card_steps: { loss: { step: 2, range: null } } };
  assert.deepEqual(cardSelection(traits, "loss"), { step: 7, range: [3, 9] });
  assert.deepEqual(cardSelection({ ...traits, link_step: false }, "loss"), { step: 2, range: null });
  assert.deepEqual(cardSelection({ ...traits, link_step: false }, "acc"), { step: 7, range: [3, 9] });
  assert.deepEqual(cardSelection({ selected_step: null }, "loss"), { step: null, range: null });
  assert.deepEqual(selectionWrites(traits, "loss", { step: 4, range: null }), { selected_step: 4 });
  assert.deepEqual(selectionWrites(traits, "loss", { step: null, range: [1, 2] }), { selected_range: [1, 2] });
  assert.deepEqual(selectionWrites({ ...traits, link_step: false }, "acc", { step: 4, range: null }).card_steps.acc, { step: 4, range: null });
});

test("closest index: TensorBoard's findClosestIndex (ties to the earlier step)", () => {
  assert.equal(closestIndex([10, 20], 15), 0);
  assert.equal(closestIndex([10, 20], 16), 1);
  assert.equal(closestIndex([10, 30, 30, 40], 30), 2);
  assert.equal(closestIndex([10, 20], 99), 1);
  assert.equal(closestIndex([10, 20], -5), 0);
  assert.equal(closestIndex([], 3), -1);
  assert.equal(closestIndex(BigInt64Array.from([0n, 5n]), 4), 1);
});

test("a dragged marker's step: whole steps on the step axis, the nearest point's on time axes", () => {
  assert.equal(stepAtX(41.6, "step", []), 42);
  const s = { x: Float64Array.from([0, 10, 20]), step: BigInt64Array.from([0n, 100n, 200n]) };
  assert.equal(stepAtX(13, "relative", [s]), 100);
  assert.equal(stepAtX(16, "wall", [{ x: [], step: [] }, s]), 200);
  assert.equal(stepAtX(16, "wall", []), null);
});

test("arrow keys move through the card's steps", () => {
  const steps = [0, 10, 20, 10, 30];
  assert.equal(neighbourStep(steps, 10, 1), 20);
  assert.equal(neighbourStep(steps, 10, -1), 0);
  assert.equal(neighbourStep(steps, 15, -1), 10);
  assert.equal(neighbourStep(steps, 30, 1), 30);
});

test("tooltip rows: default order, by value, nearest pixel first, limited", () => {
  const rows = [{ run: "a", y: 2, pixelY: 50 }, { run: "b", y: 1, pixelY: 80 }, { run: "c", y: 3, pixelY: 10 }];
  assert.deepEqual(tooltipRows(rows, "default", 0, 0).map((r) => r.run), ["a", "b", "c"]);
  assert.deepEqual(tooltipRows(rows, "ascending", 0, 0).map((r) => r.run), ["b", "a", "c"]);
  assert.deepEqual(tooltipRows(rows, "descending", 2, 0).map((r) => r.run), ["c", "a"]);
  assert.deepEqual(tooltipRows(rows, "nearest", 0, 75).map((r) => r.run), ["b", "a", "c"]);
  assert.deepEqual(tooltipRows(rows, "nearest", 1, 12).map((r) => r.run), ["c"]);
});
