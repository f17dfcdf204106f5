// The x axes beyond step, relative and wall: log step (plotly's log ranges are in log10), relative
// step and a scalar tag's values; charts that know only the fixed axes draw a tag axis as steps.
import test from "node:test";
import assert from "node:assert/strict";
import { fromDisplayRange, isTagAxis, plainAxis, toDisplayRange, toDisplayX, xAxisLayout } from "../../js/src/xaxis.js";
import { tagAxes } from "../../js/src/widgets/compare_settings.js";

test("log step: a log axis, ranges to and from log10", () => {
  assert.equal(xAxisLayout("log_step").type, "log");
  assert.deepEqual(toDisplayRange([10, 1000], "log_step"), [1, 3]);
  assert.deepEqual(fromDisplayRange([1, 3], "log_step"), [10, 1000]);
  assert.deepEqual(fromDisplayRange([3, 1], "log_step"), [10, 1000]);
  const x = Float64Array.from([1, 10, 100]);
  assert.equal(toDisplayX(x, "log_step"), x, "drawn as they are");
});

test("relative step and tag axes are drawn as they are, on linear axes", () => {
  assert.equal(xAxisLayout("relative_step").type, "linear");
  assert.equal(xAxisLayout("epoch").type, "linear");
  assert.equal(xAxisLayout("epoch").hoverformat, ".4~g", "a tag's values need not be whole");
  assert.deepEqual(fromDisplayRange([0.5, 2.5], "epoch"), [0.5, 2.5]);
  assert.equal(isTagAxis("epoch"), true);
  assert.equal(isTagAxis("relative_step"), false);
  assert.equal(plainAxis("epoch"), "step");
  assert.equal(plainAxis("wall"), "wall");
});

test("the settings offer the index's scalar tags as x axes, and the current one", () => {
  const index = { plugins: new Map([["scalars", new Map([["loss", {}], ["epoch", {}]])]]) };
  assert.deepEqual(tagAxes(index, "step"), ["epoch", "loss"]);
  assert.deepEqual(tagAxes(index, "tokens"), ["epoch", "loss", "tokens"]);
  assert.deepEqual(tagAxes(null, "step"), []);
});
