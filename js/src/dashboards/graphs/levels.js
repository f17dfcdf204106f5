// The kernel's `levels` reply (tbnb/reader/plugins/graph/view.py) as what the page draws: the
// drawn nodes with their level, and, per open level, the input of one layered layout (its
// children with their sizes, the edges between them). Pure functions: no DOM.

/** Leaf node sizes (px): a scope or series is a box, an op an ellipse; both fit their label. */
export const NODE_HEIGHT = { op: 22, group: 26 };
export const CHAR_WIDTH = 6.6;
export const MIN_WIDTH = 36;
export const MAX_WIDTH = 240;
/** Room for a scope's expand button, left of its label. */
export const TOGGLE = 18;
/** An open scope's frame around its children: padding, and a header line for its label. */
export const PAD = 10;
export const HEADER = 22;

const KINDS = ["op", "scope", "series"];

/** Width of a closed node showing `label` (and `extra` characters, e.g. a count). */
export function leafWidth(label, extra = 0) {
  const w = (String(label).length + extra) * CHAR_WIDTH + 20;
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w)));
}

/**
 * The reply -> {n, nodes: [{i, id, label, parent, kind, op, device, count, expanded, extract,
 * computeTime, memory, template, depth, inAnnotations, outAnnotations}], byId, levels, edges}.
 * `levels`: open levels (-1 the top, else a node index), each with its `children`.
 */
export function levelModel(reply) {
  const n = reply.nodes.id.length;
  const col = (name) => reply.nodes[name] || [];
  const nodes = [];
  for (let i = 0; i < n; i += 1) {
    nodes.push({
      i,
      id: String(reply.nodes.id[i]),
      label: String(reply.nodes.label[i]),
      parent: Number(col("parent")[i]),
      kind: KINDS[Number(col("kind")[i])] || "op",
      op: Number(col("op")[i]) >= 0 ? String(reply.ops[Number(col("op")[i])]) : null,
      device: Number(col("device")[i]) >= 0 ? String(reply.devices[Number(col("device")[i])]) : null,
      count: Number(col("count")[i]),
      expanded: Boolean(Number(col("expanded")[i])),
      extract: Number(col("extract")[i]) || 0,
      computeTime: Number(col("compute_time")[i]),
      memory: Number(col("memory")[i]),
      template: Number(col("template")[i]),
      inAnnotations: Number(col("in_annotations")[i]) || 0,
      outAnnotations: Number(col("out_annotations")[i]) || 0,
      depth: 0,
    });
  }
  for (const node of nodes) node.depth = node.parent < 0 ? 0 : nodes[node.parent].depth + 1; // parents come first
  const levels = new Map([[-1, { level: -1, depth: -1, children: [] }]]);
  for (const node of nodes) if (node.expanded) levels.set(node.i, { level: node.i, depth: node.depth, children: [] });
  for (const node of nodes) {
    const lv = levels.get(node.parent);
    if (lv) lv.children.push(node.i);
  }
  const e = reply.edges;
  const edges = [];
  for (let k = 0; k < e.src.length; k += 1) {
    edges.push({
      k,
      src: Number(e.src[k]),
      dst: Number(e.dst[k]),
      level: Number(e.level[k]),
      srcChild: Number(e.src_child[k]),
      dstChild: Number(e.dst_child[k]),
      nData: Number(e.n_data[k]),
      nControl: Number(e.n_control[k]),
      elements: Number(e.elements[k]),
      annotation: Boolean(Number(e.annotation[k])),
      label: String(e.label[k] ?? ""),
    });
  }
  return { n, nodes, byId: new Map(nodes.map((node) => [node.id, node])), levels, edges };
}

/**
 * The nested layout's input: the open levels deepest first (an open scope's size is known once
 * its children are laid out), each with its children's leaf sizes (null for an open child:
 * its own level's size) and the edges between children of the main graph, one per pair.
 */
