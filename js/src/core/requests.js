// Requests to the kernel with ids, a cap on how many are in flight and priorities: visible
// cards ask first. A newer request with the same key supersedes a queued one and makes an
// in-flight one stale (its reply is dropped). Pure logic: `send` and timers are injected.

let counter = 0;

/** Request ids unique to this page view: another view of the same widget ignores our replies. */
function idBase() {
  counter += 1;
  return (Math.floor(Math.random() * 2 ** 20) * 2 ** 12 + (counter % 2 ** 12)) * 2 ** 16;
}

export class Requests {
  /**
   * @param {(content: object) => void} send  puts a message on the comm
   * @param {{maxInFlight?: number, timeoutMs?: number, setTimer?: Function, clearTimer?: Function,
   *   schedule?: Function}} options
   */
  constructor(send, options = {}) {
    this.send = send;
    this.maxInFlight = options.maxInFlight ?? 4;
    this.timeoutMs = options.timeoutMs ?? 60000;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((t) => clearTimeout(t));
    // Sending waits for the current task to end, so that all cards that came into view in one
    // frame (several IntersectionObserver callbacks) are queued, and ranked, before any is sent.
    this.schedule = options.schedule ?? ((fn) => setTimeout(fn, 0));
    this.scheduled = false;
    this.base = idBase();
    this.next = 0;
    this.queue = []; // {id, key, content, priority, onReply, onError}
    this.inFlight = new Map(); // id -> entry
    this.direct = new Map(); // id -> entry (sent at once, not counted)
    this.closed = false;
  }

  newId() {
    this.next += 1;
    return this.base + this.next;
  }

  /** Whether `id` is one of ours and still awaited. */
  owns(id) {
    return this.inFlight.has(id) || this.direct.has(id) || this.queue.some((e) => e.id === id);
  }

  /**
   * Queue `content` (its "id" is filled in). `options.key` dedupes; `options.priority()` is read
   * when a slot frees (higher first). Returns the id.
   */
  enqueue(content, options = {}) {
    const entry = this.entry(content, options);
    if (entry.key !== undefined) {
      this.queue = this.queue.filter((e) => e.key !== entry.key);
      for (const e of this.inFlight.values()) if (e.key === entry.key) e.stale = true;
    }
    this.queue.push(entry);
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => {
        this.scheduled = false;
        this.pump();
      });
    }
    return entry.id;
  }

  /** Send at once, outside the cap (downloads). Returns the id. */
  sendNow(content, options = {}) {
    const entry = this.entry(content, options);
    this.direct.set(entry.id, entry);
    this.arm(entry, this.direct);
    this.send(entry.content);
    return entry.id;
  }

  entry(content, options) {
    const id = this.newId();
    return {
      id,
      key: options.key,
      content: { ...content, id },
      priority: options.priority ?? (() => 0),
      onReply: options.onReply ?? (() => {}),
      onError: options.onError ?? (() => {}),
      stale: false,
      timer: null,
    };
  }

  arm(entry, table) {
    entry.timer = this.setTimer(() => {
      if (table.get(entry.id) !== entry) return;
      table.delete(entry.id);
      if (!entry.stale) entry.onError("no answer from the kernel (is it busy or stopped?)");
      this.pump();
    }, this.timeoutMs);
  }

  /** Forget queued requests with `key`; an in-flight one becomes stale. */
  cancel(key) {
    this.queue = this.queue.filter((e) => e.key !== key);
    for (const e of this.inFlight.values()) if (e.key === key) e.stale = true;
  }

  /** Send queued requests while slots are free, highest priority first. */
  pump() {
    if (this.closed) return;
    while (this.inFlight.size < this.maxInFlight && this.queue.length) {
      let best = 0;
      let bestPriority = -Infinity;
      this.queue.forEach((e, i) => {
        const p = Number(e.priority()) || 0;
        if (p > bestPriority) [best, bestPriority] = [i, p];
      });
      const [entry] = this.queue.splice(best, 1);
      this.inFlight.set(entry.id, entry);
      this.arm(entry, this.inFlight);
      this.send(entry.content);
    }
  }

  /**
   * A kernel message carrying an id ("series", "download", "error"). Returns true when it
   * answered one of our requests (delivered, or dropped as stale).
   */
  handle(msg, buffers) {
    const id = msg && msg.id;
    const table = this.inFlight.has(id) ? this.inFlight : this.direct.has(id) ? this.direct : null;
    if (!table) {
      // An error about a request still queued here cannot happen; anything else is not ours.
      return false;
    }
    const entry = table.get(id);
    table.delete(id);
    this.clearTimer(entry.timer);
    if (!entry.stale) {
      if (msg.type === "error") entry.onError(String(msg.message ?? "error"));
      else entry.onReply(msg, buffers);
    }
    this.pump();
    return true;
  }

  /** Drop everything (the view is going away). */
  destroy() {
    this.closed = true;
    for (const e of [...this.inFlight.values(), ...this.direct.values()]) this.clearTimer(e.timer);
    this.queue = [];
    this.inFlight.clear();
    this.direct.clear();
  }
}
