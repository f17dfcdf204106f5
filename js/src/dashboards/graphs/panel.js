// The graph explorer's side panel: the legend of the node colours, the search's matches and
// the selected node's info (tbnb/reader/plugins/graph/info.py). Everything from the log is text.

import { h } from "../../dom.js";
import { formatCount } from "../../format.js";

function shapeText(shape) {
  if (shape === null || shape === undefined) return "?";
  if (!Array.isArray(shape)) return String(shape);
  return shape.length ? shape.map((d) => (d < 0 ? "?" : String(d))).join("×") : "scalar";
}

function figure(value, unit) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return "—";
  return `${formatCount(Number(value))} ${unit}`;
}

function valueText(value) {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function row(name, value) {
  return h("tr", {}, h("th", { text: name }), h("td", { text: value }));
}

/** The legend of nodeColors' result (colors.js). */
export function legend(spec) {
  const box = h("div", { class: "tbnb-graph-legend" });
  if (!spec || spec.kind === "none") return box;
  box.append(h("div", { class: "tbnb-graph-legend-title", text: spec.title }));
  if (spec.kind === "categories") {
    if (!spec.items.length) box.append(h("div", { class: "tbnb-graph-muted", text: "nothing to tell apart here" }));
    for (const item of spec.items) {
      box.append(h("div", { class: "tbnb-graph-legend-item" }, h("span", { class: "tbnb-graph-swatch", style: { background: item.color } }), h("span", { text: item.label })));
    }
    if (spec.more) box.append(h("div", { class: "tbnb-graph-muted", text: `and ${formatCount(spec.more)} more` }));
  } else if (spec.kind === "ramp") {
    if (!spec.known) box.append(h("div", { class: "tbnb-graph-muted", text: "no run metadata in this graph: pick a profile tag" }));
    else {
      box.append(
        h("div", { class: "tbnb-graph-ramp" }),
        h("div", { class: "tbnb-graph-legend-item" }, h("span", { text: figure(spec.min, spec.unit) }), h("span", { class: "tbnb-graph-grow" }), h("span", { text: figure(spec.max, spec.unit) })),
      );
    }
  }
  return box;
}

/** The search's matches (the `search` reply); pick(k) when one is clicked. */
export function searchResults(reply, pick) {
  const box = h("div", { class: "tbnb-graph-search-results" });
  if (!reply) return box;
  if (reply.error) {
    box.append(h("div", { class: "tbnb-graph-error", text: reply.error }));
    return box;
  }
  const shown = reply.matches.length;
  box.append(h("div", { class: "tbnb-graph-muted", text: reply.total > shown ? `${formatCount(reply.total)} matches, the first ${shown}:` : `${formatCount(reply.total)} match${reply.total === 1 ? "" : "es"}` }));
  reply.matches.forEach((name, k) => {
    box.append(h("button", { type: "button", class: "tbnb-graph-match", title: name, text: name, dataset: { id: reply.ids[k] }, on: { click: () => pick(k) } }));
  });
  return box;
}

function edgeList(title, edges, total) {
  if (!edges || !edges.length) return null;
  const list = h("div", { class: "tbnb-graph-edges-list" }, h("div", { class: "tbnb-graph-subtitle", text: `${title} (${formatCount(total)})` }));
  for (const e of edges) {
    const kind = e.control ? "control" : shapeText(e.shape);
    list.append(h("div", { class: "tbnb-graph-edge", title: `${e.name} (${e.op})` }, h("span", { class: "tbnb-graph-edge-name", text: e.name }), h("span", { class: "tbnb-graph-muted", text: ` ${e.op} · ${kind}` })));
  }
  if (total > edges.length) list.append(h("div", { class: "tbnb-graph-muted", text: `and ${formatCount(total - edges.length)} more` }));
  return list;
}

/**
 * The info panel's switches for the node `n` of an `info` reply: group or ungroup the series
 * it is (or belongs to), and remove it from or add it to the main graph when it is drawn
 * (`drawn`: the drawn node of that id, levels.js levelModel's, or undefined). Each is
 * {cls, text, title, trait, id, value}: clicking it sets the entry `id` of the trait (an
 * object of id -> bool) to `value`.
 */
export function nodeActions(n, drawn) {
  const out = [];
  const series = n.kind === "series" ? n.id : n.series;
  if (series) {
    const grouped = Boolean(n.series_grouped);
    out.push({
      cls: "tbnb-graph-group",
      text: grouped ? "Ungroup series" : "Group series",
      title: grouped ? `Show the ops of ${series} one by one` : `Draw the ops of ${series} as one node`,
      trait: "graph_series",
      id: series,
      value: !grouped,
    });
  }
  if (drawn) {
    const main = drawn.extract === 0;
    out.push({
      cls: "tbnb-graph-extract",
      text: main ? "Remove from main graph" : "Add to main graph",
      title: main ? "Set this node beside the main graph, its edges drawn as stubs" : "Lay this node out with the main graph",
      trait: "graph_include",
      id: n.id,
      value: !main,
    });
  }
  return out;
}

/**
 * The info panel of the `info` reply; trace() when "Trace inputs" is clicked; drawn(id): the
 * drawn node of that id (or undefined); choose(action): one of nodeActions' switches clicked.
 */
export function infoPanel(reply, { trace, tracing, drawn = () => undefined, choose = () => {} }) {
  const box = h("div", { class: "tbnb-graph-info" });
  if (!reply) return box;
  if (reply.error || !reply.node) {
    box.append(h("div", { class: "tbnb-graph-error", text: `${reply.name}: ${reply.error || "no such node"}` }));
    return box;
  }
  const n = reply.node;
  box.append(h("div", { class: "tbnb-graph-info-title", text: n.label, title: n.id }), h("div", { class: "tbnb-graph-info-id", text: n.id }));
  const table = h("table", { class: "tbnb-graph-props" });
  if (n.kind === "op") {
    table.append(row("op", n.op), row("device", n.device || "—"), row("compute time", figure(n.compute_time, "µs")), row("memory", figure(n.memory, "bytes")));
    if (n.output_shapes && n.output_shapes.length) table.append(row("outputs", n.output_shapes.map(shapeText).join(", ")));
    if (n.series) table.append(row("series", n.series));
    if (n.annotation_of) table.append(row("drawn beside", n.annotation_of));
    if (n.annotations && n.annotations.length) table.append(row("beside it", n.annotations.join(", ")));
  } else {
    table.append(row("kind", n.kind), row("ops inside", formatCount(n.count)), row("children", formatCount(n.children)), row("compute time", figure(n.compute_time, "µs")), row("memory", figure(n.memory, "bytes")));
    const ops = Object.entries(n.ops || {}).slice(0, 8).map(([op, k]) => `${op} ×${k}`);
    if (ops.length) table.append(row("ops", ops.join(", ")));
    const devices = Object.keys(n.devices || {}).filter(Boolean);
    if (devices.length) table.append(row("devices", devices.join(", ")));
  }
  box.append(table);
  const buttons = h("div", { class: "tbnb-graph-actions" });
  buttons.append(h("button", { type: "button", class: `tbnb-btn tbnb-graph-trace${tracing ? " tbnb-on" : ""}`, text: tracing ? "Stop tracing" : "Trace inputs", on: { click: trace } }));
  for (const action of nodeActions(n, drawn(n.id))) {
    buttons.append(h("button", { type: "button", class: `tbnb-btn ${action.cls}`, title: action.title, text: action.text, on: { click: () => choose(action) } }));
  }
  box.append(buttons);
  if (n.kind === "op") {
    const attrs = Object.entries(n.attrs || {});
    if (attrs.length) {
      const at = h("table", { class: "tbnb-graph-props tbnb-graph-attrs" });
      for (const [k, v] of attrs) at.append(row(k, valueText(v)));
      box.append(h("div", { class: "tbnb-graph-subtitle", text: "attributes" }), at);
    }
    const inputs = edgeList("inputs", n.inputs, n.inputs_total);
    const outputs = edgeList("outputs", n.outputs, n.outputs_total);
    if (inputs) box.append(inputs);
    if (outputs) box.append(outputs);
  }
  return box;
}
