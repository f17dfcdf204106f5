// The dashboards (tabs) and the cards each one lays out, read from the registry
// (dashboards/index.js). Pure functions: no DOM.
//
// A dashboard module (dashboards/<name>.js) exports its card classes and `dashboard`:
//   id          the `dashboard` trait's value; its name in the registry and in the kernel's
//               list (constants.json "dashboards"), whose order the tabs follow
//   label       the tab's name
//   cards       {kind: {Card, plugin, plugins, noun, perRun, redrawOn}}: the kinds of card it
//               defines (plugins: every plugin whose tags it shows, default [plugin]).
//               Card: a class extending card.js's Card, made as new Card(board, item, section)
//               with item {kind, tag, run, plugin}; plugin: whose tags it shows (the index's
//               "plugin" field); noun: its data in messages ("No histogram data yet"); perRun:
//               a card per tag and run (else one per tag drawing every run); redrawOn: traits
//               whose change redraws its cards (optional); tagsOf: the kind's tags from the
//               index (plugin -> tag -> info) when they are not one plugin's (a segmentation is
//               four series), default the plugin's
//   cardTypes   true for a tab showing the kinds the `card_types` trait selects (time series)
//   rowsPerTag  true to lay out a row per tag and a column per run (images, audio)
//   section     a name: its cards go in one section of that name, the tag filter aside (a
//               dashboard drawn as one card that holds its own charts, e.g. custom scalars)
//   whole       true for a tab that is one card filling the area (of its one kind), laid out
//               when any run has a tag of the kind's plugin, whatever runs are selected: the
//               card lists and draws the runs itself (hparams table, mesh gallery). Its item's
//               tag is the plugin's name.
//   plotly      "full" for a dashboard drawing trace types outside plotly.js's cartesian build
//               (3D, parcoords, splom, scattergl): the page then gets the full build before
//               drawing it; default "cartesian" (scatter, bar, heatmap...), handed over first
//   fills       true for a dashboard that is not a grid of per-tag cards (projector): one card of
//               each of its kinds, not tied to a tag (item tag ""), filling the area; the card
//               says itself when it has nothing to show
//               card lists and draws the runs itself (hparams table, mesh gallery, graph
//               explorer). Its item's tag is the plugin's name.

import { CARD_TYPES, DASHBOARD_IDS, DEFAULT_CARD_TYPES } from "./constants.js";
import { CUSTOM_KIND } from "../cards/custom_card.js";
import * as registry from "../dashboards/index.js";
import { groupTags, pinnedTags } from "../groups.js";

const rank = (id) => (DASHBOARD_IDS.includes(id) ? DASHBOARD_IDS.indexOf(id) : DASHBOARD_IDS.length);

/** The dashboards in tab order: the kernel's order (any it does not list, the installed ones, go last). */
export const DASHBOARDS = [];
const BY_ID = new Map();
/** Every kind of card: kind -> {kind, Card, plugin, noun, perRun, redrawOn, label (its tab's)}. */
export const KINDS = new Map();

/**
 * Add a dashboard: each built-in one here, an installed one once its module ran (plugins.js).
 * The one entrance of the dashboard contract (docs/writing-a-dashboard.md): an id, a label and
 * card kinds whose Card is a class; an id or a kind already taken is an error.
 */
export function registerDashboard(d) {
  if (!d || typeof d.id !== "string" || !d.id || typeof d.label !== "string") throw new Error("a dashboard needs an id and a label");
  if (BY_ID.has(d.id)) throw new Error(`a dashboard ${JSON.stringify(d.id)} exists already`);
  const kinds = Object.entries(d.cards && typeof d.cards === "object" ? d.cards : {});
  for (const [kind, spec] of kinds) {
    if (!spec || typeof spec.Card !== "function" || typeof spec.plugin !== "string") throw new Error(`card kind ${JSON.stringify(kind)} needs a Card class and a plugin`);
    if (KINDS.has(kind)) throw new Error(`card kind ${JSON.stringify(kind)} exists already`);
  }
  for (const [kind, spec] of kinds) KINDS.set(kind, { redrawOn: [], plugins: [spec.plugin], ...spec, kind, label: d.label });
  DASHBOARDS.push(d);
  DASHBOARDS.sort((a, b) => rank(a.id) - rank(b.id) || (a.id < b.id ? -1 : 1));
  BY_ID.set(d.id, d);
}

