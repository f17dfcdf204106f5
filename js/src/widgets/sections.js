// The cards area: the pinned section on top, then one collapsible section per tag group. Card
// elements are reused across re-renders (filter typing, pinning), so charts keep their state.

import { h, icon } from "../dom.js";
import { cardKey } from "../core/cards.js";
import { formatCount } from "../format.js";

const PINNED = "\u0000pinned";

export class Sections {
  constructor(board, container) {
    this.board = board;
    this.el = container;
    this.collapsed = new Set();
  }

  header(id, title, count, unit) {
    const collapsed = this.collapsed.has(id);
    return h(
      "button",
      {
        type: "button",
        class: "tbnb-section-head",
        "aria-expanded": String(!collapsed),
        on: {
          click: () => {
            if (this.collapsed.has(id)) this.collapsed.delete(id);
            else this.collapsed.add(id);
            this.board.layoutCards();
          },
        },
      },
      h("b", { text: title }),
      h("small", { text: `${formatCount(count)} ${unit}${count === 1 ? "" : "s"}` }),
      icon("chevron"),
    );
  }

  grid(section, items, keep) {
    const cards = items.map((item) => {
      const card = this.board.cards.card(section, item);
      keep.add(cardKey(section, item));
      card.updateButtons();
      // Image and audio dashboards: each tag starts a row, its runs are the columns.
      card.el.classList.toggle("tbnb-row-start", Boolean(item.rowStart));
      return card.el;
    });
    return h("div", { class: "tbnb-grid" }, cards);
  }

  /**
   * @param {{pinned: object[], groups: {name: string, items: object[]}[], empty: string | null}} spec
   *   items: {kind, tag, run, rowStart} (layout.js layoutItems); empty: the message to show
   *   instead of groups (no data, nothing matches...); spare: groups whose cards are kept though
   *   not shown (those the tag filter hides)
   */
  render(spec) {
    const keep = new Set();
    const parts = [];
    const pinnedCollapsed = this.collapsed.has(PINNED);
    parts.push(
      h(
        "section",
        { class: `tbnb-section tbnb-pinned${pinnedCollapsed ? " tbnb-collapsed" : ""}` },
        this.header(PINNED, "Pinned", spec.pinned.length, "card"),
        pinnedCollapsed
          ? null
          : spec.pinned.length
            ? this.grid("pinned", spec.pinned, keep)
            : h("div", { class: "tbnb-pinned-hint", text: "Pin cards for a quick view and comparison" }),
      ),
    );
    if (spec.empty) parts.push(h("div", { class: "tbnb-empty", text: spec.empty }));
    for (const group of spec.groups) {
      const collapsed = this.collapsed.has(group.name);
      parts.push(
        h(
          "section",
          { class: `tbnb-section${collapsed ? " tbnb-collapsed" : ""}`, dataset: { group: group.name } },
          this.header(group.name, group.name, group.items.length, "card"),
          collapsed ? null : this.grid("group", group.items, keep),
        ),
      );
    }
    for (const group of spec.spare || []) for (const item of group.items) keep.add(cardKey("group", item));
    this.board.cards.retain(keep);
    this.el.replaceChildren(...parts);
  }
}
