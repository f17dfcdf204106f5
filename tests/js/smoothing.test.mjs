// Smoothing must equal TensorBoard's debiased EMA (tensorboard-format.md section 6).
import test from "node:test";
import assert from "node:assert/strict";
import { clampWeight, smooth } from "../../js/src/smoothing.js";

// The algorithm exactly as the doc states it, on plain arrays: the oracle.
function reference(ys, weight) {
  let w = Number.isFinite(weight) ? weight : 0;
  w = Math.min(1, Math.max(0, w));
  if (ys.every((y) => y == ys[0])) return ys.slice();
  let last = 0;
  let n = 0;
  return ys.map((y) => {
    if (!Number.isFinite(y)) return y;
    last = last * w + (1 - w) * y;
    n += 1;
    return last / (w === 1 ? 1 : 1 - w ** n);
  });
}

function same(actual, expected) {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    const [a, e] = [actual[i], expected[i]];
    if (Number.isNaN(e)) assert.ok(Number.isNaN(a), `index ${i}: ${a} is not NaN`);
    else assert.ok(a === e || Math.abs(a - e) <= 1e-12 * Math.max(1, Math.abs(e)), `index ${i}: ${a} != ${e}`);
  }
}

test("first point is the value itself (debiasing)", () => {
  const out = smooth([5, 7], 0.6);
  assert.equal(out[0], 5);
  // (0.6*0.4*5 + 0.4*7) / (1 - 0.36)
  assert.ok(Math.abs(out[1] - (0.6 * 0.4 * 5 + 0.4 * 7) / 0.64) < 1e-12);
});

test("hand-computed values at w=0.6", () => {
  const ys = [1, 2, 3];
  let last = 0;
  const expected = ys.map((y, i) => {
    last = last * 0.6 + 0.4 * y;
    return last / (1 - 0.6 ** (i + 1));
  });
  same(smooth(ys, 0.6), expected);
  assert.ok(Math.abs(expected[1] - 1.625) < 1e-12);
});

test("w = 0 returns the values", () => {
  same(smooth([3, -1, 4, 1, 5], 0), [3, -1, 4, 1, 5]);
});

test("w = 0.999 matches the reference on a long noisy series", () => {
  const ys = Array.from({ length: 5000 }, (_, i) => Math.exp(-i / 800) + 0.1 * Math.sin(i * 1.7));
  same(smooth(ys, 0.999), reference(ys, 0.999));
});

test("w = 1 and above clamp to 1 (the average never moves from 0)", () => {
  same(smooth([1, 2, 3], 1), reference([1, 2, 3], 1));
  same(smooth([1, 2, 3], 1.5), reference([1, 2, 3], 1));
  same(smooth([1, 2, 3], 1.5), [0, 0, 0]);
  assert.equal(clampWeight(7), 1);
});

test("negative and non-finite weights", () => {
  same(smooth([1, 2, 3], -0.5), [1, 2, 3]);
  same(smooth([1, 2, 3], NaN), [1, 2, 3]);
  same(smooth([1, 2, 3], Infinity), [1, 2, 3]);
  assert.equal(clampWeight(-Infinity), 0);
});

test("NaN and infinities pass through and do not enter the average", () => {
  const ys = [1, NaN, 3, Infinity, -Infinity, 5, NaN];
  const out = smooth(ys, 0.6);
  same(out, reference(ys, 0.6));
  assert.ok(Number.isNaN(out[1]));
  assert.equal(out[3], Infinity);
  assert.equal(out[4], -Infinity);
  // The point after the NaN is the second finite point: n = 2.
  assert.ok(Math.abs(out[2] - (0.6 * 0.4 * 1 + 0.4 * 3) / (1 - 0.36)) < 1e-12);
});

test("a constant series is returned unchanged (TensorBoard #786)", () => {
  same(smooth([0.3, 0.3, 0.3, 0.3], 0.9), [0.3, 0.3, 0.3, 0.3]);
  same(smooth([7], 0.6), [7]);
  // NaN never equals NaN: a series of NaN is not "constant", but every point passes through.
  same(smooth([NaN, NaN], 0.6), [NaN, NaN]);
});

test("empty input and typed arrays", () => {
  assert.equal(smooth([], 0.6).length, 0);
  const out = smooth(new Float32Array([1, 2, 4]), 0.5);
  assert.ok(out instanceof Float64Array);
  same(out, reference([1, 2, 4], 0.5));
});

test("matches the reference on random series and weights", () => {
  let seed = 1;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const specials = [NaN, Infinity, -Infinity];
  for (let k = 0; k < 300; k++) {
    const n = Math.floor(rand() * 60);
    const ys = Array.from({ length: n }, () => (rand() < 0.08 ? specials[Math.floor(rand() * 3)] : (rand() - 0.5) * 1e3));
    const w = [0, 0.6, 0.999, 1, rand()][k % 5];
    same(smooth(ys, w), reference(ys, w));
  }
});
