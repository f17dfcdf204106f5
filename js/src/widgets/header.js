// The top: the dashboard tabs (write `dashboard`), then a bar with the tag filter (with
// completion), the card-type filter of the time series tab (writes `card_types`), status,
// problems and the settings toggle; below it the list of problems (when opened) and error
// banners.

import { CARD_TYPES } from "../core/constants.js";
import { h, iconButton, perFrame, uniqueId } from "../dom.js";
import { formatClock, formatShort } from "../format.js";
import { isValidFilter } from "../groups.js";
import { DASHBOARDS, cardTypeLabel, normalizeCardTypes, normalizeDashboard, showsCardTypes, toggleCardType } from "../core/layout.js";

export class Header {
  constructor(board, onSettings) {
    this.board = board;
    const listId = uniqueId("tbnb-tags");
    this.datalist = h("datalist", { id: listId });
    this.tabBar = h("nav", { class: "tbnb-tabs", role: "tablist", "aria-label": "Dashboards" });
    this.renderTabs();
    this.cardTypes = new Map(
      CARD_TYPES.map((type) => [
        type,
        h("input", {
          type: "checkbox",
          on: { change: (event) => board.setTrait("card_types", toggleCardType(board.trait("card_types"), type, event.target.checked)) },
        }),
      ]),
    );
    this.cardTypeBox = h(
      "div",
      { class: "tbnb-cardtypes", role: "group", "aria-label": "Card types", title: "Card types shown" },
      [...this.cardTypes].map(([type, box]) => h("label", { class: "tbnb-check" }, box, cardTypeLabel(type))),
    );
    this.filter = h("input", {
      type: "search",
      class: "tbnb-input tbnb-tagfilter",
      placeholder: "Filter tags (regex)",
      list: listId,
      spellcheck: false,
      "aria-label": "Filter tags",
      on: { input: () => this.onFilterInput() },
    });
    // Cards follow the filter at the next frame (not after a pause in the typing: that pause
    // alone would take longer than the whole layout); the kernel hears of it a moment later.
    this.writeFilter = perFrame((text) => board.setTrait("tag_filter", text, { soon: true }));
    this.status = h("div", { class: "tbnb-status", role: "status" });
    this.problemsButton = h("button", {
      type: "button",
      class: "tbnb-problems",
      hidden: true,
      on: { click: () => (this.problemList.hidden = !this.problemList.hidden) },
    });
    this.settingsButton = iconButton("tune", "Settings", onSettings);
    this.problemList = h("ul", { class: "tbnb-problem-list", hidden: true });
    this.banners = h("div", { class: "tbnb-banners" });
    this.bar = h(
      "div",
      { class: "tbnb-top" },
      this.filter,
      this.datalist,
      this.cardTypeBox,
      this.status,
      this.problemsButton,
      this.settingsButton,
    );
    this.el = [this.tabBar, this.bar, this.problemList, this.banners];
    this.sync();
  }

  onFilterInput() {
    const text = this.filter.value;
    const valid = isValidFilter(text);
    this.filter.classList.toggle("tbnb-invalid", !valid);
    this.filter.title = valid ? "" : "Not a valid regular expression: no tag is filtered out";
    this.writeFilter(text);
  }

  /** A tab per dashboard (again once installed dashboards are registered: plugins.js). */
  renderTabs() {
    this.tabs = DASHBOARDS.map(({ id, label }) =>
      h("button", {
        type: "button",
        role: "tab",
        class: "tbnb-tab",
        text: label,
        dataset: { dashboard: id },
        on: { click: () => this.board.setTrait("dashboard", id) },
      }),
    );
    this.tabBar.replaceChildren(...this.tabs);
  }

  sync() {
    const b = this.board;
    const dashboard = normalizeDashboard(b.trait("dashboard"));
    for (const tab of this.tabs) {
      const on = tab.dataset.dashboard === dashboard;
      tab.classList.toggle("tbnb-on", on);
      tab.setAttribute("aria-selected", String(on));
    }
    const types = normalizeCardTypes(b.trait("card_types"));
    for (const [type, box] of this.cardTypes) box.checked = types.includes(type);
    this.cardTypeBox.hidden = !showsCardTypes(dashboard);
    if (b.root.ownerDocument.activeElement !== this.filter) this.filter.value = b.trait("tag_filter");
    this.filter.classList.toggle("tbnb-invalid", !isValidFilter(this.filter.value));
    this.renderStatus();
  }

  setTags(tags) {
    this.datalist.replaceChildren(...tags.map((tag) => h("option", { value: tag })));
  }

  renderStatus() {
    const s = this.board.trait("status") || {};
    const parts = [];
    if (Number.isFinite(s.runs)) parts.push(`${formatShort(s.runs)} runs`);
    if (Number.isFinite(s.tags)) parts.push(`${formatShort(s.tags)} tags`);
    if (Number.isFinite(s.points)) parts.push(`${formatShort(s.points)} points`);
    if (s.polling === true) parts.push("live");
    if (Number.isFinite(s.last_reload)) parts.push(`new data ${formatClock(s.last_reload)}`);
    if (typeof s.message === "string" && s.message) parts.unshift(s.message);
    this.status.textContent = parts.join(" · ");
    this.status.title = this.status.textContent;
    this.renderProblems();
  }

  renderProblems() {
    const list = this.board.problems();
    const s = this.board.trait("status") || {};
    const n = Math.max(list.length, Number.isFinite(s.problems) ? s.problems : 0);
    this.problemsButton.hidden = n === 0;
    this.problemsButton.textContent = `⚠ ${n} problem${n === 1 ? "" : "s"}`;
    this.problemsButton.title = "Damaged records or unreadable files: click for the list";
    this.problemList.replaceChildren(...list.map((text) => h("li", { text: String(text) })));
    if (n === 0) this.problemList.hidden = true;
  }

  /** An error from the kernel that belongs to no card. */
  banner(message) {
    const item = h("div", { class: "tbnb-banner", role: "alert" }, h("span", { text: String(message) }));
    item.append(iconButton("close", "Dismiss", () => item.remove()));
    this.banners.append(item);
    while (this.banners.children.length > 3) this.banners.firstChild.remove();
  }

  destroy() {
    this.writeFilter.cancel();
  }
}
