// The projector's controls and side panel: toolbar (embedding, method, 2D/3D, colour and label
// columns, search, method parameters, progress), legend and the selection's metadata table.
// Everything from the logs (names, labels, metadata values) is set as text, never markup.

import { debounce, h } from "../../dom.js";
import { formatCount } from "../../format.js";

export const METHODS = [
  ["pca", "PCA"],
  ["tsne", "t-SNE"],
  ["umap", "UMAP"],
  ["custom", "Custom"],
];
export const STYLE = `
.tbnb .tbnb-projector{display:flex;flex-direction:column;gap:4px}
.tbnb .tbnb-pj-bar{display:flex;flex-wrap:wrap;align-items:center;gap:6px;font-size:12px}
.tbnb .tbnb-pj-bar select,.tbnb .tbnb-pj-bar input{height:26px;border:1px solid var(--tbnb-border);border-radius:4px;background:var(--tbnb-bg);padding:0 4px;max-width:220px}
.tbnb .tbnb-pj-main{display:flex;gap:8px;min-height:0}
.tbnb .tbnb-pj-area{position:relative;flex:1 1 auto;min-width:0;height:520px;border:1px solid var(--tbnb-border);border-radius:4px;overflow:hidden}
.tbnb .tbnb-pj-area canvas{position:absolute;inset:0;width:100%;height:100%;touch-action:none}
.tbnb .tbnb-pj-labels{position:absolute;inset:0;pointer-events:none;overflow:hidden}
.tbnb .tbnb-pj-label{position:absolute;font-size:11px;background:rgba(255,255,255,.85);padding:0 3px;border-radius:2px;white-space:nowrap;transform:translate(6px,-50%)}
.tbnb .tbnb-pj-tip{position:absolute;font-size:12px;background:#212121;color:#fff;padding:2px 6px;border-radius:3px;pointer-events:none;white-space:nowrap;display:none}
.tbnb .tbnb-pj-side{flex:0 0 240px;display:flex;flex-direction:column;gap:6px;font-size:12px;max-height:520px;overflow:auto}
.tbnb .tbnb-pj-side h4{margin:4px 0 2px;font-size:12px;font-weight:600}
.tbnb .tbnb-pj-swatch{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;vertical-align:middle}
.tbnb .tbnb-pj-ramp{height:10px;border-radius:2px;background:linear-gradient(90deg,#ffffdd,#1f2d86)}
.tbnb .tbnb-pj-table{border-collapse:collapse;font-size:11px}
.tbnb .tbnb-pj-table td,.tbnb .tbnb-pj-table th{border:1px solid var(--tbnb-border);padding:1px 4px;text-align:left;white-space:nowrap}
.tbnb .tbnb-pj-msg{padding:16px;color:var(--tbnb-fg2)}
.tbnb .tbnb-pj-warn{position:absolute;left:0;right:0;top:0;z-index:2;padding:4px 8px;background:#fff3e0;color:#e65100;font-size:12px}
.tbnb .tbnb-pj-link{cursor:pointer;color:var(--jp-content-link-color,#1976d2)}
`;

/** The projector's CSS, once per document (scoped under .tbnb; the Board's own <style> stays one). */
export function ensureStyle(doc) {
  if (doc.getElementById("tbnb-projector-style")) return;
  doc.head.append(h("style", { id: "tbnb-projector-style", text: STYLE }));
}

function select(options, value, onChange, title) {
  const el = h("select", { title, "aria-label": title, on: { change: () => onChange(el.value) } },
    options.map(([v, text]) => h("option", { value: v, text })));
  el.value = value;
  return el;
}

function numberInput(title, value, onChange, step = "any") {
  const el = h("input", { type: "number", step, title, "aria-label": title, style: { width: "70px" },
    on: { change: () => { const v = Number(el.value); if (Number.isFinite(v)) onChange(v); } } });
  el.value = value;
  return el;
}

