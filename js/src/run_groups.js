// Run groups on the page: the `groups` field of a card's requests (from the run_groups,
// group_line and group_band traits), the kernel's group entries as series, their traces (a band
// filled between its lower and upper edges, translucent in the group's colour, under the group's
// line), the hover text (group, n, members), the data table's "mean ± spread" cells, and the run
// selector's grouping (the regex run in the browser). Pure functions: no DOM.

import { escapePlotly } from "./format.js";
import { fromMessage, isNonDecreasing } from "./series.js";
import { smooth } from "./smoothing.js";
import { toDisplayX } from "./xaxis.js";

/** The traits a scalar card redraws with (asking the kernel again). */
export const GROUP_TRAITS = ["run_groups", "group_line", "group_band"];
const BAND_OPACITY = 0.2;
const HOVER_MEMBERS = 6; // members named in a hover before "and k more"

/** The grouping a card sends ({by, line, band}), or null when run_groups is off. */
export function grouping(model) {
  const by = model.get("run_groups");
  const on = typeof by === "string" ? by !== "" : Array.isArray(by) && by.length > 0;
  if (!on) return null;
  return { by, line: model.get("group_line") || "mean", band: model.get("group_band") || "std" };
}

/** `{groups}` to spread into a request's content, or {} when grouping is off. */
export function groupFields(model) {
  const g = grouping(model);
  return g ? { groups: g } : {};
}

/** A reply's `groups` -> Map group -> series (with members, n, lower, upper). */
export function groupMap(msg) {
  const out = new Map();
  for (const entry of (msg && msg.groups) || []) {
    const s = fromMessage(entry);
    s.members = entry.members || [];
    s.points = Number.isFinite(entry.points) ? entry.points : 0; // the members' points it is computed from
    s.n = Array.from(entry.n || [], Number);
    if (entry.lower) s.lower = Array.from(entry.lower, Number);
    if (entry.upper) s.upper = Array.from(entry.upper, Number);
    out.set(entry.group, s);
  }
  return out;
}

function spliceRange(full, part, range, key) {
  const x = full.x;
  let i0 = 0;
  while (i0 < x.length && x[i0] < range[0]) i0++;
  let i1 = i0;
  while (i1 < x.length && x[i1] <= range[1]) i1++;
  return [...Array.from(full[key]).slice(0, i0), ...Array.from(part[key]), ...Array.from(full[key]).slice(i1)];
}

/** A group's overview with the exact points of a zoom's x range put in (as series.js mergeZoom). */
export function mergeGroupZoom(full, part, range) {
  if (!part) return full;
  if (!full || !range || !isNonDecreasing(full.x)) return part;
  const out = { ...full, exact: full.exact && part.exact };
  for (const key of ["x", "y", "step", "n", "lower", "upper"]) {
    if (full[key] && part[key]) out[key] = spliceRange(full, part, range, key);
  }
  return out;
}

