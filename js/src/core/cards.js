// All cards of a Board, of every kind (each made by its dashboard's card class, layout.js's
// kindOf): created on demand and drawn lazily. Two IntersectionObservers tell each
// card when it is near the screen (fetch its data ahead) and when it is on screen (draw it);
// cards elsewhere neither fetch nor draw. A smoothing change is applied to the on-screen cards
// one after another across animation frames (top first), always with the latest weight, so the
// slider stays responsive; off-screen cards redraw when they scroll into view.

import { kindOf } from "./layout.js";

/** The key of the card of `item` ({kind, tag, run}) in `section`. */
export function cardKey(section, item) {
  return [section, item.kind, item.tag, item.run ?? ""].join("\u0000");
}

/** Smoothing work per frame: on-screen cards are restyled in one frame while they fit in this,
 * the rest in the next frames, so a drag stays fluid. */
const FRAME_BUDGET_MS = 50;

/**
 * IntersectionObserver entries in the order their cards should ask for data: those coming into
 * view first, then from the top of the page down (the requests of one rank are sent in the order
 * they were queued, and the kernel answers in order: the card the eye reaches first is drawn
 * first, not the one whose observer entry happened to come first).
 */
export function inViewOrder(entries) {
  return entries.slice().sort((a, b) => Number(b.isIntersecting) - Number(a.isIntersecting)
    || a.boundingClientRect.top - b.boundingClientRect.top || a.boundingClientRect.left - b.boundingClientRect.left);
}

export class Cards {
  /** @param board the Board; @param scroller the scrolling element that holds the cards */
  constructor(board, scroller) {
    this.board = board;
    this.byKey = new Map();
    this.byElement = new WeakMap();
    this.frame = null;
    const each = (entries, fn) => {
      for (const entry of inViewOrder(entries)) {
        const card = this.byElement.get(entry.target);
        if (card) fn(card, entry.isIntersecting);
      }
    };
    // Made first so that its callbacks run first: on-screen cards ask before the ones near it.
    this.onScreen = new IntersectionObserver((entries) => each(entries, (card, on) => card.setVisible(on)), {
      root: scroller,
    });
    this.near = new IntersectionObserver((entries) => each(entries, (card, on) => card.setNear(on)), {
      root: scroller,
      rootMargin: "400px 0px",
    });
    this.resize = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const card = this.byElement.get(entry.target.parentElement);
        if (card) card.resized();
      }
    });
  }

  /** The card of `item` ({kind, tag, run}) in `section` ("pinned" or "group"), made if needed. */
  card(section, item) {
    const key = cardKey(section, item);
    let card = this.byKey.get(key);
    if (!card) {
      const spec = kindOf(item.kind);
      if (!spec) throw new Error(`no dashboard defines cards of kind ${JSON.stringify(item.kind)}`);
      card = new spec.Card(this.board, { ...item, plugin: spec.plugin }, section);
      this.byKey.set(key, card);
      this.byElement.set(card.el, card);
      this.onScreen.observe(card.el);
      this.near.observe(card.el);
      this.resize.observe(card.plot);
    }
    return card;
  }

  /** Destroy every card whose key is not in `keys`. */
  retain(keys) {
    for (const [key, card] of this.byKey) {
      if (keys.has(key)) continue;
      this.near.unobserve(card.el);
      this.onScreen.unobserve(card.el);
      this.resize.unobserve(card.plot);
      card.destroy();
      this.byKey.delete(key);
    }
  }

  all() {
    return [...this.byKey.values()];
  }

  /** The cards of `tag` (zoom applies to them all; the kinds that do not zoom ignore it). */
  forTag(tag) {
    return this.all().filter((card) => card.tag === tag);
  }

  /** The cards of `kinds`. */
  ofKinds(kinds) {
    return this.all().filter((card) => kinds.includes(card.kind));
  }

  /** Smoothing moved: restyle the on-screen cards' smoothed lines now (the user is watching
   * them), those that do not fit in this frame's budget in the next frames. */
  smoothingChanged() {
    for (const card of this.byKey.values()) card.smoothingStale();
    if (this.frame === null) this.smoothSome();
  }

  smoothSome() {
    this.frame = null;
    const start = performance.now();
    const pending = this.all()
      .filter((card) => card.needsSmoothing())
      .sort((a, b) => a.el.getBoundingClientRect().top - b.el.getBoundingClientRect().top);
    for (const card of pending) {
      if (performance.now() - start > FRAME_BUDGET_MS) {
        this.frame = requestAnimationFrame(() => this.smoothSome());
        return;
      }
      card.applySmoothing();
    }
  }

  destroy() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.near.disconnect();
    this.onScreen.disconnect();
    this.resize.disconnect();
    for (const card of this.byKey.values()) card.destroy();
    this.byKey.clear();
  }
}
