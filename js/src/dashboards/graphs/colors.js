// Node colours of the graph explorer and their legend, for each `graph_color_by` choice. Pure
// functions of the level model (levels.js): no DOM.

/** Categorical colours (structure, device, op), TensorBoard's graph palette in spirit. */
export const CATEGORIES = [
  "#8dd3c7", "#fdb462", "#bebada", "#fb8072", "#80b1d3", "#b3de69", "#fccde5", "#ccebc5",
  "#ffed6f", "#bc80bd", "#d9d9d9", "#a6cee3", "#fdbf6f", "#cab2d6", "#b2df8a",
];
export const NEUTRAL = { op: "#ffffff", group: "#d9e2ef" };
export const UNKNOWN = "#e0e0e0";
/** Compute time and memory: light to dark. */
export const RAMP = ["#fff5eb", "#7f2704"];
const MAX_LEGEND = 12;

function hex(c) {
  return [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));
}

/** The colour at t in [0, 1] between the ends of RAMP. */
export function ramp(t) {
  const a = hex(RAMP[0]);
  const b = hex(RAMP[1]);
  const u = Math.min(1, Math.max(0, t));
  return `#${a.map((v, k) => Math.round(v + (b[k] - v) * u).toString(16).padStart(2, "0")).join("")}`;
}

function categorical(values) {
  const table = new Map();
  for (const v of values) if (v !== null && v !== undefined && !table.has(v)) table.set(v, CATEGORIES[table.size % CATEGORIES.length]);
  return table;
}

/**
 * @returns {{fill: string[], legend: {kind: "none"|"categories"|"ramp", items?: {label, color}[],
 *   more?: number, min?: number, max?: number, unit?: string}}}  a fill per node
 */
export function nodeColors(model, by) {
  const neutral = model.nodes.map((node) => (node.kind === "op" ? NEUTRAL.op : NEUTRAL.group));
  if (by === "structure") {
    const groups = model.nodes.filter((node) => node.kind !== "op");
    const table = categorical(groups.map((node) => node.template));
    const fill = model.nodes.map((node) => (node.kind === "op" ? NEUTRAL.op : table.get(node.template)));
    const shared = [...table.keys()].filter((t) => groups.filter((node) => node.template === t).length > 1);
    const items = shared.slice(0, MAX_LEGEND).map((t) => ({
      label: `same structure as ${groups.find((node) => node.template === t).label}`,
      color: table.get(t),
    }));
    return { fill, legend: { kind: "categories", items, more: Math.max(0, shared.length - MAX_LEGEND), title: "Scopes alike share a colour" } };
  }
  if (by === "device" || by === "op") {
    const key = (node) => (by === "device" ? node.device || null : node.kind === "op" ? node.op : null);
    const counts = new Map();
    for (const node of model.nodes) {
      const k = key(node);
      if (k !== null) counts.set(k, (counts.get(k) || 0) + 1);
    }
    const ordered = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1));
    const table = categorical(ordered);
    const fill = model.nodes.map((node, i) => (key(node) === null ? neutral[i] : table.get(key(node))));
    const items = ordered.slice(0, MAX_LEGEND).map((k) => ({ label: k || "(no device)", color: table.get(k) }));
    return { fill, legend: { kind: "categories", items, more: Math.max(0, ordered.length - MAX_LEGEND), title: by === "device" ? "Device" : "Op" } };
  }
  if (by === "compute_time" || by === "memory") {
    const field = by === "compute_time" ? "computeTime" : "memory";
    const values = model.nodes.map((node) => node[field]).filter(Number.isFinite);
    const max = values.length ? Math.max(...values) : 0;
    const min = values.length ? Math.min(...values) : 0;
    const fill = model.nodes.map((node) => {
      const v = node[field];
      if (!Number.isFinite(v)) return UNKNOWN;
      return ramp(max > min ? (v - min) / (max - min) : 1);
    });
    const unit = by === "compute_time" ? "µs" : "bytes";
    return { fill, legend: { kind: "ramp", min, max, unit, known: values.length, title: by === "compute_time" ? "Compute time" : "Memory" } };
  }
  return { fill: neutral, legend: { kind: "none", title: "" } };
}
