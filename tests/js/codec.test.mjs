// The codec: placeholders {buffer, dtype, shape} <-> typed arrays, buffers as DataViews.
import test from "node:test";
import assert from "node:assert/strict";
import { decode, dtypeOf, encode, toNumbers, toTypedArray } from "../../js/src/core/codec.js";

test("round trip float64/float32/int64/uint8 with shapes", () => {
  const x = new Float64Array([0.5, -1e300, NaN, Infinity]);
  const f = new Float32Array([1.5, 2.25, -3, 4, 5, 6]);
  Object.defineProperty(f, "shape", { value: [2, 3] });
  const s = new BigInt64Array([0n, 9007199254740993n, -5n]);
  const b = new Uint8Array([0, 1, 255]);
  const { content, buffers } = encode({ type: "series", series: [{ run: "a", x, f, s }], b, n: 3 });
  assert.deepEqual(content.series[0].x, { buffer: 0, dtype: "float64", shape: [4] });
  assert.deepEqual(content.series[0].f, { buffer: 1, dtype: "float32", shape: [2, 3] });
  assert.deepEqual(content.series[0].s, { buffer: 2, dtype: "int64", shape: [3] });
  assert.deepEqual(content.b, { buffer: 3, dtype: "uint8", shape: [3] });
  assert.ok(buffers.every((d) => d instanceof DataView));
  // Through JSON, as the comm would carry the content.
  const back = decode(JSON.parse(JSON.stringify(content)), buffers);
  assert.equal(back.type, "series");
  assert.equal(back.n, 3);
  assert.ok(back.series[0].x instanceof Float64Array);
  assert.deepEqual([...back.series[0].x], [...x]);
  assert.deepEqual(back.series[0].f.shape, [2, 3]);
  assert.deepEqual([...back.series[0].f], [...f]);
  assert.ok(back.series[0].s instanceof BigInt64Array);
  assert.equal(back.series[0].s[1], 9007199254740993n);
  assert.deepEqual([...back.b], [0, 1, 255]);
});

test("DataViews at offsets into one shared ArrayBuffer", () => {
  const shared = new ArrayBuffer(64);
  const bytes = new Uint8Array(shared);
  // float64 [1.5, -2] at offset 8 (aligned), int64 [7] at offset 24, uint8 [9, 8, 7] at offset 33,
  // float32 [0.25] at offset 37 (not aligned to 4: must be copied).
  new DataView(shared).setFloat64(8, 1.5, true);
  new DataView(shared).setFloat64(16, -2, true);
  new DataView(shared).setBigInt64(24, 7n, true);
  bytes.set([9, 8, 7], 33);
  new DataView(shared).setFloat32(37, 0.25, true);
  const buffers = [new DataView(shared, 8, 16), new DataView(shared, 24, 8), new DataView(shared, 33, 3), new DataView(shared, 37, 4)];
  const msg = decode(
    {
      a: { buffer: 0, dtype: "float64", shape: [2] },
      b: { buffer: 1, dtype: "int64", shape: [1] },
      c: { buffer: 2, dtype: "uint8", shape: [3] },
      d: { buffer: 3, dtype: "float32", shape: [1] },
    },
    buffers,
  );
  assert.deepEqual([...msg.a], [1.5, -2]);
  assert.equal(msg.a.buffer, shared, "aligned float64 is a view, not a copy");
  assert.deepEqual([...msg.b], [7n]);
  assert.deepEqual([...msg.c], [9, 8, 7]);
  assert.deepEqual([...msg.d], [0.25]);
  assert.notEqual(msg.d.buffer, shared, "unaligned float32 is copied");
});

test("shape checks and bad placeholders", () => {
  const dv = new DataView(new Float64Array([1, 2, 3, 4, 5, 6]).buffer);
  assert.deepEqual(toTypedArray(dv, "float64", [2, 3]).shape, [2, 3]);
  assert.deepEqual(toTypedArray(dv, "float64").shape, [6]);
  assert.throws(() => toTypedArray(dv, "float64", [4]), RangeError);
  assert.throws(() => toTypedArray(new DataView(new ArrayBuffer(7)), "float64"), RangeError);
  assert.throws(() => toTypedArray(dv, "complex64"), TypeError);
  assert.throws(() => decode({ a: { buffer: 2, dtype: "uint8", shape: [1] } }, [dv]), RangeError);
});

test("empty arrays, ArrayBuffer and Uint8Array buffers", () => {
  const empty = decode({ a: { buffer: 0, dtype: "float64", shape: [0] } }, [new DataView(new ArrayBuffer(0))]);
  assert.equal(empty.a.length, 0);
  const fromAb = toTypedArray(new Float32Array([3]).buffer, "float32", [1]);
  assert.deepEqual([...fromAb], [3]);
  const u8 = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]).subarray(8);
  assert.deepEqual([...toTypedArray(u8, "int64", [1])], [1n]);
});

test("other values are left alone; decode does not mutate its input", () => {
  const content = { type: "x", list: [1, "a", null, { buffer: "no" }], nested: { deep: true } };
  const copy = JSON.parse(JSON.stringify(content));
  assert.deepEqual(decode(content, []), copy);
  assert.deepEqual(content, copy);
});

test("dtypeOf and toNumbers", () => {
  assert.equal(dtypeOf(new Int32Array(1)), "int32");
  assert.throws(() => dtypeOf([1, 2]), TypeError);
  const steps = toNumbers(new BigInt64Array([1n, 2n, 9007199254740991n]));
  assert.ok(steps instanceof Float64Array);
  assert.deepEqual([...steps], [1, 2, 9007199254740991]);
  const same = new Float64Array([1]);
  assert.equal(toNumbers(same), same);
});