export function layoutInput(model) {
  const levels = [...model.levels.values()].sort((a, b) => b.depth - a.depth);
  return {
    pad: PAD,
    header: HEADER,
    levels: levels.map((lv) => {
      const nodes = lv.children.map((i) => {
        const node = model.nodes[i];
        const extra = node.kind === "op" ? 0 : String(node.count).length + 3;
        return {
          i,
          id: node.id,
          open: node.expanded,
          extract: node.extract,
          w: node.expanded ? null : leafWidth(node.label, extra) + (node.kind === "op" ? 0 : TOGGLE),
          h: node.expanded ? null : node.kind === "op" ? NODE_HEIGHT.op : NODE_HEIGHT.group,
        };
      });
      const main = new Set(nodes.filter((node) => node.extract === 0).map((node) => node.i));
      const pairs = new Map();
      for (const edge of model.edges) {
        if (edge.level !== lv.level || edge.annotation) continue;
        if (!main.has(edge.srcChild) || !main.has(edge.dstChild) || edge.srcChild === edge.dstChild) continue;
        const key = `${edge.srcChild},${edge.dstChild}`;
        if (!pairs.has(key)) pairs.set(key, { s: edge.srcChild, t: edge.dstChild, label: edge.label });
      }
      return { level: lv.level, nodes, edges: [...pairs.values()] };
    }),
  };
}

/**
 * Absolute positions from the nested layout's result ({pos: {i: {x, y, w, h}} centres within
 * their level, size: {level: {w, h}}, edges: {level: [{s, t, points}]}}): every node's box on
 * the page and every laid-out edge's points, the top level at (0, 0).
 */
export function place(model, result) {
  const boxes = new Map();
  const origin = new Map([[-1, { x: 0, y: 0 }]]);
  const order = [...model.levels.values()].sort((a, b) => a.depth - b.depth);
  for (const lv of order) {
    const o = origin.get(lv.level);
    if (!o) continue;
    for (const i of lv.children) {
      const p = result.pos[i];
      if (!p) continue;
      const box = { x: o.x + p.x - p.w / 2, y: o.y + p.y - p.h / 2, w: p.w, h: p.h };
      boxes.set(i, box);
      if (model.nodes[i].expanded) origin.set(i, { x: box.x + result.pad, y: box.y + result.header });
    }
  }
  const paths = [];
  for (const [level, list] of Object.entries(result.edges)) {
    const o = origin.get(Number(level));
    if (!o) continue;
    for (const edge of list) paths.push({ s: edge.s, t: edge.t, level: Number(level), points: edge.points.map((p) => ({ x: p.x + o.x, y: p.y + o.y })) });
  }
  const top = result.size[-1] || { w: 0, h: 0 };
  return { boxes, paths, width: top.w, height: top.h };
}

/** Edges drawn between the same two children of a level, merged: counts and sizes summed. */
export function mergedEdges(model) {
  const out = new Map();
  for (const edge of model.edges) {
    if (edge.annotation) continue;
    const key = `${edge.srcChild},${edge.dstChild}`;
    const prev = out.get(key);
    if (!prev) out.set(key, { ...edge });
    else {
      prev.nData += edge.nData;
      prev.nControl += edge.nControl;
      prev.elements = (Number.isNaN(prev.elements) ? 0 : prev.elements) + (Number.isNaN(edge.elements) ? 0 : edge.elements);
      prev.label = prev.nData > 1 ? `${prev.nData} tensors` : prev.label || edge.label;
    }
  }
  return out;
}

/** Stroke width of an edge carrying `elements` tensor elements (TensorBoard: thicker for
 * bigger tensors, on a log scale), 1 for control edges or unknown sizes. */
export function edgeWidth(elements, control = false) {
  if (control || !Number.isFinite(elements) || elements <= 1) return 1;
  return Math.min(8, 1 + Math.log10(elements) * 0.9);
}
