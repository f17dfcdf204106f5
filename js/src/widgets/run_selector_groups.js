// The run selector's run groups: with `run_groups` a regex, a group's row (disclosure arrow,
// checkbox for all its members, name, member count, the group's colour) above its members'
// rows, which fold away. The selector's list is data (items) and only rows in view are drawn,
// so a group gives items here and its row is made on demand. Toggling a group's checkbox shows
// or hides every member (the selector's setVisible: runs.js setRunsVisible). Which runs form a
// group: run_groups.js selectorItems. The CSS here also fixes the selector's row height, which the list relies on.

import { h } from "../dom.js";

/** Every row of the selector's list is this high (px): the list is virtualised (virtual_list.js)
 * and places rows by index, so it is told the height rather than measuring a row, which could be
 * the empty list's note (a Board shown before its logdir is read starts with one). */
export const ROW_PX = 24;
const CSS = `
.tbnb .tbnb-runs-list .tbnb-run,.tbnb .tbnb-runs-list .tbnb-empty{height:${ROW_PX}px;padding-top:0;padding-bottom:0;box-sizing:border-box;overflow:hidden}
.tbnb .tbnb-run-group{font-weight:600}
.tbnb .tbnb-group-fold{border:0;background:none;color:inherit;cursor:pointer;padding:0 2px;font-size:11px;width:16px}
.tbnb .tbnb-group-count{color:var(--tbnb-fg2, #888);font-weight:400;font-size:11px}
.tbnb .tbnb-group-member{padding-left:30px}
.tbnb .tbnb-group-swatch{width:12px;height:12px;border-radius:3px;flex:none}
`;
const STYLED = new WeakSet();

/** The selector's CSS (row height, groups), added once to the Board's own <style>. */
export function addSelectorStyle(root) {
  const style = root && root.querySelector(":scope > style");
  if (!style || STYLED.has(root)) return;
  STYLED.add(root);
  style.textContent += CSS;
}

/** A group's items: the group, then (unless folded) its members. `open`: the unfolded groups. */
export function groupItems(item, open) {
  return open.has(item.group) ? [item, ...item.members.map((run) => ({ run, member: true }))] : [item];
}

/** A group's row: fold arrow, checkbox for every member, name, members shown/all, colour. */
export function groupRow({ group, members }, { hidden, open, color, rerender, setVisible }) {
  const on = members.filter((run) => !hidden.has(run)).length;
  const unfolded = open.has(group);
  const box = h("input", {
    type: "checkbox",
    checked: on === members.length,
    "aria-label": `Show group ${group}`,
    on: { change: (event) => setVisible(members, event.target.checked) },
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
  return h(
    "div",
    { class: "tbnb-run tbnb-run-group", role: "listitem", title: `${group}: ${members.join(", ")}`, dataset: { group } },
    fold,
    h("label", {}, box, h("span", { class: "tbnb-run-name", text: group }), h("span", { class: "tbnb-group-count", text: `${on}/${members.length}` })),
    h("span", { class: "tbnb-group-swatch", style: { background: color } }),
  );
}