/** The toolbar: built anew whenever the choices change (cheap: a dozen elements). */
export function toolbar(card) {
  const b = card.board;
  const runs = (card.index && card.index.runs) || [];
  const choices = runs.flatMap((r) => r.embeddings.map((e) => [`${r.run}\u0000${e.name}`, runs.length > 1 ? `${e.name} (${r.run})` : e.name]));
  const current = card.target ? `${card.target.run}\u0000${card.target.name}` : "";
  const parts = [];
  parts.push(select(choices, current, (v) => {
    const [run, name] = v.split("\u0000");
    b.setTrait("projector_run", run);
    b.setTrait("projector_embedding", name);
  }, "Embedding"));
  parts.push(select(METHODS, b.trait("projector_method"), (v) => b.setTrait("projector_method", v), "Projection"));
  parts.push(select([["2", "2D"], ["3", "3D"]], String(b.trait("projector_dims")), (v) => b.setTrait("projector_dims", Number(v)), "Dimensions"));
  const cols = (card.meta && card.meta.columns) || [];
  const colOptions = [["", "No colour"], ...cols.map((c) => [c.name, `Colour: ${c.name}`])];
  parts.push(select(colOptions, b.trait("projector_color_by") || "", (v) => b.setTrait("projector_color_by", v), "Colour by"));
  const labelOptions = [["", "Label: row"], ...cols.map((c) => [c.name, `Label: ${c.name}`])];
  parts.push(select(labelOptions, card.labelColumnName() || "", (v) => b.setTrait("projector_label_by", v), "Label by"));
  const search = h("input", { type: "search", class: "tbnb-pj-search", placeholder: "Search (regex)", title: "Search labels (regular expression)", "aria-label": "Search" });
  search.value = b.trait("projector_search") || "";
  const send = debounce(() => b.setTrait("projector_search", search.value), 300);
  search.addEventListener("input", send);
  search.addEventListener("keydown", (e) => { if (e.key === "Enter") send.flush(); });
  parts.push(search);
  parts.push(...methodParams(card));
  parts.push(h("button", { type: "button", class: "tbnb-btn", text: "Select area", title: "Lasso selection (3D); use plotly's lasso in 2D", "aria-pressed": String(card.lasso), on: { click: () => card.toggleLasso() } }));
  parts.push(h("button", { type: "button", class: "tbnb-btn", text: card.isolated ? "Show all" : "Isolate", title: "Show only the selection", on: { click: () => card.toggleIsolate() } }));
  parts.push(h("button", { type: "button", class: "tbnb-btn", text: "Clear", title: "Clear the selection", on: { click: () => { b.setTrait("projector_search", ""); b.setTrait("projector_selection", []); } } }));
  parts.push(card.statusEl);
  return h("div", { class: "tbnb-pj-bar" }, parts);
}

function methodParams(card) {
  const b = card.board;
  const method = b.trait("projector_method");
  const params = { ...(b.trait("projector_params") || {}) };
  const set = (name, value) => b.setTrait("projector_params", { ...params, [name]: value });
  if (method === "pca") {
    const dims = Number(b.trait("projector_dims")) === 3 ? 3 : 2;
    const comps = Array.isArray(params.components) && params.components.length === dims ? params.components : [0, 1, 2].slice(0, dims);
    const variance = (card.points && card.points.variance) || [];
    const opts = Array.from({ length: 10 }, (_, i) => [String(i), `PC${i + 1}${variance[i] !== undefined ? ` ${(100 * variance[i]).toFixed(1)}%` : ""}`]);
    return comps.map((c, axis) => select(opts, String(c), (v) => {
      const next = comps.slice();
      next[axis] = Number(v);
      set("components", next);
    }, `${"XYZ"[axis]} component`));
  }
  if (method === "tsne") {
    return [h("span", { text: "perplexity" }), numberInput("Perplexity", params.perplexity ?? 30, (v) => set("perplexity", v)),
      h("span", { text: "learning rate" }), numberInput("Learning rate", params.learning_rate ?? "", (v) => set("learning_rate", v)),
      h("button", { type: "button", class: "tbnb-btn", text: "Stop", title: "Stop t-SNE", on: { click: () => card.stop() } }),
      h("button", { type: "button", class: "tbnb-btn", text: "Re-run", title: "Run t-SNE again", on: { click: () => card.loadPoints({ rerun: true }) } })];
  }
  if (method === "umap") {
    return [h("span", { text: "neighbors" }), numberInput("Neighbors", params.neighbors ?? 15, (v) => set("neighbors", v), "1"),
      h("span", { text: "min dist" }), numberInput("Min distance", params.min_dist ?? 0.1, (v) => set("min_dist", v))];
  }
  return ["left", "right", "up", "down"].map((side) => {
    const el = h("input", { type: "text", placeholder: side, title: `${side} query (regex over the label column)`, "aria-label": side, style: { width: "80px" } });
    el.value = params[side] || "";
    el.addEventListener("change", () => b.setTrait("projector_params", { ...params, [side]: el.value, column: card.labelColumnName() || "" }));
    return el;
  });
}

