// Ticks of the histogram offset view's time axis: round values inside the data's span.
import test from "node:test";
import assert from "node:assert/strict";
import { niceTicks, timeTicks, wallTicks } from "../../js/src/dashboards/histograms/ticks.js";

test("nice ticks: 1, 2, 5 times a power of ten, inside the span", () => {
  assert.deepEqual(niceTicks(0, 100, 5), [0, 20, 40, 60, 80, 100]);
  assert.deepEqual(niceTicks(3, 97, 4), [20, 40, 60, 80]);
  assert.ok(niceTicks(3, 97, 4).every((v) => v >= 3 && v <= 97));
  assert.deepEqual(niceTicks(0.1, 0.3, 2), [0.1, 0.2, 0.3]);
  assert.deepEqual(niceTicks(5, 5), [5]);
  assert.deepEqual(niceTicks(NaN, 1), []);
});

test("step ticks are whole steps, labelled with separators", () => {
  assert.deepEqual(timeTicks(0, 2, "step", "", 5).tickvals, [0, 1, 2]);
  assert.deepEqual(timeTicks(0, 20000, "step", "", 2).ticktext, ["0", "10,000", "20,000"]);
  assert.deepEqual(timeTicks(0, 3, "relative", "min", 3).ticktext, ["0 min", "1 min", "2 min", "3 min"]);
});

test("wall ticks fall on round minutes or hours", () => {
  const t0 = Date.UTC(2024, 0, 1, 10, 3, 7);
  const ticks = wallTicks(t0, t0 + 3 * 3600e3, 3);
  assert.ok(ticks.length >= 3 && ticks.every((t) => t % 3600e3 === 0));
  const { ticktext } = timeTicks(t0, t0 + 3 * 3600e3, "wall", "", 3);
  assert.equal(ticktext[0], "11:00");
});
