// Cards grouped as TensorBoard's time series groups them: by the tag prefix before the first
// "/", groups and tags in natural order, filtered by a case-insensitive regex (searched, not
// anchored). An invalid filter filters nothing. Pure functions: no DOM.

import { naturalSort } from "./naturalsort.js";

/** The group of a tag: the text before its first "/" (the tag itself when it has none). */
export function tagGroup(tag) {
  const i = tag.indexOf("/");
  return i < 0 ? tag : tag.slice(0, i);
}

/** RegExp for the tag filter, or null when it is empty or invalid (then nothing is filtered). */
export function compileTagFilter(text) {
  if (typeof text !== "string" || text === "") return null;
  try {
    return new RegExp(text, "i");
  } catch {
    return null;
  }
}

/** Whether the tag filter text is a valid regex (the empty filter is valid). */
export function isValidFilter(text) {
  return !text || compileTagFilter(text) !== null;
}

/** Tags that pass the filter (a RegExp or filter text), in natural order. */
export function filterTags(tags, filter) {
  const re = typeof filter === "string" ? compileTagFilter(filter) : filter;
  const kept = re ? tags.filter((tag) => re.test(tag)) : tags.slice();
  return naturalSort(kept);
}

/** [{name, tags}] in natural order of group names, tags in natural order within each group. */
export function groupTags(tags, filter = null) {
  const groups = new Map();
  for (const tag of filterTags(tags, filter)) {
    const name = tagGroup(tag);
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(tag);
  }
  return naturalSort([...groups.keys()]).map((name) => ({ name, tags: groups.get(name) }));
}

/** Pinned tags that exist, in the order they were pinned, without duplicates. */
export function pinnedTags(pinned, available) {
  const have = new Set(available);
  const out = [];
  for (const tag of pinned || []) {
    if (have.has(tag) && !out.includes(tag)) out.push(tag);
  }
  return out;
}
