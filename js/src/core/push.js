// Pushed replies (tbnb/board/protocol.md, "Pushed replies"): while a cell keeps the kernel busy,
// its poll thread answers again each card's latest data request when the data changed, with the
// request's id and "push": true. Which card takes such a reply is decided here. Pure logic.

function sameRuns(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((run, i) => run === b[i]);
}

function sameRange(a, b) {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return Array.isArray(a) && Array.isArray(b) && a.length === 2 && b.length === 2 && a[0] === b[0] && a[1] === b[1];
}

/** Whether two requests (or a request and a pushed reply) ask the same data, at any width. */
export function sameAsk(a, b) {
  if (!a || !b) return false;
  return a.type === b.type && a.tag === b.tag && a.x_axis === b.x_axis && sameRuns(a.runs, b.runs) && sameRange(a.range, b.range) &&
    (a.best ?? null) === (b.best ?? null); // scalar cards' best point (compare_view.js)
}

/**
 * The request of a card slot that a pushed reply answers, or null.
 * @param slot {pending: request | null, applied: request | null}: the slot's request waiting for
 *   its reply, and the last one whose reply was applied; a request is {id, ask, ...}, `ask`
 *   being the content sent
 * @param msg  a kernel reply
 * A push answers the request whose id it carries, else the slot's current request (pending, else
 * applied) when it asks the same: a twin card, or another view of the same widget.
 */
export function pushTarget(slot, msg) {
  if (!slot || !msg || msg.push !== true) return null;
  const { pending, applied } = slot;
  if (pending && pending.id === msg.id) return pending;
  if (applied && applied.id === msg.id) return applied;
  const current = pending || applied;
  return current && sameAsk(current.ask, msg) ? current : null;
}

/** A card's requests by purpose ("full", "zoom", "data"...): what pushed replies it takes. */
export class PushSlots {
  constructor() {
    this.slots = new Map(); // purpose -> {pending, applied}
  }

  slot(purpose) {
    let slot = this.slots.get(purpose);
    if (!slot) {
      slot = { pending: null, applied: null };
      this.slots.set(purpose, slot);
    }
    return slot;
  }

  /** Request `id` asking `ask` was queued; `deliver(msg, buffers)` applies a reply to it. */
  asked(purpose, id, ask, deliver) {
    this.slot(purpose).pending = { id, ask, deliver };
  }

  /** The kernel answered request `id` (its reply is being applied). */
  answered(purpose, id) {
    const slot = this.slot(purpose);
    if (slot.pending && slot.pending.id === id) {
      slot.applied = slot.pending;
      slot.pending = null;
    }
  }

  /** Request `id` failed or timed out: the last applied reply stays the current one. */
  failed(purpose, id) {
    const slot = this.slot(purpose);
    if (slot.pending && slot.pending.id === id) slot.pending = null;
  }

  /** Deliver a pushed reply to every slot it answers; returns how many took it. */
  take(msg, buffers) {
    let taken = 0;
    for (const slot of this.slots.values()) {
      const target = pushTarget(slot, msg);
      if (target) {
        target.deliver(msg, buffers);
        taken += 1;
      }
    }
    return taken;
  }
}
