// The nested layered layout: each open level of the graph laid out by dagre, deepest first, so
// that an open scope is a node as large as its laid-out children. Runs in a worker (the layout
// script, built apart from the bundle) and in node's tests; it gets dagre as an argument.
// Nodes of a level that are extracted from the main graph (TensorBoard's auxiliary nodes) are
// not laid out with it: they are stacked in a column at its right. Many children joined by no
// edge of the level (e.g. a scope of summaries, each reading something elsewhere) would make one
// endless row of dagre's: they are set in a grid below the connected part instead, which also
// spares dagre the work.

const RANK = { rankdir: "TB", nodesep: 18, ranksep: 28, edgesep: 8, marginx: 8, marginy: 8 };
const SIDE_GAP = 24;
const SIDE_SEP = 8;
/** From this many unconnected children on, they go in a grid. */
export const GRID_MIN = 8;
const GRID_GAP = 12;
/** Level layouts kept by the worker between requests. */
const MAX_KEPT = 200;

/**
 * @param input  levels.js layoutInput's result: {pad, header, levels: [{level, nodes, edges}]}
 * @param dagre  the dagre module
 * @param cache  a Map kept between calls (optional): levels laid out before are not laid out again
 * @returns {{pos: Object<number, {x, y, w, h}>, size: Object<number, {w, h}>,
 *   edges: Object<number, {s, t, points}[]>, pad, header}}  centres relative to their level's
 *   top-left corner (inside its frame's padding and header)
 */
export function nestedLayout(input, dagre, cache = null) {
  const pos = {};
  const size = {};
  const edges = {};
  const { pad, header } = input;
  for (const lv of input.levels) {
    const sized = lv.nodes.map((node) => {
      if (!node.open) return node;
      const inner = size[node.i] || { w: 40, h: 20 };
      return { ...node, w: inner.w + 2 * pad, h: inner.h + header + pad };
    });
    const key = cache ? levelKey(lv, sized) : null;
    const kept = key !== null ? cache.get(key) : undefined;
    if (kept) {
      // The same level laid out before (other levels changed): its result, by the new indices.
      sized.forEach((node, k) => {
        pos[node.i] = { ...kept.pos[k], w: node.w, h: node.h };
      });
      const index = sized.map((node) => node.i);
      edges[lv.level] = kept.edges.map((e) => ({ s: index[e.s], t: index[e.t], points: e.points }));
      size[lv.level] = kept.size;
      continue;
    }
    const linked = new Set(lv.edges.flatMap((edge) => [edge.s, edge.t]));
    const loose = sized.filter((node) => node.extract === 0 && !linked.has(node.i));
    const grid = loose.length >= GRID_MIN ? loose : [];
    const main = sized.filter((node) => node.extract === 0 && !(grid.length && !linked.has(node.i)));
    const side = sized.filter((node) => node.extract !== 0);
    let width = 0;
    let height = 0;
    const list = [];
    if (main.length) {
      const g = new dagre.graphlib.Graph();
      g.setGraph({ ...RANK });
      g.setDefaultEdgeLabel(() => ({}));
      for (const node of main) g.setNode(String(node.i), { width: node.w, height: node.h });
      for (const edge of lv.edges) g.setEdge(String(edge.s), String(edge.t), {});
      dagre.layout(g);
      for (const node of main) {
        const p = g.node(String(node.i));
        pos[node.i] = { x: p.x, y: p.y, w: node.w, h: node.h };
      }
      for (const edge of lv.edges) {
        const e = g.edge(String(edge.s), String(edge.t));
        if (e && e.points) list.push({ s: edge.s, t: edge.t, points: e.points.map((p) => ({ x: p.x, y: p.y })) });
      }
      const graph = g.graph();
      width = graph.width || 0;
      height = graph.height || 0;
    }
    if (grid.length) [width, height] = gridBelow(grid, pos, width, height);
    if (side.length) {
      const colWidth = Math.max(...side.map((node) => node.w));
      const x = width + (main.length ? SIDE_GAP : RANK.marginx) + colWidth / 2;
      let y = RANK.marginy;
      for (const node of side) {
        pos[node.i] = { x, y: y + node.h / 2, w: node.w, h: node.h };
        y += node.h + SIDE_SEP;
      }
      width = x + colWidth / 2 + RANK.marginx;
      height = Math.max(height, y + RANK.marginy);
    }
    size[lv.level] = { w: Math.max(width, 40), h: Math.max(height, 20) };
    edges[lv.level] = list;
    if (key !== null) {
      const local = new Map(sized.map((node, k) => [node.i, k]));
      remember(cache, key, {
        pos: sized.map((node) => pos[node.i]),
        edges: list.map((e) => ({ s: local.get(e.s), t: local.get(e.t), points: e.points })),
        size: size[lv.level],
      });
    }
  }
  return { pos, size, edges, pad, header };
}

