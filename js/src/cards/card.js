// The base of every card (scalars, histograms, distributions, images, audio, text, and any
// dashboard added later). It holds the lifecycle the Board drives: lazy loading (data is asked
// for only when the card is near the screen, drawn only when on it), requests keyed per card
// and purpose (a newer one supersedes an older one; pushed replies reach the same callback),
// the pin and full-width buttons, and no-op answers to the Board's calls that only some kinds
// of card act on (zoom, log scale, smoothing, x axis).
//
// A subclass builds its element in build() (pinButton and expandButton are made before), asks
// for its data in fetch() or load(), puts it on the page in render() (or overrides draw()), and
// keeps its own state in init(), which runs before build() so that build() can use it.

import { iconButton, icon } from "../dom.js";
import { PushSlots } from "../core/push.js";

export class Card {
  /**
   * @param board   the Board
   * @param item    {kind, tag, run (null when one card shows every run), plugin}
   * @param section "pinned" or "group": the same tag can have a card in each
   */
  constructor(board, item, section) {
    this.board = board;
    this.kind = item.kind;
    this.tag = item.tag;
    this.run = item.run ?? null;
    this.plugin = item.plugin ?? item.kind;
    this.section = section;
    this.visible = false; // on screen: drawn
    this.near = false; // close to the screen: data fetched ahead
    this.dirty = true; // data must be (re)fetched before drawing
    this.needsDraw = false; // data changed while off screen
    this.drawn = false;
    this.data = null;
    this.error = null;
    this.loading = false;
    this.expanded = false;
    this.destroyed = false;
    this.purposes = new Set();
    this.inFlight = new Map(); // purpose -> what requestOnce asked for and awaits
    this.pushes = new PushSlots(); // requests by purpose, for pushed replies
    this.init();
    this.pinButton = iconButton("pin", "Pin", () => this.board.togglePin(this.tag));
    this.expandButton = iconButton("expand", "Full width", () => this.setExpanded(!this.expanded));
    this.build();
    this.updateButtons();
    this.updateSub();
  }

  /** The subclass's own state (overridden); runs before build(). */
  init() {}

  /** Make this.el, holding this.plot (the element the ResizeObserver watches) (overridden). */
  build() {}

  get key() {
    return `${this.section}\u0000${this.kind}\u0000${this.tag}\u0000${this.run ?? ""}`;
  }

  updateButtons() {
    const pinned = this.board.isPinned(this.tag);
    this.pinButton.classList.toggle("tbnb-on", pinned);
    this.pinButton.title = pinned ? "Unpin" : "Pin";
    this.pinButton.setAttribute("aria-pressed", String(pinned));
    this.expandButton.replaceChildren(icon(this.expanded ? "shrink" : "expand"));
    this.expandButton.title = this.expanded ? "Normal width" : "Full width";
  }

  /** Say what the card holds under its title (overridden). */
  updateSub() {}

  /** The runs the card draws: selected and having the tag, in index order. */
  runs() {
    return this.board.runsForTag(this.tag, this.plugin);
  }

  /** Whether the card holds data to draw (plotly arriving redraws those that do). */
  hasData() {
    return this.data !== null;
  }

  // ---------------------------------------------------------------------------------- loading

  setVisible(visible) {
    this.visible = visible;
    if (visible) this.ensure();
  }

  setNear(near) {
    this.near = near;
    if (near) this.ensure();
  }

  /** Fetch whatever is missing if near the screen; draw if on screen. */
  ensure() {
    if ((!this.visible && !this.near) || this.destroyed) return;
    if (!this.canLoad()) return;
    if (this.needsFetch()) this.fetch();
    else if (this.visible && (this.needsDraw || !this.drawn)) this.draw();
  }

  /** Whether there is anything to ask for now (a per-run card whose run was switched off is
   * going away). */
  canLoad() {
    return this.runs().length > 0;
  }

  needsFetch() {
    return this.dirty;
  }

  fetch() {
    this.dirty = false;
    this.loading = true;
    this.error = null;
    this.updateSub();
    this.load();
  }

  /** Ask the kernel for this card's data (overridden); replies go through request(). */
  load() {}

