// The run selector: a regex filter (writes `runs`), a checkbox per run and one for all listed
// runs (write `hidden_runs` and `hidden_patterns`: runs.js)
// and a colour swatch per run that opens a colour picker (writes `run_colors`). The list is
// virtualised (virtual_list.js): its items are computed as data on every render and only the
// rows in view are built, so that thousands of runs cost a screenful of DOM.

import { debounce, h } from "../dom.js";
import { PALETTE, normalizeHex } from "../core/colors.js";
import { naturalSort } from "../naturalsort.js";
import { groupColor, selectorItems } from "../run_groups.js";
import { nextFocus } from "../focus.js";
import { ROW_PX, addSelectorStyle, groupItems, groupRow } from "./run_selector_groups.js";
import { VirtualList } from "./virtual_list.js";
import {
  compileRunPatterns,
  filterTextToPatterns,
  hiddenTest,
  isValidRunFilter,
  patternsToFilterText,
  runMatches,
  setListedVisible,
  setRunsVisible,
} from "../runs.js";

export class RunSelector {
  constructor(board) {
    this.board = board;
    this.filter = h("input", {
      type: "search",
      class: "tbnb-input",
      placeholder: "Filter runs (regex, full match)",
      title: "A run is shown when its whole name matches this regular expression",
      spellcheck: false,
      "aria-label": "Filter runs",
      on: { input: () => this.onFilterInput() },
    });
    this.writeFilter = debounce((text) => this.board.setTrait("runs", filterTextToPatterns(text)), 250);
    this.all = h("input", {
      type: "checkbox",
      title: "Show or hide every run listed",
      "aria-label": "All runs",
      on: { change: () => this.onAll() },
    });
    this.count = h("span", { class: "tbnb-runs-count" });
    this.list = h("div", { class: "tbnb-runs-list", role: "list" });
    this.picker = h("input", {
      type: "color",
      class: "tbnb-colorpicker",
      tabIndex: -1,
      "aria-hidden": "true",
      on: { input: () => this.onColor() },
    });
    this.el = h(
      "div",
      { class: "tbnb-runs" },
      this.filter,
      h("div", { class: "tbnb-runs-head" }, this.all, h("span", { text: "Runs" }), this.count),
      this.list,
    );
    this.open = new Set(); // unfolded run groups
    this.hidden = new Set();
    this.rows = new VirtualList(this.list, (item) => this.drawItem(item), { rowHeight: ROW_PX });
    addSelectorStyle(board.root);
    this.syncFilter();
  }

  /** The filter box follows the `runs` trait unless the user is typing in it. */
  syncFilter() {
    if (this.board.root.ownerDocument.activeElement !== this.filter) {
      this.filter.value = patternsToFilterText(this.board.trait("runs"));
    }
    this.filter.classList.toggle("tbnb-invalid", !isValidRunFilter(this.filter.value));
  }

  onFilterInput() {
    const text = this.filter.value;
    const valid = isValidRunFilter(text);
    this.filter.classList.toggle("tbnb-invalid", !valid);
    if (valid) this.writeFilter(text);
  }

  listed() {
    const compiled = compileRunPatterns(this.board.trait("runs"));
    const names = this.board.runNames();
    // Sorted once per index of runs, not on every render (thousands of names).
    if (names !== this.names) this.sorted = naturalSort((this.names = names));
    return this.sorted.filter((run) => runMatches(run, compiled));
  }

  onAll() {
    const filter = patternsToFilterText(this.board.trait("runs"));
    this.board.setTraits(setListedVisible(this.visibility(), this.listed(), filter, this.all.checked));
  }

  /** The traits that switch runs off. */
  visibility() {
    return { hidden_runs: this.board.trait("hidden_runs"), hidden_patterns: this.board.trait("hidden_patterns") };
  }

  /** Switch `runs` on or off by name (a run's or a group's box). */
  setVisible(runs, visible) {
    this.board.setTraits(setRunsVisible(this.visibility(), runs, visible));
  }

  onColor() {
    const run = this.picker.dataset.run;
    if (run === undefined) return;
    this.board.setRunColor(run, this.picker.value);
  }

  openPicker(run, row) {
    this.picker.value = normalizeHex(this.board.colorOf(run)) || PALETTE[0];
    this.picker.dataset.run = run;
    row.append(this.picker);
    this.picker.click();
  }

  render() {
    const listed = this.listed();
    const { hidden_runs: names, hidden_patterns: patterns } = this.visibility();
    const isHidden = hiddenTest(names, patterns);
    const hidden = (this.hidden = new Set(listed.filter(isHidden)));
    const total = this.board.runNames().length;
    const on = listed.length - hidden.size;
    this.all.checked = listed.length > 0 && on === listed.length;
    this.all.indeterminate = on > 0 && on < listed.length;
    this.count.textContent = total === listed.length ? `${on}/${total}` : `${on}/${listed.length} of ${total}`;
    const items = selectorItems(listed, this.board.model.get("run_groups")).flatMap((item) =>
      item.run !== undefined ? [item] : groupItems(item, this.open),
    );
    if (items.length === 0) items.push({ empty: total ? "No run matches the filter" : "No runs yet" });
    this.rows.setItems(items);
  }

  /** The row of one item: a run, a group (run_selector_groups.js) or the empty list's note. */
  drawItem(item) {
    if (item.empty) return h("div", { class: "tbnb-empty", text: item.empty });
    if (item.run === undefined) {
      const colors = { runColors: this.board.trait("run_colors"), colorOf: (run) => this.board.colorOf(run) };
      const color = groupColor(item.group, item.members, colors);
      const setVisible = (runs, visible) => this.setVisible(runs, visible);
      return groupRow(item, { hidden: this.hidden, open: this.open, color, rerender: () => this.render(), setVisible });
    }
    const row = this.runRow(item.run);
    if (item.member) row.classList.add("tbnb-group-member");
    return row;
  }

  runRow(run) {
    const row = h("div", { class: "tbnb-run", role: "listitem", title: run });
    const swatch = h("button", {
      type: "button",
      class: "tbnb-swatch",
      title: `Colour of ${run}`,
      "aria-label": `Colour of ${run}`,
      style: { background: this.board.colorOf(run) },
      on: { click: () => this.openPicker(run, row) },
    });
    const box = h("input", {
      type: "checkbox",
      checked: !this.hidden.has(run),
      on: { change: (event) => this.setVisible([run], event.target.checked) },
    });
    const focused = this.board.model.get("focus") === run;
    // The selector is the board's legend: its focus button does what a click on the run's line does.
    const focus = h("button", {
      type: "button",
      class: "tbnb-focus",
      text: "◎",
      title: focused ? `Stop focusing ${run}` : `Focus ${run} on every card`,
      "aria-label": `Focus ${run}`,
      "aria-pressed": String(focused),
      on: { click: () => this.board.setTrait("focus", nextFocus(this.board.model.get("focus"), run)) },
    });
    row.classList.toggle("tbnb-run-focused", focused);
    row.append(h("label", {}, box, h("span", { class: "tbnb-run-name", text: run })), focus, swatch);
    return row;
  }

  destroy() {
    this.writeFilter.cancel();
    this.rows.destroy();
  }
}
