// A virtualised list: the items are data, and only the rows in view (plus a few above and
// below) exist in the DOM, inside a spacer as tall as every row together, so that a selector of
// thousands of runs costs the DOM of a screenful. Rows have one fixed height (from the CSS,
// measured once from a drawn row). Scrolling draws the rows coming into view, once per frame.

import { h } from "../dom.js";

const OVERSCAN = 8; // rows drawn beyond each edge of the view: Tab and fast wheels find rows there
const FALLBACK_VIEW = 600; // px taken as the view's height before the list is laid out
const GUESS_HEIGHT = 24; // px per row until a row has been laid out and measured

/**
 * The rows to draw: items [start, end) for a view `viewport` px high scrolled to `scrollTop`,
 * rows `rowHeight` px high, `overscan` extra rows at each edge, clamped to [0, count).
 * Pure, so that it is tested without a browser.
 */
export function windowRange({ scrollTop, rowHeight, viewport, count, overscan = OVERSCAN }) {
  if (!(count > 0) || !(rowHeight > 0)) return { start: 0, end: 0 };
  const top = Math.max(0, Number(scrollTop) || 0);
  const first = Math.min(count - 1, Math.floor(top / rowHeight));
  const last = Math.ceil((top + Math.max(0, Number(viewport) || 0)) / rowHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + overscan) };
}

export class VirtualList {
  /**
   * @param el      the scrolling element (CSS overflow:auto and a bounded height)
   * @param drawRow (item, index) -> a row element; called only for the rows in view
   * @param rowHeight px, when the CSS fixes it; else measured from the first row drawn
   */
  constructor(el, drawRow, { rowHeight = 0 } = {}) {
    this.el = el;
    this.drawRow = drawRow;
    this.rowHeight = rowHeight;
    this.items = [];
    this.drawn = { start: 0, end: 0 };
    this.rows = h("div", { role: "presentation", style: { position: "absolute", left: "0", right: "0", top: "0" } });
    this.spacer = h("div", { role: "presentation", style: { position: "relative" } }, this.rows);
    this.frame = 0;
    el.append(this.spacer);
    el.addEventListener("scroll", () => this.schedule(), { passive: true });
    // A list drawn while hidden (no height yet) draws again once it is laid out.
    const Observer = el.ownerDocument.defaultView && el.ownerDocument.defaultView.ResizeObserver;
    this.observer = Observer ? new Observer(() => this.schedule()) : null;
    if (this.observer) this.observer.observe(el);
  }

  /** New items (the whole list, as data); draws the rows in view, keeping the scroll position. */
  setItems(items) {
    this.items = items;
    this.draw();
  }

  schedule() {
    if (this.frame) return;
    const win = this.el.ownerDocument.defaultView;
    this.frame = win.requestAnimationFrame(() => {
      this.frame = 0;
      this.draw({ onlyIfMoved: true });
    });
  }

  draw({ onlyIfMoved = false } = {}) {
    const count = this.items.length;
    const height = this.rowHeight || this.measure();
    const range = windowRange({ scrollTop: this.el.scrollTop, rowHeight: height, viewport: this.el.clientHeight || FALLBACK_VIEW, count });
    if (onlyIfMoved && range.start === this.drawn.start && range.end === this.drawn.end) return;
    const focus = this.focusKey();
    this.drawn = range;
    this.spacer.style.height = `${count * height}px`;
    this.rows.style.transform = `translateY(${range.start * height}px)`;
    const rows = [];
    for (let i = range.start; i < range.end; i++) {
      const row = this.drawRow(this.items[i], i);
      row.setAttribute("aria-setsize", String(count));
      row.setAttribute("aria-posinset", String(i + 1));
      rows.push(row);
    }
    this.rows.replaceChildren(...rows);
    this.restoreFocus(focus);
    // The first rows laid out give the height: draw again if the guess was wrong.
    if (!this.rowHeight && this.measure() !== height && this.rowHeight) this.draw();
  }

  /** The height of a drawn row, kept once known; a guess while nothing is laid out. */
  measure() {
    const row = this.rows.firstElementChild;
    const px = row ? row.getBoundingClientRect().height : 0;
    if (px > 0) this.rowHeight = px;
    return px > 0 ? px : GUESS_HEIGHT;
  }

  /** Which row and control has the keyboard focus, to give it back after the rows are redrawn. */
  focusKey() {
    const active = this.el.ownerDocument.activeElement;
    if (!active || !this.rows.contains(active)) return null;
    const row = active.closest("[aria-posinset]");
    const controls = [...row.querySelectorAll("input,button")];
    return { index: Number(row.getAttribute("aria-posinset")) - 1, control: controls.indexOf(active) };
  }

  restoreFocus(key) {
    if (!key) return;
    const row = this.rows.children[key.index - this.drawn.start];
    const control = row && row.querySelectorAll("input,button")[key.control];
    if (control) control.focus({ preventScroll: true });
  }

  destroy() {
    if (this.observer) this.observer.disconnect();
    if (this.frame) this.el.ownerDocument.defaultView.cancelAnimationFrame(this.frame);
  }
}