/** The colour of a group: run_colors[group] when set, else its first member's colour. */
export function groupColor(name, members, { runColors, colorOf }) {
  const chosen = runColors && runColors[name];
  if (typeof chosen === "string" && /^#(?:[0-9a-fA-F]{3}){1,2}$/.test(chosen)) return chosen;
  return colorOf(members && members.length ? members[0] : name);
}

/** `#rrggbb` (or `#rgb`) -> `rgba(r, g, b, alpha)`. */
export function translucent(hex, alpha) {
  let v = String(hex).replace("#", "");
  if (v.length === 3) v = v.split("").map((c) => c + c).join("");
  const n = parseInt(v, 16);
  if (!Number.isFinite(n) || v.length !== 6) return `rgba(128, 128, 128, ${alpha})`;
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** The members named in a hover: the first few, then how many more. */
export function memberList(members) {
  const named = members.slice(0, HOVER_MEMBERS).join(", ");
  return members.length > HOVER_MEMBERS ? `${named} and ${members.length - HOVER_MEMBERS} more` : named;
}

/** The group line's hover text: group, its line statistic, n of the members, the members. */
export function groupHoverTemplate(name, s, line) {
  const members = escapePlotly(memberList(s.members));
  return `${escapePlotly(name)} (${line}): <b>%{y:.4~g}</b> · n %{customdata[2]}/${s.members.length} · step %{customdata[1]:,}<br><span style="font-size:0.85em">${members}</span><extra></extra>`;
}

/**
 * The traces of the groups (after the runs' traces): per group a band (lower edge, then upper
 * edge filled to it) when its band is not "none", then its line. Line and band edges are
 * smoothed with the lines' weight.
 * @returns {{traces, lines, shown, lineTraces: number[]}} as scalarTraces' (lineTraces: the
 *   group lines' indices among `traces`)
 */
export function groupTraces({ groups, zoom, zoomGroups, smoothing, xAxis, unit, colorOf, line = "mean" }) {
  const traces = [];
  const lines = [];
  const shown = [];
  const lineTraces = [];
  for (const [name, overview] of groups || []) {
    const zoomed = zoom && zoom.x && zoomGroups ? zoomGroups.get(name) : null;
    const s = zoomed ? mergeGroupZoom(overview, zoomed, zoom.x) : overview;
    const x = toDisplayX(s.x, xAxis, unit);
    const color = colorOf(name, s.members);
    if (s.lower && s.upper) {
      const lower = smooth(s.lower, smoothing);
      const upper = smooth(s.upper, smoothing);
      traces.push({ type: "scatter", mode: "lines", x, y: lower, line: { width: 0, color }, hoverinfo: "skip", showlegend: false, meta: { band: name } });
      traces.push({ type: "scatter", mode: "lines", x, y: upper, line: { width: 0, color }, fill: "tonexty", fillcolor: translucent(color, BAND_OPACITY), hoverinfo: "skip", showlegend: false, meta: { band: name } });
      lines.push({ x: s.x, y: lower }, { x: s.x, y: upper });
    }
    const y = smooth(s.y, smoothing);
    const customdata = Array.from(s.y, (v, i) => [v, s.step[i], s.n ? s.n[i] : ""]);
    traces.push({
      type: "scatter",
      mode: "lines",
      name: escapePlotly(name),
      x,
      y,
      line: { color, width: 2.5 },
      customdata,
      hovertemplate: groupHoverTemplate(name, s, line),
      showlegend: false,
      meta: { group: name },
    });
    lineTraces.push(traces.length - 1);
    shown.push({ run: name, x: s.x, y: s.y, name: escapePlotly(name), wall: false, group: true });
    lines.push({ x: s.x, y });
  }
  return { traces, lines, shown, lineTraces };
}

/** A card's drawing (scalarTraces' result) with the groups' traces after the runs'. */
export function appendGroups(drawn, groupsDrawn) {
  const offset = drawn.traces.length;
  return {
    ...drawn,
    traces: [...drawn.traces, ...groupsDrawn.traces],
    lines: [...drawn.lines, ...groupsDrawn.lines],
    shown: [...drawn.shown, ...groupsDrawn.shown],
    smoothedTraces: [...drawn.smoothedTraces, ...groupsDrawn.lineTraces.map((i) => i + offset)],
  };
}

/** What a card's subtitle adds for its groups: " · 2 groups (6 runs)", or "". */
export function groupNote(groups) {
  if (!groups || !groups.size) return "";
  let runs = 0;
  for (const s of groups.values()) runs += s.members.length;
  return ` · ${groups.size} group${groups.size === 1 ? "" : "s"} (${runs} runs)`;
}

/**
 * `count` ({total, sent, exact} over the runs drawn alone: series.js countPoints) with the groups
 * added: a group counts the member points its line and band are computed from (the kernel's
 * `points`, in range when zoomed), as a run counts its own; it draws its line's points (`sent`),
 * every one of them unless the line was thinned.
 */
export function withGroupPoints(count, groups) {
  if (!groups || !groups.size) return count;
  let { total, sent, exact } = count;
  for (const s of groups.values()) {
    total += s.points;
    sent += s.sent;
    exact = exact && s.exact && s.sent >= s.total;
  }
  return { total, sent, exact };
}

/** A table cell of a group row: "value ± spread" for the line's value columns, else null. */
export function groupCell(row, key, format) {
  if (!row || row.spread === null || row.spread === undefined || !Number.isFinite(row.spread)) return null;
  if (!["value", "smoothed", "mean"].includes(key)) return null;
  return `${format(row[key])} ± ${format(row.spread)}`;
}

// ---------------------------------------------------------------------------- run selector

/** A Python regex as a JavaScript one: `(?P<name>` -> `(?<name>`, `(?P=name)` -> `\k<name>`. */
export function jsPattern(pattern) {
  return String(pattern).replace(/\(\?P<([A-Za-z_]\w*)>/g, "(?<$1>").replace(/\(\?P=([A-Za-z_]\w*)\)/g, "\\k<$1>");
}

/** RegExp matching a whole run name, or null when it does not compile or has no `group`. */
export function compileGroups(pattern) {
  if (typeof pattern !== "string" || !pattern) return null;
  try {
    const re = new RegExp(`^(?:${jsPattern(pattern)})$`);
    return re.source.includes("(?<group>") ? re : null;
  } catch {
    return null;
  }
}

/**
 * The run selector's items: [{group, members}] and [{run}] in the order of `runs` (a group at
 * its first member's place); every run alone when the pattern is off or a list of hparams
 * (the browser does not know the hparams; the cards still group by them).
 */
export function selectorItems(runs, pattern) {
  const re = compileGroups(pattern);
  const items = [];
  const byName = new Map();
  for (const run of runs) {
    const m = re ? re.exec(run) : null;
    const name = m && m.groups && m.groups.group !== undefined ? m.groups.group : null;
    if (name === null) {
      items.push({ run });
    } else if (byName.has(name)) {
      byName.get(name).members.push(run);
    } else {
      const item = { group: name, members: [run] };
      byName.set(name, item);
      items.push(item);
    }
  }
  return items;
}
