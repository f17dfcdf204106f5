// The graph drawn as SVG: open scopes as frames holding their children, closed scopes and series
// as boxes, ops as ellipses, edges as paths (width by tensor size, shape labels), with pan
// (drag), zoom (wheel) and fit. Every name is SVG text (textContent) or an attribute value,
// never markup, so the browser's find and screen readers see the labels.

import { CHAR_WIDTH, HEADER, TOGGLE, edgeWidth, mergedEdges } from "./levels.js";

const NS = "http://www.w3.org/2000/svg";
const STROKE = "#5f6b7a";
const EDGE = "#8c97a5";
const HIGHLIGHT = { selected: "#d84315", trace: "#ffa000", match: "#00838f" };

function el(tag, attrs = {}, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function curve(points) {
  if (!points.length) return "";
  let d = `M${points[0].x},${points[0].y}`;
  for (let k = 1; k < points.length; k += 1) d += ` L${points[k].x},${points[k].y}`;
  return d;
}

/** A label cut to `width` px at about CHAR px a character. */
function fit(text, width) {
  const max = Math.max(3, Math.floor((width - 20) / CHAR_WIDTH) + 1);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export class GraphView {
  /**
   * @param container  the element the SVG fills
   * @param handlers   {select(id), toggle(id)}: a node clicked; a scope's +/- clicked (or a
   *                   scope double-clicked)
   */
  constructor(container, handlers) {
    this.handlers = handlers;
    this.svg = el("svg", { class: "tbnb-graph-svg", width: "100%", height: "100%", role: "img", "aria-label": "graph" });
    const defs = el("defs");
    const marker = el("marker", { id: `tbnb-arrow-${Math.random().toString(36).slice(2)}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto" });
    marker.append(el("path", { d: "M0,0 L10,5 L0,10 z", fill: EDGE }));
    defs.append(marker);
    this.arrow = marker.getAttribute("id");
    this.scene = el("g", { class: "tbnb-graph-scene" });
    this.svg.append(defs, this.scene);
    container.append(this.svg);
    this.t = { k: 1, x: 0, y: 0 };
    this.size = { width: 0, height: 0 };
    this.nodes = new Map(); // id -> <g>
    this.listen();
  }

  listen() {
    this.svg.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        const r = this.svg.getBoundingClientRect();
        const px = event.clientX - r.left;
        const py = event.clientY - r.top;
        const k = Math.min(8, Math.max(0.02, this.t.k * Math.exp(-event.deltaY * 0.0015)));
        this.t = { k, x: px - ((px - this.t.x) * k) / this.t.k, y: py - ((py - this.t.y) * k) / this.t.k };
        this.apply();
      },
      { passive: false },
    );
    let drag = null;
    this.svg.addEventListener("pointerdown", (event) => {
      if (event.button !== 0 || event.target.closest(".tbnb-gnode")) return;
      drag = { x: event.clientX, y: event.clientY, t: { ...this.t } };
      this.svg.setPointerCapture(event.pointerId);
    });
    this.svg.addEventListener("pointermove", (event) => {
      if (!drag) return;
      this.t = { ...drag.t, x: drag.t.x + event.clientX - drag.x, y: drag.t.y + event.clientY - drag.y };
      this.apply();
    });
    const end = () => {
      drag = null;
    };
    this.svg.addEventListener("pointerup", end);
    this.svg.addEventListener("pointercancel", end);
  }

  apply() {
    this.scene.setAttribute("transform", `translate(${this.t.x},${this.t.y}) scale(${this.t.k})`);
  }

  /** Zoom and centre so that the whole graph shows (never magnified beyond 1.5). */
  fit() {
    const r = this.svg.getBoundingClientRect();
    const { width, height } = this.size;
    if (!width || !height || !r.width || !r.height) return;
    const k = Math.min(1.5, (r.width - 20) / width, (r.height - 20) / height);
    this.t = { k, x: (r.width - width * k) / 2, y: Math.max(10, (r.height - height * k) / 2) };
    this.apply();
  }

  /** Pan so that node `id` is in the middle (its zoom kept). */
  center(id) {
    const box = this.boxes && this.boxes.get(this.model.byId.get(id)?.i);
    if (!box) return;
    const r = this.svg.getBoundingClientRect();
    this.t = { ...this.t, x: r.width / 2 - (box.x + box.w / 2) * this.t.k, y: r.height / 2 - (box.y + box.h / 2) * this.t.k };
    this.apply();
  }

  /**
   * Draw `model` (levels.js levelModel) at `placed` (levels.js place) with `fill` (a colour per
   * node). Open scopes first (frames), then edges, then closed nodes on top.
   */
  draw(model, placed, fill) {
    this.model = model;
    this.boxes = placed.boxes;
    this.size = { width: placed.width, height: placed.height };
    this.nodes.clear();
    const frames = el("g", { class: "tbnb-graph-frames" });
    const edges = el("g", { class: "tbnb-graph-edges" });
    const leaves = el("g", { class: "tbnb-graph-nodes" });
    const order = model.nodes.slice().sort((a, b) => a.depth - b.depth);
    for (const node of order) {
      const box = placed.boxes.get(node.i);
      if (!box) continue;
      const g = this.node(node, box, fill[node.i]);
      (node.expanded ? frames : leaves).append(g);
      this.nodes.set(node.id, g);
    }
    const merged = mergedEdges(model);
    for (const path of placed.paths) {
      const info = merged.get(`${path.s},${path.t}`);
      const control = info ? info.nData === 0 : false;
      const width = info ? edgeWidth(info.elements, control) : 1;
      const g = el("g", { class: "tbnb-gedge" });
      g.append(
        el("path", {
          d: curve(path.points),
          fill: "none",
          stroke: EDGE,
          "stroke-width": width.toFixed(2),
          "stroke-dasharray": control ? "4 3" : null,
          "marker-end": `url(#${this.arrow})`,
        }),
      );
      const label = info && !control ? info.label : "";
      if (label && path.points.length) {
        const mid = path.points[Math.floor(path.points.length / 2)];
        g.append(el("text", { x: mid.x + 4, y: mid.y, "font-size": 9, fill: "#5f6b7a", class: "tbnb-gedge-label" }, label));
      }
      edges.append(g);
    }
    this.scene.replaceChildren(frames, edges, leaves);
    this.apply();
  }

  node(node, box, color) {
    const g = el("g", {
      class: `tbnb-gnode tbnb-gnode-${node.kind}${node.expanded ? " tbnb-gnode-open" : ""}${node.extract ? " tbnb-gnode-aux" : ""}`,
      "data-id": node.id,
      transform: `translate(${box.x},${box.y})`,
      tabindex: 0,
      role: "button",
    });
    const dashed = node.extract ? "5 3" : null;
    const title = el("title", {}, node.kind === "op" ? `${node.id}\n${node.op}` : `${node.id}\n${node.count} ops inside`);
    let shape;
    if (node.kind === "op") {
      shape = el("ellipse", { cx: box.w / 2, cy: box.h / 2, rx: box.w / 2, ry: box.h / 2, fill: color, stroke: STROKE, "stroke-dasharray": dashed });
    } else {
      shape = el("rect", {
        width: box.w,
        height: box.h,
        rx: node.kind === "series" ? 10 : 5,
        fill: node.expanded ? "#ffffff" : color,
        "fill-opacity": node.expanded ? 0.6 : 1,
        stroke: node.expanded ? color : STROKE,
        "stroke-width": node.expanded ? 2 : 1,
        "stroke-dasharray": dashed,
      });
    }
    shape.setAttribute("class", "tbnb-gshape");
    g.append(title, shape);
    const group = node.kind !== "op";
    const text = group ? `${node.label}${node.expanded ? "" : ` (${node.count})`}` : node.label;
    const labelWidth = group ? box.w - TOGGLE : box.w;
    const y = node.expanded ? HEADER / 2 + 4 : box.h / 2 + 4;
    const x = node.expanded ? TOGGLE + 2 : group ? TOGGLE + labelWidth / 2 - 4 : box.w / 2;
    g.append(el("text", { x, y, "text-anchor": node.expanded ? "start" : "middle", "font-size": 11, fill: "#212121", class: "tbnb-glabel" }, fit(text, labelWidth)));
    if (group) {
      const toggle = el("g", { class: "tbnb-gtoggle", transform: `translate(4,${(node.expanded ? HEADER : box.h) / 2 - 6})`, role: "button" });
      toggle.append(el("rect", { width: 12, height: 12, rx: 2, fill: "#ffffff", stroke: STROKE }));
      toggle.append(el("text", { x: 6, y: 10, "text-anchor": "middle", "font-size": 11, fill: "#212121" }, node.expanded ? "−" : "+"));
      toggle.append(el("title", {}, node.expanded ? "Collapse" : "Expand"));
      toggle.addEventListener("click", (event) => {
        event.stopPropagation();
        this.handlers.toggle(node.id);
      });
      g.append(toggle);
      g.addEventListener("dblclick", (event) => {
        if (node.expanded && event.target !== shape && !event.target.classList.contains("tbnb-glabel")) return;
        event.stopPropagation();
        this.handlers.toggle(node.id);
      });
    }
    if (node.inAnnotations || node.outAnnotations) {
      const parts = [];
      if (node.inAnnotations) parts.push(`${node.inAnnotations} in`);
      if (node.outAnnotations) parts.push(`${node.outAnnotations} out`);
      g.append(el("text", { x: box.w / 2, y: box.h + 9, "text-anchor": "middle", "font-size": 8, fill: "#80868b" }, `+${parts.join(", ")}`));
    }
    g.addEventListener("click", (event) => {
      if (node.expanded && event.target === shape && event.offsetY > HEADER * this.t.k) return; // the frame's inside
      event.stopPropagation();
      this.handlers.select(node.id);
    });
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.handlers.select(node.id);
    });
    return g;
  }

  /** Marks: the selected node, the trace's nodes, the search's matches. */
  mark({ selected = "", trace = null, matches = [] } = {}) {
    const traced = new Set(trace || []);
    const found = new Set(matches);
    for (const [id, g] of this.nodes) {
      const shape = g.querySelector(".tbnb-gshape");
      if (!shape) continue;
      const base = g.classList.contains("tbnb-gnode-open") ? null : STROKE;
      let stroke = base;
      let width = g.classList.contains("tbnb-gnode-open") ? 2 : 1;
      if (found.has(id)) [stroke, width] = [HIGHLIGHT.match, 2.5];
      if (traced.has(id)) [stroke, width] = [HIGHLIGHT.trace, 3];
      if (id === selected) [stroke, width] = [HIGHLIGHT.selected, 3];
      if (stroke) shape.setAttribute("stroke", stroke);
      shape.setAttribute("stroke-width", String(width));
      g.classList.toggle("tbnb-gselected", id === selected);
      g.classList.toggle("tbnb-gtraced", traced.has(id));
      g.setAttribute("opacity", trace && !traced.has(id) && id !== selected && !g.classList.contains("tbnb-gnode-open") ? "0.35" : "1");
    }
  }
}