  priority() {
    return (this.visible ? 10 : this.near ? 5 : 0) + (this.section === "pinned" ? 1 : 0);
  }

  /**
   * Queue `content`; a newer request of the same `purpose` supersedes an older one. A reply the
   * kernel pushes for it later goes to `onReply` too. Returns the request's id.
   */
  request(purpose, content, onReply, onError = (message) => this.fail(message)) {
    this.purposes.add(purpose);
    const deliver = (msg, buffers) => {
      if (!this.destroyed) onReply(msg, buffers || []);
    };
    const id = this.board.router.enqueue(content, {
      key: `${this.key}\u0000${purpose}`,
      priority: () => this.priority(),
      onReply: (msg, buffers) => {
        this.pushes.answered(purpose, id);
        deliver(msg, buffers);
      },
      onError: (message) => {
        this.pushes.failed(purpose, id);
        if (!this.destroyed) onError(message);
      },
    });
    this.pushes.asked(purpose, id, content, deliver);
    return id;
  }

  /**
   * request(), unless a request of `purpose` for the same `what` (a step, an item) is in flight:
   * then nothing is sent and null is returned. For what render() asks while it shows "loading…":
   * each poll's pushed data renders the card again, and asking again would supersede the request
   * in flight, so a kernel slower than the poll interval would never be heard.
   */
  requestOnce(purpose, what, content, onReply, onError = (message) => this.fail(message)) {
    if (this.inFlight.get(purpose) === what) return null;
    this.inFlight.set(purpose, what);
    const settle = () => {
      if (this.inFlight.get(purpose) === what) this.inFlight.delete(purpose);
    };
    return this.request(
      purpose,
      content,
      (msg, buffers) => {
        settle();
        onReply(msg, buffers);
      },
      (message) => {
        settle();
        onError(message);
      },
    );
  }

  /** A reply the kernel pushed (protocol.md, "Pushed replies"); returns whether it was taken. */
  takePush(msg, buffers) {
    if (this.destroyed || this.pushes.take(msg, buffers) === 0) return false;
    if (this.error) {
      this.error = null; // e.g. "no answer from the kernel (is it busy…)": its poll thread answers
      this.updateSub();
    }
    return true;
  }

  fail(message) {
    this.loading = false;
    this.dirty = true; // asked again when it next comes into view
    this.error = `Could not load ${this.tag}: ${message}`;
    this.updateSub();
  }

  /** New data in the kernel: fetch again now if near the screen, else when scrolled to. */
  invalidate() {
    this.dirty = true;
    this.ensure();
  }

  runsChanged() {
    this.updateSub();
    this.ensure();
  }

  // ---------------------------------------------------------------------------------- drawing

  /** Draw now if on screen, else at the next scroll into view. */
  redraw() {
    if (this.visible) this.draw();
    else this.needsDraw = true;
  }

  draw() {
    if (!this.visible || !this.data || this.destroyed) {
      this.needsDraw = true;
      return;
    }
    this.needsDraw = false;
    this.updateSub();
    if (this.render() !== false) this.drawn = true;
  }

  /** Put the data on the card (overridden); false when it could not be drawn yet. */
  render() {}

  setExpanded(on) {
    this.expanded = on;
    this.el.classList.toggle("tbnb-expanded", on);
    this.updateButtons();
    this.redraw();
  }

  // Calls the Board makes on every card, which only some kinds act on.
  /** The x axis changed. */
  resetAxis() {}
  /** The `log_y` trait changed. */
  setLogY() {}
  /** The zoom of this card's tag changed (set on a twin card, from `view`, or reset). */
  setZoom() {}
  /** A trait this kind of card draws with changed (the kind's `redrawOn`): redraw. */
  settingChanged() {
    this.redraw();
  }
  /** The smoothing weight changed (see Cards.smoothingChanged). */
  smoothingStale() {}
  needsSmoothing() {
    return false;
  }
  applySmoothing() {}
  /** The plot's box changed size. */
  resized() {}

  destroy() {
    this.destroyed = true;
    for (const purpose of this.purposes) this.board.router.cancel(`${this.key}\u0000${purpose}`);
    this.el.remove();
  }
}
