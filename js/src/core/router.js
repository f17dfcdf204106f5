// The page's end of the message protocol (tbnb/board/protocol.md): every message from the kernel
// comes in here and goes where it belongs, and every request goes out through here.
//   {"type": "plotly", "bundle"} + bytes  -> a plotly.js build for the page (plotly.js)
//   {"type": "index"}           -> the Board (onIndex); asked again if asked meanwhile
//   a reply with an id          -> decoded (codec.js) and handed to the request it answers
//                                  (requests.js: ids, in-flight cap, priorities, timeouts)
//   a reply with "push": true   -> decoded and offered to every card (Card.takePush)
//   {"type": "changed"}         -> the cards whose tag or runs changed fetch again; the index
//                                  is asked for again when runs or tags appeared or went
//   {"type": "error"}           -> the request it answers, or a banner when it answers none
// Replies are not listed by type: a new dashboard's replies (any type, with the request's id)
// reach its cards without a change here.

import { decode } from "./codec.js";
import { deliverPlotly } from "./plotly.js";
import { Requests } from "./requests.js";

/** Which cards a "changed" message touches, and whether the index must be asked for again. */
export function changedCards(msg, cards) {
  const nonEmpty = (list) => Array.isArray(list) && list.length > 0;
  const reindex = nonEmpty(msg.new_runs) || nonEmpty(msg.new_tags) || nonEmpty(msg.removed_runs);
  const changed = new Map(); // tag -> runs
  if (msg.tags && typeof msg.tags === "object") {
    for (const [run, tags] of Object.entries(msg.tags)) {
      for (const tag of tags || []) {
        if (!changed.has(tag)) changed.set(tag, new Set());
        changed.get(tag).add(run);
      }
    }
  }
  const runsOnly = !msg.tags && Array.isArray(msg.runs) ? new Set(msg.runs) : null;
  const touched = cards.filter((card) => {
    const runs = card.runs();
    if (runsOnly) return runs.some((run) => runsOnly.has(run));
    return changed.has(card.tag) && runs.some((run) => changed.get(card.tag).has(run));
  });
  return { reindex, touched };
}

export class Router {
  /**
   * @param {{send: (content: object) => void, cards: () => object[], onIndex: (msg: object) => void,
   *   onBanner: (text: string) => void}} hooks
   *   send puts a message on the comm; cards lists the Board's cards (for pushes and changes)
   * @param options passed on to Requests (in-flight cap, timeout, timers)
   */
  constructor({ send, cards, onIndex, onBanner }, options = {}) {
    this.send = send;
    this.cards = cards;
    this.onIndex = onIndex;
    this.onBanner = onBanner;
    this.requests = new Requests(send, options);
    this.indexPending = false;
    this.indexAgain = false;
    this.closed = false;
  }

  /** Queue a request (Requests.enqueue: key, priority, onReply, onError). Returns its id. */
  enqueue(content, options) {
    return this.requests.enqueue(content, options);
  }

  /** Send a request at once, outside the in-flight cap (downloads). Returns its id. */
  sendNow(content, options) {
    return this.requests.sendNow(content, options);
  }

  /** Forget queued requests with `key`; an in-flight one's reply will be dropped. */
  cancel(key) {
    this.requests.cancel(key);
  }

  /** Ask for the index; if one is on its way, ask again once it has come. */
  requestIndex() {
    if (this.indexPending) {
      this.indexAgain = true;
      return;
    }
    this.indexPending = true;
    this.send({ type: "index" });
  }

  /** No index came: ask again now (the kernel may have been busy or restarted). */
  retryIndex() {
    this.indexPending = false;
    this.requestIndex();
  }

  /** A message from the kernel (anywidget's msg:custom). */
  receive(msg, buffers = []) {
    if (!msg || typeof msg !== "object" || this.closed) return;
    switch (msg.type) {
      case "plotly":
        if (buffers.length) deliverPlotly(buffers[0], msg.bundle);
        return;
      case "index":
        this.indexPending = false;
        this.onIndex(msg);
        if (this.indexAgain) {
          this.indexAgain = false;
          this.requestIndex();
        }
        return;
      case "changed":
        this.changed(msg);
        return;
      case "error":
        if (msg.id === null || msg.id === undefined) this.onBanner(msg.message ?? "error");
        else this.requests.handle(msg, buffers);
        return;
      default:
        if (msg.push === true) this.pushed(msg, buffers);
        else this.reply(msg, buffers);
    }
  }

  /** A reply to one of our requests (another view's, or a stale one's, is dropped). */
  reply(msg, buffers) {
    if (!this.requests.owns(msg.id)) return;
    let decoded;
    try {
      decoded = decode(msg, buffers);
    } catch (error) {
      this.requests.handle({ type: "error", id: msg.id, message: `bad reply: ${error.message}` });
      return;
    }
    this.requests.handle(decoded, buffers);
  }

  /**
   * A reply the kernel's poll thread pushed (protocol.md, "Pushed replies"): to the cards whose
   * request it answers. It does not settle any pending request: their own replies still come.
   */
  pushed(msg, buffers) {
    let decoded;
    try {
      decoded = decode(msg, buffers);
    } catch {
      return; // a reply to the request follows anyway, once the kernel is free
    }
    for (const card of this.cards()) card.takePush(decoded, buffers);
  }

  /** New data after a poll: visible cards whose tag changed fetch again, the others later. */
  changed(msg) {
    const { reindex, touched } = changedCards(msg, this.cards());
    if (reindex) this.requestIndex();
    for (const card of touched) card.invalidate();
  }

  /** Drop everything (the view is going away). */
  destroy() {
    this.closed = true;
    this.requests.destroy();
  }
}
