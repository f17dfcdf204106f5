// The kernel's "index" reply (protocol.md) -> what the Board looks runs and tags up in. Pure:
// no DOM. Malformed entries are skipped; a tag listed twice for one plugin is merged.

const SCALARS = "scalars"; // protocol version 1: an entry without "plugin" is a scalar tag

/**
 * @returns {{runs: string[], colors: Map<string, string | undefined>, order: Map<string, number>,
 *   plugins: Map<string, Map<string, {runs: string[], points: object}>>, problems: string[]}}
 *   runs in the kernel's order (runs only named by a tag last); each tag's runs in that order
 */
export function parseIndex(msg) {
  const plugins = new Map(); // plugin -> tag -> {runs, points}
  const names = [];
  const colors = new Map();
  for (const run of msg.runs || []) {
    const name = typeof run === "string" ? run : run && run.name;
    if (typeof name !== "string" || colors.has(name)) continue;
    names.push(name);
    colors.set(name, run.color);
  }
  for (const entry of msg.tags || []) {
    if (!entry || typeof entry.tag !== "string") continue;
    const plugin = entry.plugin === undefined ? SCALARS : entry.plugin;
    if (typeof plugin !== "string") continue;
    const runs = (entry.runs || []).filter((run) => typeof run === "string");
    for (const run of runs) {
      if (!colors.has(run)) {
        names.push(run);
        colors.set(run, undefined);
      }
    }
    if (!plugins.has(plugin)) plugins.set(plugin, new Map());
    const tags = plugins.get(plugin);
    const known = tags.get(entry.tag);
    if (known) {
      // the same tag and plugin twice: merge
      for (const run of runs) if (!known.runs.includes(run)) known.runs.push(run);
      Object.assign(known.points, entry.points || {});
    } else tags.set(entry.tag, { runs, points: { ...(entry.points || {}) } });
  }
  // Cards draw runs in index order; keep it stable for runs already seen.
  const order = new Map(names.map((name, i) => [name, i]));
  for (const tags of plugins.values()) {
    for (const info of tags.values()) info.runs.sort((a, b) => order.get(a) - order.get(b));
  }
  return { runs: names, colors, order, plugins, problems: (msg.problems || []).map(String) };
}

/** Whether two parsed indexes list the same runs (order and colours) and the same tags of each
 * plugin with the same runs: what cards are made from. Point counts and problems may differ. */
export function sameLayout(a, b) {
  if (!a || !b || a.runs.length !== b.runs.length || a.plugins.size !== b.plugins.size) return false;
  if (a.runs.some((run, i) => run !== b.runs[i] || a.colors.get(run) !== b.colors.get(run))) return false;
  for (const [plugin, tags] of a.plugins) {
    const other = b.plugins.get(plugin);
    if (!other || other.size !== tags.size) return false;
    for (const [tag, info] of tags) {
      const next = other.get(tag);
      if (!next || next.runs.length !== info.runs.length || next.runs.some((run, i) => run !== info.runs[i])) return false;
    }
  }
  return true;
}
