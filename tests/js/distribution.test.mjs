// Distributions: the nine basis-point columns become nested bands, outermost (min..max) first.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  BANDS,
  BASIS_POINTS,
  LABELS,
  MEDIAN,
  distributionBands,
  fromDistributionMessage,
  rowOrder,
} from "../../js/src/dashboards/distributions/distribution.js";

const SHARED = JSON.parse(readFileSync(new URL("../../tbnb/board/constants.json", import.meta.url), "utf8"));

// Two steps; row r, column j holds 10 * r + j (so every value says where it came from).
const values = Float64Array.from({ length: 18 }, (_, k) => 10 * Math.floor(k / 9) + (k % 9));

test("the columns are the kernel's basis points (constants.json), min to max", () => {
  assert.deepEqual(BASIS_POINTS, SHARED.basis_points);
  assert.equal(BASIS_POINTS.length, LABELS.length);
  assert.equal(BASIS_POINTS[0], 0);
  assert.equal(BASIS_POINTS[MEDIAN], 5000);
  assert.equal(BASIS_POINTS[8], 10000);
  assert.equal(LABELS[0], "min");
  assert.equal(LABELS[MEDIAN], "median");
  assert.equal(LABELS[8], "max");
});

test("bands: outermost first (max..min), each inside the one before, then the median", () => {
  assert.deepEqual(BANDS, [[0, 8], [1, 7], [2, 6], [3, 5]]);
  const { bands, median } = distributionBands(values, [0, 1]);
  assert.deepEqual(bands.map((b) => [b.lowerColumn, b.upperColumn, b.depth]), [[0, 8, 0], [1, 7, 1], [2, 6, 2], [3, 5, 3]]);
  assert.deepEqual(Array.from(bands[0].lower), [0, 10]);
  assert.deepEqual(Array.from(bands[0].upper), [8, 18]);
  assert.deepEqual(Array.from(bands[3].lower), [3, 13]);
  assert.deepEqual(Array.from(bands[3].upper), [5, 15]);
  assert.deepEqual(Array.from(median), [4, 14]);
  for (let i = 1; i < bands.length; i++) {
    for (let k = 0; k < 2; k++) {
      assert.ok(bands[i].lower[k] >= bands[i - 1].lower[k] && bands[i].upper[k] <= bands[i - 1].upper[k], "nested");
    }
  }
});

test("rows follow x (a restarted run's wall time is not in index order); bad x dropped", () => {
  assert.deepEqual(rowOrder(Float64Array.from([5, 1, NaN, 3])), [1, 3, 0]);
  const { bands } = distributionBands(values, [1, 0]);
  assert.deepEqual(Array.from(bands[0].lower), [10, 0]);
});

test("a decoded reply: S rows of 9", () => {
  const d = fromDistributionMessage({ steps: BigInt64Array.from([1n, 2n]), x: Float64Array.from([1, 2]), values });
  assert.equal(d.n, 2);
  assert.deepEqual(Array.from(d.steps), [1, 2]);
  assert.equal(fromDistributionMessage({}).n, 0);
  assert.equal(fromDistributionMessage({ steps: [1, 2, 3], x: [1, 2, 3], values: new Float64Array(18) }).n, 2, "short values");
});
