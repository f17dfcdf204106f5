// y domains: TensorBoard's ignore-outliers rule, linear padding and nice(), log domain.
import test from "node:test";
import assert from "node:assert/strict";
import { extentOfSorted, linearDomain, logDomain, nice, yDomain } from "../../js/src/cards/scalar/outliers.js";

test("nice() equals d3-scale 4 (values computed with d3-scale 4.0.2)", () => {
  const cases = [
    [[0, 1], [0, 1]],
    [[-0.37, 12.4], [-1, 13]],
    [[1e-9, 3e-9], [1e-9, 3e-9]],
    [[123456, 123457], [123456, 123457]],
    [[-5, -4.99], [-5, -4.99]],
    [[0.0999, 0.1001], [0.0999, 0.1001]],
    [[-1e12, 1e12], [-1e12, 1e12]],
    [[0.841, 0.9311], [0.84, 0.94]],
    [[-2.5, 0.0071], [-2.6, 0.2]],
  ];
  for (const [[a, b], expected] of cases) assert.deepEqual(nice(a, b), expected, `nice(${a}, ${b})`);
});

test("linear domain: 5% padding then nice (d3-scale values)", () => {
  assert.deepEqual(linearDomain(0.1, 0.9), [0, 1]);
  assert.deepEqual(linearDomain(-3, 7), [-4, 8]);
  assert.deepEqual(linearDomain(1000, 1001), [999.9, 1001.1]);
  assert.deepEqual(linearDomain(0.0746, 0.8942), [0, 1]);
});

test("linear domain when min == max", () => {
  assert.deepEqual(linearDomain(0, 0), [-1, 1]);
  assert.deepEqual(linearDomain(-2, -2), [-4, 0]);
  assert.deepEqual(linearDomain(3, 3), [0, 6]);
});

test("log domain: halve the min, double the max", () => {
  assert.deepEqual(logDomain(0.01, 10), [0.005, 20]);
  assert.deepEqual(logDomain(5, 5), [2.5, 10]);
  assert.deepEqual(logDomain(-1, 0), [Number.MIN_VALUE, 1]);
  assert.deepEqual(logDomain(Number.MIN_VALUE, 1), [Number.MIN_VALUE, 2]);
});

test("ignore outliers: n <= 2 keeps min and max", () => {
  assert.equal(extentOfSorted([], true), null);
  assert.deepEqual(extentOfSorted([4], true), [4, 4]);
  assert.deepEqual(extentOfSorted([1, 100], true), [1, 100]);
});

test("ignore outliers: n > 2 takes ys[ceil((n-1)*0.05)] and ys[floor((n-1)*0.95)]", () => {
  assert.deepEqual(extentOfSorted([1, 2, 3], true), [2, 2]); // ceil(0.1) = 1, floor(1.9) = 1
  const ys = Array.from({ length: 101 }, (_, i) => i); // n-1 = 100: indices 5 and 95
  assert.deepEqual(extentOfSorted(ys, true), [5, 95]);
  const ys21 = Array.from({ length: 21 }, (_, i) => i * 10); // n-1 = 20: indices 1 and 19
  assert.deepEqual(extentOfSorted(ys21, true), [10, 190]);
  assert.deepEqual(extentOfSorted(ys21, false), [0, 200]);
});

test("yDomain pools runs, skips non-finite values and spikes", () => {
  const a = { y: [0.5, 0.6, NaN, 0.7, 1000] };
  const b = { y: [0.4, Infinity, 0.55, -Infinity, 0.65] };
  // Finite values sorted: 0.4 0.5 0.55 0.6 0.65 0.7 1000 (n=7): indices ceil(0.3)=1, floor(5.7)=5.
  const expected = linearDomain(0.5, 0.7);
  assert.deepEqual(yDomain([a, b], { ignoreOutliers: true }), expected);
  assert.deepEqual(yDomain([a, b], { ignoreOutliers: false }), linearDomain(0.4, 1000));
  assert.equal(yDomain([{ y: [NaN] }], {}), null);
  assert.equal(yDomain([], {}), null);
});

test("yDomain on a log axis counts only values > 0", () => {
  const s = { y: [-5, 0, 0.1, 1, 10] };
  assert.deepEqual(yDomain([s], { log: true, ignoreOutliers: false }), [0.05, 20]);
  assert.equal(yDomain([{ y: [-1, 0] }], { log: true }), null);
});

test("yDomain limited to an x range (a zoomed card)", () => {
  const s = { x: [0, 1, 2, 3, 4], y: [100, 1, 2, 3, -100] };
  assert.deepEqual(yDomain([s], { ignoreOutliers: false, xRange: [1, 3] }), linearDomain(1, 3));
});
