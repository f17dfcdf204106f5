// Pushed replies: which card slot takes a reply the kernel's poll thread pushed.
import test from "node:test";
import assert from "node:assert/strict";
import { PushSlots, pushTarget, sameAsk } from "../../js/src/core/push.js";

const ask = (extra = {}) => ({ type: "series", tag: "loss", runs: ["a", "b"], x_axis: "step", range: null, width: 400, ...extra });
const push = (id, extra = {}) => ({ ...ask(extra), id, push: true, series: [] });
const request = (id, extra = {}) => ({ id, ask: ask(extra), deliver: () => {} });

test("a push goes to the request whose id it carries: pending, or the last applied", () => {
  const pending = request(7);
  const applied = request(5);
  assert.equal(pushTarget({ pending, applied }, push(7)), pending);
  assert.equal(pushTarget({ pending, applied }, push(5)), applied, "the kernel is busy: it remembers the older request");
  assert.equal(pushTarget({ pending: null, applied }, push(5)), applied);
  assert.equal(pushTarget({ pending, applied: null }, push(7)), pending);
});

test("by id even when the card asks something else now (its own reply will follow)", () => {
  const slot = { pending: request(7, { runs: ["a", "b", "c"] }), applied: request(5) };
  assert.equal(pushTarget(slot, push(5)), slot.applied);
});

test("another id is taken only when it asks the same as the slot's current request", () => {
  const slot = { pending: null, applied: request(5) };
  assert.equal(pushTarget(slot, push(99)), slot.applied, "a twin card's request, same data");
  assert.equal(pushTarget(slot, push(99, { width: 900 })), slot.applied, "any width");
  assert.equal(pushTarget(slot, push(99, { runs: ["a"] })), null);
  assert.equal(pushTarget(slot, push(99, { runs: ["b", "a"] })), null);
  assert.equal(pushTarget(slot, push(99, { x_axis: "wall" })), null);
  assert.equal(pushTarget(slot, push(99, { tag: "acc" })), null);
  assert.equal(pushTarget(slot, push(99, { range: [1, 2] })), null);
  assert.equal(pushTarget(slot, push(99, { type: "histograms" })), null);
  const pending = { pending: request(7, { runs: ["a"] }), applied: request(5) };
  assert.equal(pushTarget(pending, push(99)), null, "the current request is the pending one");
  assert.equal(pushTarget(pending, push(99, { runs: ["a"] })), pending.pending);
});

test("only pushes, and only for a slot that asked", () => {
  const slot = { pending: null, applied: request(5) };
  assert.equal(pushTarget(slot, { ...push(5), push: undefined }), null, "a plain reply goes through Requests");
  assert.equal(pushTarget({ pending: null, applied: null }, push(5)), null);
  assert.equal(pushTarget(null, push(5)), null);
  assert.equal(pushTarget(slot, null), null);
});

test("ranges compare by value; a histogram request has none", () => {
  assert.ok(sameAsk(ask({ range: [1, 2] }), ask({ range: [1, 2] })));
  assert.ok(!sameAsk(ask({ range: [1, 2] }), ask({ range: [1, 3] })));
  assert.ok(!sameAsk(ask({ range: [1, 2] }), ask({ range: null })));
  const hist = { type: "histograms", tag: "w", runs: ["a"], x_axis: "step" };
  assert.ok(sameAsk(hist, { ...hist, id: 3, push: true, series: [] }));
  assert.ok(!sameAsk(hist, null));
});

test("a scalar card's best mode is part of what it asks (a reply carries it back)", () => {
  assert.ok(sameAsk(ask({ best: "min" }), { ...ask({ best: "min" }), push: true }));
  assert.ok(!sameAsk(ask({ best: "min" }), ask({ best: "max" })));
  assert.ok(!sameAsk(ask({ best: "min" }), ask({})));
  assert.ok(sameAsk(ask({ best: null }), ask({})), "null and absent are the same: no best");
});

test("PushSlots: a reply settles the pending request; a failure keeps the last applied", () => {
  const slots = new PushSlots();
  const got = [];
  const deliver = (name) => (msg) => got.push([name, msg.id]);
  slots.asked("full", 1, ask(), deliver("full1"));
  slots.answered("full", 1);
  slots.asked("full", 2, ask(), deliver("full2"));
  slots.asked("zoom", 3, ask({ range: [0, 5] }), deliver("zoom3"));
  slots.answered("zoom", 3);
  // Busy kernel: it remembers request 1 (request 2 waits behind the running cell).
  assert.equal(slots.take(push(1)), 1);
  assert.deepEqual(got, [["full1", 1]]);
  slots.failed("full", 2); // timed out
  assert.equal(slots.take(push(1)), 1, "still the last applied one");
  assert.equal(slots.take(push(2)), 1, "same ask as the current request (1)");
  assert.equal(slots.take(push(3, { range: [0, 5] })), 1);
  assert.equal(slots.take(push(4, { range: [0, 6] })), 0, "another zoom: not this card's");
  assert.deepEqual(got.slice(1), [["full1", 1], ["full1", 2], ["zoom3", 3]]);
  slots.answered("full", 99); // not pending: no change
  assert.equal(slots.slot("full").applied.id, 1);
});
