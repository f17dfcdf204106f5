// Requests: ids, the in-flight cap, priorities, superseded and timed-out requests.
import test from "node:test";
import assert from "node:assert/strict";
import { Requests } from "../../js/src/core/requests.js";

function fakeTimers() {
  const timers = new Map();
  let next = 1;
  return {
    setTimer: (fn) => {
      timers.set(next, fn);
      return next++;
    },
    clearTimer: (id) => timers.delete(id),
    schedule: (fn) => fn(), // send at once: these tests follow the order of sending
    fireAll: () => {
      for (const [id, fn] of [...timers]) {
        timers.delete(id);
        fn();
      }
    },
  };
}

test("ids are filled in and unique; replies reach their request", () => {
  const sent = [];
  const r = new Requests((c) => sent.push(c), { maxInFlight: 4, ...fakeTimers() });
  const got = [];
  const a = r.enqueue({ type: "series", tag: "a" }, { onReply: (m) => got.push(["a", m.x]) });
  const b = r.enqueue({ type: "series", tag: "b" }, { onReply: (m) => got.push(["b", m.x]) });
  assert.notEqual(a, b);
  assert.deepEqual(sent.map((c) => c.id), [a, b]);
  assert.ok(Number.isSafeInteger(a));
  assert.equal(r.handle({ type: "series", id: b, x: 2 }), true);
  assert.equal(r.handle({ type: "series", id: a, x: 1 }), true);
  assert.deepEqual(got, [["b", 2], ["a", 1]]);
  assert.equal(r.handle({ type: "series", id: a }), false, "answered once");
  assert.equal(r.handle({ type: "series", id: 12345 }), false, "not ours");
  const other = new Requests(() => {}, fakeTimers());
  assert.notEqual(other.newId(), new Requests(() => {}, fakeTimers()).newId(), "two views do not share ids");
});

test("at most maxInFlight at once, highest priority first", () => {
  const sent = [];
  const r = new Requests((c) => sent.push(c.tag), { maxInFlight: 2, ...fakeTimers() });
  const prio = { a: 0, b: 0, c: 1, d: 10 };
  const ids = {};
  for (const tag of ["a", "b", "c", "d"]) ids[tag] = r.enqueue({ tag }, { priority: () => prio[tag] });
  assert.deepEqual(sent, ["a", "b"]);
  r.handle({ type: "series", id: ids.a });
  assert.deepEqual(sent, ["a", "b", "d"]);
  prio.c = -1;
  r.handle({ type: "series", id: ids.b });
  assert.deepEqual(sent, ["a", "b", "d", "c"]);
});

test("a newer request with the same key replaces a queued one and makes an in-flight one stale", () => {
  const sent = [];
  const r = new Requests((c) => sent.push(c), { maxInFlight: 1, ...fakeTimers() });
  const got = [];
  const first = r.enqueue({ v: 1 }, { key: "k", onReply: () => got.push(1) });
  r.enqueue({ v: 0 }, { key: "other" });
  r.enqueue({ v: 2 }, { key: "other", onReply: () => got.push("other") });
  const third = r.enqueue({ v: 3 }, { key: "k", onReply: () => got.push(3) });
  assert.equal(r.handle({ type: "series", id: first }), true, "stale reply is consumed...");
  assert.deepEqual(got, [], "...but not delivered");
  // queue now: other(v2), k(v3): both priority 0, first queued first
  assert.deepEqual(sent.map((c) => c.v), [1, 2]);
  r.handle({ type: "series", id: sent[1].id });
  r.handle({ type: "series", id: third });
  assert.deepEqual(got, ["other", 3]);
});

test("errors with an id reach onError; cancel drops queued requests", () => {
  const timers = fakeTimers();
  const sent = [];
  const r = new Requests((c) => sent.push(c), { maxInFlight: 1, ...timers });
  const errors = [];
  const a = r.enqueue({}, { key: "a", onError: (m) => errors.push(m) });
  r.enqueue({}, { key: "b" });
  r.cancel("b");
  assert.equal(r.handle({ type: "error", id: a, message: "no such tag" }), true);
  assert.deepEqual(errors, ["no such tag"]);
  assert.equal(sent.length, 1, "b was cancelled before it was sent");
});

test("a request with no answer times out and frees its slot", () => {
  const timers = fakeTimers();
  const sent = [];
  const r = new Requests((c) => sent.push(c), { maxInFlight: 1, ...timers });
  const errors = [];
  r.enqueue({ n: 1 }, { onError: (m) => errors.push(m) });
  r.enqueue({ n: 2 });
  assert.equal(sent.length, 1);
  timers.fireAll();
  assert.equal(errors.length, 1);
  assert.match(errors[0], /no answer/);
  assert.equal(sent.length, 2);
});

test("sendNow is outside the cap; destroy forgets everything", () => {
  const sent = [];
  const r = new Requests((c) => sent.push(c), { maxInFlight: 1, ...fakeTimers() });
  r.enqueue({ n: 1 });
  let text = null;
  const d = r.sendNow({ type: "csv" }, { onReply: (m) => (text = m.text) });
  assert.equal(sent.length, 2);
  r.handle({ type: "download", id: d, text: "step,value" });
  assert.equal(text, "step,value");
  r.destroy();
  r.enqueue({ n: 3 });
  assert.equal(sent.length, 2);
});

test("requests queued in one task are ranked before any is sent", async () => {
  const sent = [];
  const r = new Requests((c) => sent.push(c.tag), { maxInFlight: 1, timeoutMs: 1000 });
  r.enqueue({ tag: "near" }, { priority: () => 5 });
  r.enqueue({ tag: "visible" }, { priority: () => 10 });
  assert.deepEqual(sent, [], "nothing sent within the task");
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(sent, ["visible"]);
  r.destroy();
});