/**
 * A small nested layout (a scope open inside a level, a branch and a join), laid out once when
 * the layout worker starts and thrown away: the engine compiles dagre's functions on their first call,
 * which would otherwise fall on the first graph drawn (a few nodes of a collapsed top level take
 * several times longer to lay out the first time than the next). The worker starts while the
 * page's first requests are answered, so this costs the first drawing nothing.
 */
export function warmInput() {
  const node = (i, open = false) => ({ i, id: `w${i}`, open, extract: 0, w: open ? null : 60, h: open ? null : 20 });
  const chain = (ids) => ids.slice(1).map((t, k) => ({ s: ids[k], t }));
  return {
    pad: 8,
    header: 16,
    levels: [
      { level: 0, nodes: [node(1), node(2), node(3)], edges: chain([1, 2, 3]) },
      { level: -1, nodes: [node(0, true), node(4), node(5), node(6)], edges: [...chain([4, 0, 5]), { s: 4, t: 6 }, { s: 6, t: 5 }] },
    ],
  };
}

/**
 * Place `nodes` in rows under a part `width` x `height` (0 x 0: none): as many columns as make
 * the grid about as wide as that part, or as tall as it is wide. Returns the new [width, height].
 */
function gridBelow(nodes, pos, width, height) {
  const cellW = Math.max(...nodes.map((node) => node.w)) + GRID_GAP;
  const cellH = Math.max(...nodes.map((node) => node.h)) + GRID_GAP;
  const square = Math.ceil(Math.sqrt((nodes.length * cellH) / cellW));
  const cols = Math.max(1, Math.min(nodes.length, Math.max(square, Math.floor(width / cellW))));
  const top = height ? height : RANK.marginy;
  nodes.forEach((node, k) => {
    const col = k % cols;
    const row = Math.floor(k / cols);
    pos[node.i] = { x: RANK.marginx + col * cellW + cellW / 2, y: top + row * cellH + cellH / 2, w: node.w, h: node.h };
  });
  const rows = Math.ceil(nodes.length / cols);
  return [Math.max(width, 2 * RANK.marginx + cols * cellW), top + rows * cellH + RANK.marginy];
}

/** What a level's layout depends on: its children (ids, sizes, extraction) and edges, in order. */
export function levelKey(lv, sized) {
  const local = new Map(sized.map((node, k) => [node.i, k]));
  const nodes = sized.map((node) => `${node.id}\u0001${node.w}\u0001${node.h}\u0001${node.extract}`).join("\u0002");
  const links = lv.edges.map((e) => `${local.get(e.s)},${local.get(e.t)}`).join(";");
  return `${nodes}\u0003${links}`;
}

/** Keep at most MAX_KEPT level layouts (the oldest go first). */
function remember(cache, key, value) {
  cache.set(key, value);
  while (cache.size > MAX_KEPT) cache.delete(cache.keys().next().value);
}
