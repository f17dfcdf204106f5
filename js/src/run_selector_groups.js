// The run selector's run groups: with `run_groups` a regex, a group's row (disclosure arrow,
// checkbox for all its members, name, member count, the group's colour) above its members'
// rows, which fold away. Toggling a group's checkbox shows or hides every member (writes
// `hidden_runs`). Which runs form a group: run_groups.js selectorItems.

import { h } from "./dom.js";
import { setAllHidden } from "./runs.js";

const CSS = `
.tbnb .tbnb-run-group{font-weight:600}
.tbnb .tbnb-group-fold{border:0;background:none;color:inherit;cursor:pointer;padding:0 2px;font-size:11px;width:16px}
.tbnb .tbnb-group-count{color:var(--tbnb-fg2, #888);font-weight:400;font-size:11px}
.tbnb .tbnb-group-member{padding-left:30px}
.tbnb .tbnb-group-swatch{width:12px;height:12px;border-radius:3px;flex:none}
`;
const STYLED = new WeakSet();

/** The groups' CSS, added once to the Board's own <style>. */
export function addGroupStyle(root) {
  const style = root && root.querySelector(":scope > style");
  if (!style || STYLED.has(root)) return;
  STYLED.add(root);
  style.textContent += CSS;
}

/**
 * A group's rows: its own row, then (unless folded) its members' rows made by `runRow(run)`.
 * `open`: the Set of unfolded group names (the selector keeps it).
 */
export function groupRows(board, item, { hidden, open, runRow, color, rerender }) {
  const { group, members } = item;
  const on = members.filter((run) => !hidden.has(run)).length;
  const unfolded = open.has(group);
  const box = h("input", {
    type: "checkbox",
    checked: on === members.length,
    "aria-label": `Show group ${group}`,
    on: { change: (event) => board.setTrait("hidden_runs", setAllHidden(board.trait("hidden_runs"), members, event.target.checked)) },
  });
  box.indeterminate = on > 0 && on < members.length;
  const fold = h("button", {
    type: "button",
    class: "tbnb-group-fold",
    text: unfolded ? "▾" : "▸",
    title: unfolded ? "Fold the group's runs" : "Show the group's runs",
    "aria-expanded": String(unfolded),
    on: {
      click: () => {
        if (open.has(group)) open.delete(group);
        else open.add(group);
        rerender();
      },
    },
  });
  const row = h(
    "div",
    { class: "tbnb-run tbnb-run-group", role: "listitem", title: `${group}: ${members.join(", ")}`, dataset: { group } },
    fold,
    h("label", {}, box, h("span", { class: "tbnb-run-name", text: group }), h("span", { class: "tbnb-group-count", text: `${on}/${members.length}` })),
    h("span", { class: "tbnb-group-swatch", style: { background: color } }),
  );
  if (!unfolded) return [row];
  return [row, ...members.map((run) => {
    const member = runRow(run);
    member.classList.add("tbnb-group-member");
    return member;
  })];
}