/** The legend of pointColors' `legend`. */
export function legend(spec) {
  if (!spec || spec.kind === "none") return null;
  const title = h("h4", { text: `Colour: ${spec.title}` });
  if (spec.kind === "category") {
    return h("div", { class: "tbnb-pj-legend" }, title, spec.items.map((item) =>
      h("div", {}, h("span", { class: "tbnb-pj-swatch", style: { background: item.color } }), h("span", { text: `${item.value} (${formatCount(item.count)})` }))));
  }
  const range = spec.min !== null ? `${spec.min} – ${spec.max}` : `${formatCount(spec.distinct)} distinct values: too many for categories`;
  return h("div", { class: "tbnb-pj-legend" }, title, h("div", { class: "tbnb-pj-ramp" }), h("div", { text: range }));
}

/** The selection's rows (at most `limit`) with every metadata column, as text. */
export function selectionTable(card, rows, limit = 100) {
  const cols = (card.meta && card.meta.columns) || [];
  const cell = (col, i) => {
    if (col.kind === "number") return Number.isFinite(col.data[i]) ? String(col.data[i]) : "";
    const c = Number(col.codes[i]);
    return c >= 0 ? String(col.values[c]) : "";
  };
  const head = h("tr", {}, h("th", { text: "row" }), cols.map((c) => h("th", { text: c.name })));
  const body = rows.slice(0, limit).map((i) => h("tr", { class: "tbnb-pj-link", on: { click: () => card.board.setTrait("projector_selection", [i]) } },
    h("td", { text: String(i) }), cols.map((c) => h("td", { text: cell(c, i) }))));
  const more = rows.length > limit ? h("div", { text: `… and ${formatCount(rows.length - limit)} more` }) : null;
  return h("div", { class: "tbnb-pj-selection" }, h("h4", { text: `Selection: ${formatCount(rows.length)} point${rows.length === 1 ? "" : "s"}` }),
    h("div", { style: { overflow: "auto" } }, h("table", { class: "tbnb-pj-table" }, head, body)), more);
}

/** The nearest neighbours of one selected row, each clickable. */
export function neighborList(card, reply) {
  if (!reply) return null;
  const items = Array.from(reply.indices, (i, k) => h("div", { class: "tbnb-pj-link", on: { click: () => card.board.setTrait("projector_selection", [Number(i)]) } },
    h("span", { text: `${card.label(Number(i))}  ` }), h("small", { text: Number(reply.distances[k]).toFixed(3) })));
  return h("div", { class: "tbnb-pj-neighbors" }, h("h4", { text: `Nearest (${reply.metric})` }), items);
}

/** Apply a bookmark (the kernel's reading of a TensorBoard State): the traits it names, the
 *  selection last (changing the label column re-runs a search, which would replace it). */
export function applyBookmark(board, mark) {
  if (mark.method) {
    board.setTrait("projector_method", mark.method);
    board.setTrait("projector_params", mark.params || {});
  }
  if (mark.dims) board.setTrait("projector_dims", mark.dims);
  if (mark.color_by) board.setTrait("projector_color_by", mark.color_by);
  if (mark.label_by) board.setTrait("projector_label_by", mark.label_by);
  if (mark.selection) {
    board.setTrait("projector_search", "");
    board.setTrait("projector_selection", mark.selection);
  }
}

/** The embedding's bookmarks, each a link that applies it. */
export function bookmarkList(card) {
  const marks = (card.meta && card.meta.bookmarks) || [];
  if (!marks.length) return null;
  return h("div", { class: "tbnb-pj-bookmarks" }, h("h4", { text: "Bookmarks" }), marks.map((mark) =>
    h("div", { class: "tbnb-pj-link", title: mark.method ? `${mark.method}${mark.dims ? ` ${mark.dims}D` : ""}` : "", on: { click: () => applyBookmark(card.board, mark) } },
      h("span", { text: mark.label }))));
}
