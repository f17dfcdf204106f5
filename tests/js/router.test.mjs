// The router: replies to their requests (decoded), pushed replies to the cards, "changed" to the
// cards it touches, errors to their request or a banner, and one index request at a time.
import test from "node:test";
import assert from "node:assert/strict";
import { encode } from "../../js/src/core/codec.js";
import { Router, changedCards } from "../../js/src/core/router.js";

function setup({ cards = [] } = {}) {
  const sent = [];
  const indexes = [];
  const banners = [];
  const router = new Router(
    { send: (content) => sent.push(content), cards: () => cards, onIndex: (msg) => indexes.push(msg), onBanner: (text) => banners.push(text) },
    { schedule: (fn) => fn(), setTimer: () => 0, clearTimer: () => {} },
  );
  return { router, sent, indexes, banners };
}

function card(tag, runs) {
  return { tag, runs: () => runs, invalidated: 0, pushes: [], invalidate() { this.invalidated += 1; }, takePush(msg, buffers) { this.pushes.push([msg, buffers]); } };
}

test("a reply with one of our ids is decoded and delivered; others are dropped", () => {
  const { router, sent } = setup();
  const got = [];
  const id = router.enqueue({ type: "series", tag: "loss" }, { onReply: (msg) => got.push(msg) });
  assert.equal(sent[0].id, id);
  const { content, buffers } = encode({ type: "series", id, series: [{ run: "a", x: Float64Array.from([1, 2]) }] });
  router.receive({ ...content, id: id + 1 }, buffers);
  assert.equal(got.length, 0, "not ours");
  router.receive(content, buffers);
  assert.equal(got.length, 1);
  assert.deepEqual(Array.from(got[0].series[0].x), [1, 2]);
  router.receive(content, buffers);
  assert.equal(got.length, 1, "answered once");
});

test("any reply type is routed by id: a new dashboard's replies need no change here", () => {
  const { router } = setup();
  const got = [];
  const id = router.sendNow({ type: "graph", run: "a" }, { onReply: (msg) => got.push(msg.type) });
  router.receive({ type: "graph", id, nodes: [] });
  assert.deepEqual(got, ["graph"]);
});

test("a reply that cannot be decoded fails its request", () => {
  const { router } = setup();
  const errors = [];
  const id = router.enqueue({ type: "series" }, { onError: (message) => errors.push(message) });
  router.receive({ type: "series", id, series: [{ x: { buffer: 3, dtype: "float64", shape: [1] } }] }, []);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /^bad reply: /);
});

test("errors: to the request they answer, else a banner", () => {
  const { router, banners } = setup();
  const errors = [];
  const id = router.enqueue({ type: "text" }, { onError: (message) => errors.push(message) });
  router.receive({ type: "error", id, message: "no such tag" });
  router.receive({ type: "error", id: null, message: "logdir gone" });
  router.receive({ type: "error" });
  assert.deepEqual(errors, ["no such tag"]);
  assert.deepEqual(banners, ["logdir gone", "error"]);
});

test("pushed replies go to every card, decoded, and settle no request", () => {
  const a = card("loss", ["a"]);
  const b = card("acc", ["a"]);
  const { router } = setup({ cards: [a, b] });
  const got = [];
  const id = router.enqueue({ type: "histograms" }, { onReply: (msg) => got.push(msg) });
  const { content, buffers } = encode({ type: "histograms", id, push: true, series: [{ run: "a", steps: BigInt64Array.from([3n]) }] });
  router.receive(content, buffers);
  assert.equal(a.pushes.length, 1);
  assert.equal(b.pushes.length, 1);
  assert.equal(a.pushes[0][0].series[0].steps[0], 3n);
  assert.equal(got.length, 0);
  router.receive({ type: "histograms", id, push: true, series: [{ x: { buffer: 9, dtype: "float64", shape: [1] } }] }, []);
  assert.equal(a.pushes.length, 1, "an undecodable push is dropped");
});

test("changed: cards whose tag changed for one of their runs fetch again; new runs ask for the index", () => {
  const loss = card("loss", ["a", "b"]);
  const acc = card("acc", ["b"]);
  const other = card("loss", ["c"]);
  assert.deepEqual(changedCards({ tags: { a: ["loss"] } }, [loss, acc, other]), { reindex: false, touched: [loss] });
  assert.deepEqual(changedCards({ runs: ["b"] }, [loss, acc, other]).touched, [loss, acc], "runs only: every card of the run");
  const { router, sent } = setup({ cards: [loss, acc, other] });
  router.receive({ type: "changed", runs: ["a"], tags: { a: ["loss"] }, new_runs: [], new_tags: ["w"] });
  assert.deepEqual([loss.invalidated, acc.invalidated, other.invalidated], [1, 0, 0]);
  assert.deepEqual(sent, [{ type: "index" }]);
});

test("one index request at a time: asked again once the pending one is answered", () => {
  const { router, sent, indexes } = setup();
  router.requestIndex();
  router.requestIndex();
  assert.equal(sent.length, 1);
  router.receive({ type: "index", runs: [] });
  assert.equal(indexes.length, 1);
  assert.equal(sent.length, 2, "the second ask goes out now");
  router.retryIndex();
  assert.equal(sent.length, 3, "a retry asks even while one is pending");
  router.destroy();
  router.receive({ type: "index", runs: [] });
  assert.equal(indexes.length, 1, "nothing after destroy");
});
