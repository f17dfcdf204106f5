// The Board's dashboards (tabs) and the cards each one shows. The `dashboard` trait names the tab;
// the time series tab shows the card types of `card_types`; every other tab shows one kind of
// card. Pure functions: no DOM.

import { groupTags, pinnedTags } from "./groups.js";

/** The tabs, in TensorBoard's order and with its names: [trait value, label]. */
export const DASHBOARDS = [
  ["timeseries", "Time series"],
  ["scalars", "Scalars"],
  ["histograms", "Histograms"],
  ["distributions", "Distributions"],
  ["images", "Images"],
  ["audio", "Audio"],
  ["text", "Text"],
];

/** The card types the time series tab can show (the `card_types` trait), in display order. */
export const CARD_TYPES = ["scalars", "histograms", "images"];
export const CARD_TYPE_LABELS = { scalars: "Scalars", histograms: "Histograms", images: "Images" };

/** Each kind of card reads the tags of one plugin (distributions are drawn from histograms). */
export const PLUGIN_OF = {
  scalars: "scalars",
  histograms: "histograms",
  distributions: "histograms",
  images: "images",
  audio: "audio",
  text: "text",
};

/** What a tab's data is called in messages to the user ("No histogram data yet"). */
export const NOUNS = {
  scalars: "scalar",
  histograms: "histogram",
  distributions: "histogram",
  images: "image",
  audio: "audio",
  text: "text",
};

const IDS = new Set(DASHBOARDS.map(([id]) => id));

/** The trait value -> a known dashboard ("timeseries" for anything else). */
export function normalizeDashboard(value) {
  return IDS.has(value) ? value : "timeseries";
}

/** The tab's label ("Time series" for an unknown value). */
export function dashboardLabel(value) {
  const id = normalizeDashboard(value);
  return DASHBOARDS.find(([d]) => d === id)[1];
}

/** The `card_types` trait -> the known types it lists, in display order (all when not a list). */
export function normalizeCardTypes(value) {
  if (!Array.isArray(value)) return CARD_TYPES.slice();
  return CARD_TYPES.filter((type) => value.includes(type));
}

/** `card_types` after switching `type` on or off (kept in display order). */
export function toggleCardType(value, type, on) {
  const set = new Set(normalizeCardTypes(value));
  if (on) set.add(type);
  else set.delete(type);
  return CARD_TYPES.filter((t) => set.has(t));
}

/** The kinds of card a dashboard shows, in the order they appear within a tag. */
export function kindsFor(dashboard, cardTypes) {
  const id = normalizeDashboard(dashboard);
  if (id === "timeseries") return normalizeCardTypes(cardTypes);
  return [id];
}

/** Scalar cards draw every run of a tag; every other kind has one card per tag and run. */
export function perRun(kind) {
  return kind !== "scalars";
}

/** Dashboards laid out as TensorBoard's image and audio dashboards: a row per tag, a column per run. */
export function rowsPerTag(dashboard) {
  return dashboard === "images" || dashboard === "audio";
}

/**
 * The cards of a dashboard.
 *
 * @param {{dashboard: string, cardTypes: string[], tags: Map<string, Map<string, {runs: string[]}>>,
 *   shown: Set<string>, filter: string, pinned: string[]}} spec
 *   tags: plugin -> tag -> info (runs in index order); shown: the runs selected
 * @returns {{pinned: object[], groups: {name: string, items: object[]}[], tags: string[], kinds: string[]}}
 *   items are {kind, tag, run (null for scalar cards), rowStart}; `tags` are the tags that have
 *   a card (before the tag filter), for completion
 */
export function layoutItems({ dashboard, cardTypes, tags, shown, filter = "", pinned = [] }) {
  const id = normalizeDashboard(dashboard);
  const kinds = kindsFor(id, cardTypes);
  const rows = rowsPerTag(id);
  const runsOf = new Map(); // tag -> [[kind, runs]]
  for (const kind of kinds) {
    const byTag = tags.get(PLUGIN_OF[kind]);
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
  return {
    pinned: pinnedTags(pinned, all).flatMap(itemsOf),
    groups: groupTags(all, filter).map((group) => ({ name: group.name, items: group.tags.flatMap(itemsOf) })),
    tags: all,
    kinds,
  };
}