for (const d of Object.values(registry)) registerDashboard(d);
const DEFAULT = BY_ID.get(DASHBOARD_IDS[0]) || DASHBOARDS[0];

// The custom cards (board.add_card): a kind of no dashboard, laid out in the time series tab.
KINDS.set("custom", { ...CUSTOM_KIND, kind: "custom" });

/** The time series tab's "Custom" section: a card per title of the `custom_cards` trait. */
function customGroups(id, custom) {
  const titles = Array.isArray(custom) ? custom.filter((t) => typeof t === "string") : [];
  if (!titles.length || !BY_ID.get(id).cardTypes) return [];
  return [{ name: "Custom", items: titles.map((tag) => ({ kind: "custom", tag, run: null, rowStart: false })) }];
}

/** The spec of a kind of card (undefined for an unknown kind). */
export function kindOf(kind) {
  return KINDS.get(kind);
}

/** The trait value -> a known dashboard's id (the default, "timeseries", for anything else). */
export function normalizeDashboard(value) {
  return BY_ID.has(value) ? value : DEFAULT.id;
}

/** The plotly.js build ("cartesian" | "full", plotly.js) the dashboard `value` draws with. */
export function plotlyNeed(value) {
  return BY_ID.get(normalizeDashboard(value)).plotly === "full" ? "full" : "cartesian";
}

/** The tab's label (the default tab's for an unknown value). */
export function dashboardLabel(value) {
  return BY_ID.get(normalizeDashboard(value)).label;
}

/** What the card-type filter calls a card type ("Scalars"). */
export function cardTypeLabel(type) {
  const spec = KINDS.get(type);
  return spec ? spec.label : type;
}

/** The `card_types` trait -> the known types it lists, in display order (the default when not a list). */
export function normalizeCardTypes(value) {
  if (!Array.isArray(value)) return DEFAULT_CARD_TYPES.slice();
  return CARD_TYPES.filter((type) => value.includes(type));
}

/** `card_types` after switching `type` on or off (kept in display order). */
export function toggleCardType(value, type, on) {
  const set = new Set(normalizeCardTypes(value));
  if (on) set.add(type);
  else set.delete(type);
  return CARD_TYPES.filter((t) => set.has(t));
}

/** Whether the tab shows the card-type filter (its kinds are the `card_types` trait's). */
export function showsCardTypes(dashboard) {
  return Boolean(BY_ID.get(normalizeDashboard(dashboard)).cardTypes);
}

/** The kinds of card a dashboard shows, in the order they appear within a tag. */
export function kindsFor(dashboard, cardTypes) {
  const d = BY_ID.get(normalizeDashboard(dashboard));
  return d.cardTypes ? normalizeCardTypes(cardTypes) : Object.keys(d.cards);
}

/** Whether a kind has a card per tag and run (else one card per tag draws every run). */
export function perRun(kind) {
  const spec = KINDS.get(kind);
  return spec ? spec.perRun : true;
}

/** Dashboards laid out as TensorBoard's image and audio dashboards: a row per tag, a column per run. */
export function rowsPerTag(dashboard) {
  return Boolean(BY_ID.get(normalizeDashboard(dashboard)).rowsPerTag);
}

/** Whether a dashboard is one area-filling card per kind rather than cards per tag. */
export function fills(dashboard) {
  return Boolean(BY_ID.get(normalizeDashboard(dashboard)).fills);
}

/** trait -> the kinds of card its change redraws (each kind's `redrawOn`). */
export function redrawTraits() {
  const out = new Map();
  for (const spec of KINDS.values()) {
    for (const name of spec.redrawOn) out.set(name, [...(out.get(name) || []), spec.kind]);
  }
  return out;
}

/** Whether the tab is one card filling the area (the dashboard's `whole` flag). */
export function isWhole(dashboard) {
  return Boolean(BY_ID.get(normalizeDashboard(dashboard)).whole);
}

/** The layout of a `whole` tab: its one card when its plugin has any tag, in a section named
 * after the tab. */
function wholeItems(id, kinds, tags) {
  const kind = kinds[0];
  const spec = KINDS.get(kind);
  const any = spec && spec.plugins.some((plugin) => (tags.get(plugin) || new Map()).size > 0);
  const items = any ? [{ kind, tag: spec.plugin, run: null, rowStart: false }] : [];
  return { pinned: [], groups: items.length ? [{ name: BY_ID.get(id).label, items }] : [], tags: items.map((i) => i.tag), kinds };
}

/**
 * The cards of a dashboard.
 *
 * @param {{dashboard: string, cardTypes: string[], tags: Map<string, Map<string, {runs: string[]}>>,
 *   shown: Set<string>, filter: string, pinned: string[]}} spec
 *   tags: plugin -> tag -> info (runs in index order); shown: the runs selected
 * @returns {{pinned: object[], groups: {name: string, items: object[]}[], tags: string[], kinds: string[]}}
 *   items are {kind, tag, run (null for a card of every run), rowStart}; `tags` are the tags that
 *   have a card (before the tag filter), for completion
 */
export function layoutItems({ dashboard, cardTypes, tags, shown, filter = "", pinned = [], custom = [] }) {
  const id = normalizeDashboard(dashboard);
  const kinds = kindsFor(id, cardTypes);
  if (isWhole(id)) return wholeItems(id, kinds, tags);
  if (fills(id)) {
    const items = kinds.map((kind) => ({ kind, tag: "", run: null, rowStart: false }));
    return { pinned: [], groups: [{ name: dashboardLabel(id), items }], tags: [], kinds, fills: true };
  }
  const rows = rowsPerTag(id);
  const runsOf = new Map(); // tag -> [[kind, runs]]
  for (const kind of kinds) {
    const spec = KINDS.get(kind);
    const byTag = spec && (spec.tagsOf ? spec.tagsOf(tags) : tags.get(spec.plugin));
    if (!byTag) continue;
    for (const [tag, info] of byTag) {
      const runs = (info.runs || []).filter((run) => shown.has(run));
      if (runs.length === 0) continue;
      if (!runsOf.has(tag)) runsOf.set(tag, []);
      runsOf.get(tag).push([kind, runs]);
    }
  }
  const itemsOf = (tag) => {
    const items = [];
    for (const [kind, runs] of runsOf.get(tag) || []) {
      if (!perRun(kind)) items.push({ kind, tag, run: null, rowStart: false });
      else for (const run of runs) items.push({ kind, tag, run, rowStart: rows && items.length === 0 });
    }
    return items;
  };
  const all = [...runsOf.keys()];
  const section = BY_ID.get(id).section;
  const customs = customGroups(id, custom);
  return {
    custom: customs.length > 0,
    pinned: section ? [] : pinnedTags(pinned, all).flatMap(itemsOf),
    groups: customs.concat(section
      ? [{ name: section, items: all.flatMap(itemsOf) }].filter((group) => group.items.length > 0)
      : groupTags(all, filter).map((group) => ({ name: group.name, items: group.tags.flatMap(itemsOf) }))),
    tags: all,
    kinds,
  };
}

/** "a", "a or b", "a, b or c". */
function either(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}` : words[0];
}

/**
 * What the cards area says instead of cards, or null when it has cards to show.
 * @param layout  layoutItems' result
 * @param tags    plugin -> tag -> info (the index)
 * @param filter  the `tag_filter` trait; message: the `status` trait's message
 */
export function emptyMessage(layout, { tags, filter, message }) {
  const { kinds } = layout;
  if (layout.fills || layout.custom) return null;
  if (kinds.length === 0) return `No card type is selected: tick ${either(CARD_TYPES.map(cardTypeLabel))} above.`;
  const noun = either([...new Set(kinds.map((kind) => KINDS.get(kind).noun))]);
  const anyTag = kinds.some((kind) => KINDS.get(kind).plugins.some((plugin) => (tags.get(plugin) || new Map()).size > 0));
  if (!anyTag) {
    const appear = noun === "scalar" ? "scalars appear" : "data appears";
    if (typeof message === "string" && message) return `No ${noun} data yet: ${message}.`;
    return `No ${noun} data yet. The kernel reads the logdir again and again: ${appear} here once written.`;
  }
  if (layout.tags.length === 0) return `No selected run has ${noun} data: see the run selector on the left.`;
  if (layout.groups.length === 0) return `No tag matches the filter “${filter}”.`;
  return null;
}
