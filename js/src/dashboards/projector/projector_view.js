// The projector's view, loaded on demand (projector.js asks the kernel for this module, built
// apart from the bundle, the first time a projector card is shown). It asks the kernel for the
// embeddings (projector_index), the chosen one's metadata (projector_metadata) and a layout
// (projector_points: float32 positions; t-SNE/UMAP answer "running" with progress until done,
// asked again every POLL_MS). 2D and 3D are our WebGL point cloud (projector_gl.js; 2D with a
// flat camera), sprites drawn as the points' images; without WebGL, plotly's scattergl draws 2D
// (3D as its first two coordinates, with a message saying so). Selection lives in the
// `projector_selection` trait: clicks and lassos write it, the kernel's search writes it.

import { h } from "../../dom.js";
import { formatCount } from "../../format.js";
import { pointColors, pointLabel } from "./projector_colors.js";
import { LABELLED, draw2d, listenLasso, loadSprite } from "./projector_draw.js";
import { normalizePositions } from "./projector_camera.js";
import { PointCloud } from "./projector_gl.js";
import { webglContext } from "./projector_shaders.js";
import { bookmarkList, ensureStyle, legend, neighborList, selectionTable, toolbar } from "./projector_panel.js";

const POLL_MS = 400;

/** Everything a projector card does; the card (projector.js) forwards its lifecycle here. */
export class ProjectorView {
  constructor(card) {
    this.card = card;
    this.board = card.board;
    this.plot = card.plot;
    this.el = card.el;
    this.init();
    this.build();
  }

  request(...args) {
    return this.card.request(...args);
  }

  draw() {
    this.card.draw();
  }

  redraw() {
    this.card.redraw();
  }

  set data(value) {
    this.card.data = value;
  }

  set loading(value) {
    this.card.loading = value;
  }

  set dirty(value) {
    this.card.dirty = value;
  }

  set error(value) {
    this.card.error = value;
  }

  init() {
    this.index = null;
    this.target = null; // {run, name}
    this.meta = null;
    this.points = null;
    this.label = pointLabel(null);
    this.colors = null;
    this.cloud = null;
    this.lasso = false;
    this.isolated = false;
    this.neighbors = null;
    this.poll = null;
    this.view = null; // "gl3d" | "gl2d" | "plotly"
    this.sprite = null; // {target, image} once the atlas is decoded
    this.status = "";
  }

  build() {
    // Also the card's sub line (.tbnb-card-sub): "loading…" until a layout is drawn, as other cards.
    this.statusEl = h("span", { class: "tbnb-pj-status tbnb-card-sub", role: "status", text: "loading…" });
    this.bar = h("div", { class: "tbnb-pj-bar" });
    this.side = h("div", { class: "tbnb-pj-side" });
    ensureStyle(this.el.ownerDocument);
    this.el.replaceChildren(this.bar, h("div", { class: "tbnb-pj-main" }, this.plot, this.side));
    this.plot.replaceChildren(h("div", { class: "tbnb-pj-msg", text: "Loading the embeddings…" }));
  }

  hasData() {
    return this.points !== null;
  }

  setStatus(text) {
    this.status = text;
    this.statusEl.textContent = text;
  }

  fail(message) {
    this.loading = false;
    this.dirty = true;
    this.error = message;
    this.setStatus("");
    this.message(`Could not load the projector: ${message}`);
  }

  message(text) {
    this.teardownView();
    this.plot.replaceChildren(h("div", { class: "tbnb-pj-msg", text }));
  }

  load() {
    this.request("index", { type: "projector_index" }, (msg) => {
      this.index = msg;
      this.chooseTarget();
    });
  }

  chooseTarget() {
    const runs = (this.index && this.index.runs) || [];
    const wantRun = this.board.trait("projector_run");
    const wantName = this.board.trait("projector_embedding");
    let target = null;
    for (const r of runs) {
      if (wantRun && r.run !== wantRun) continue;
      const e = r.embeddings.find((x) => !wantName || x.name === wantName);
      if (e) {
        target = { run: r.run, name: e.name };
        break;
      }
    }
    this.target = target;
    this.bar.replaceWith((this.bar = toolbar(this)));
    if (!target) {
      this.loading = false;
      this.setStatus("");
      const problems = runs.flatMap((r) => r.problems);
      this.message(runs.length === 0 || !wantName
        ? `No embeddings found. Write some with add_embedding (torch or tensorboardX) or a projector_config.pbtxt.${problems.length ? ` Problems: ${problems.join("; ")}` : ""}`
        : `No embedding named “${wantName}”${wantRun ? ` in run “${wantRun}”` : ""}.`);
      return;
    }
    this.loadMeta();
  }

  loadMeta() {
    const { run, name } = this.target;
    this.meta = null;
    this.request("meta", { type: "projector_metadata", run, embedding: name }, (msg) => {
      this.meta = msg;
      this.bar.replaceWith((this.bar = toolbar(this)));
      this.loadPoints();
    });
  }

  layoutRequest() {
    return {
      type: "projector_points", run: this.target.run, embedding: this.target.name,
      method: this.board.trait("projector_method"), dims: Number(this.board.trait("projector_dims")) === 2 ? 2 : 3,
      params: this.board.trait("projector_params") || {},
    };
  }

  loadPoints({ rerun = false } = {}) {
    clearTimeout(this.poll);
    const ask = rerun ? { ...this.layoutRequest(), rerun: true } : this.layoutRequest();
    const started = performance.now();
    this.setStatus(`loading ${ask.method}…`);
    this.request("points", ask, (msg) => {
      if (msg.state === "running") {
        const [done, total] = msg.progress || [0, 0];
        this.setStatus(`${ask.method === "tsne" ? "t-SNE" : "UMAP"}: ${total ? `${done} / ${total}` : "running"}…`);
        this.poll = setTimeout(() => this.loadPoints(), POLL_MS);
        return;
      }
      this.loading = false;
      if (msg.state !== "done") {
        this.setStatus(msg.state === "stopped" ? "stopped" : "");
        if (msg.state === "error") this.message(`The ${ask.method} layout failed: ${msg.message}`);
        return;
      }
      this.points = { positions: msg.positions, dims: msg.dims, variance: msg.variance, n: msg.positions.length / msg.dims, ms: performance.now() - started };
      this.setStatus(`${formatCount(this.points.n)} points`);
      this.bar.replaceWith((this.bar = toolbar(this)));
      this.data = this.points;
      this.recolor();
      this.dirtyView = true;
      this.draw();
    });
  }

  stop() {
    this.request("stop", { ...this.layoutRequest(), type: "projector_stop" }, () => this.setStatus("stopping…"));
  }

  column(name) {
    return ((this.meta && this.meta.columns) || []).find((c) => c.name === name) || null;
  }

  labelColumnName() {
    const want = this.board.trait("projector_label_by");
    if (want && this.column(want)) return want;
    return (this.meta && this.meta.label_column) || "";
  }

  recolor() {
    if (!this.points) return;
    const n = this.points.n;
    const colorBy = this.column(this.board.trait("projector_color_by"));
    this.colors = pointColors(n, colorBy);
    this.label = pointLabel(this.column(this.labelColumnName()));
  }

  selection() {
    const n = this.points ? this.points.n : 0;
    return (this.board.trait("projector_selection") || []).map(Number).filter((i) => i >= 0 && i < n);
  }

  settingChanged(name) {
    if (name === "projector_run" || name === "projector_embedding") {
      if (this.index) this.chooseTarget();
    } else if (name === "projector_method" || name === "projector_dims" || name === "projector_params") {
      this.bar.replaceWith((this.bar = toolbar(this)));
      if (this.target && this.meta) this.loadPoints();
    } else if (name === "projector_color_by" || name === "projector_label_by") {
      this.recolor();
      this.dirtyView = true;
      this.redraw();
    } else if (name === "projector_selection") {
      this.neighbors = null;
      this.redraw();
    } else if (name === "projector_search") {
      const input = this.bar.querySelector(".tbnb-pj-search");
      if (input && input.value !== this.board.trait("projector_search")) input.value = this.board.trait("projector_search") || "";
    }
  }

  toggleLasso() {
    this.lasso = !this.lasso;
    this.bar.replaceWith((this.bar = toolbar(this)));
    if (this.view === "plotly" && this.board.plotly) this.board.plotly.relayout(this.plot2d, { dragmode: this.lasso ? "lasso" : "pan" });
  }

  toggleIsolate() {
    this.isolated = !this.isolated;
    this.bar.replaceWith((this.bar = toolbar(this)));
    this.dirtyView = true;
    this.redraw();
  }

  /** The rows drawn: all, or the selection when isolated. */
  shownRows() {
    const sel = this.selection();
    return this.isolated && sel.length ? sel : null;
  }

  render() {
    if (!this.points) return false;
    const flat = this.points.dims === 2;
    let warning = null;
    if (this.view !== (flat ? "gl2d" : "gl3d") || this.dirtyView) {
      if (!this.makeCloud(flat) && !flat) warning = "3D needs WebGL, which this browser does not provide (no GPU and no software GL): showing the first two coordinates in 2D.";
    }
    if (!this.cloud) {
      if (!this.board.plotly) return false;
      draw2d(this, warning);
    } else this.updateCloud();
    this.dirtyView = false;
    this.renderSide();
    return true;
  }

  teardownView() {
    if (this.cloud) this.cloud.destroy();
    this.cloud = null;
    if (this.view === "plotly" && this.board.plotly && this.plot2d) this.board.plotly.purge(this.plot2d);
    this.view = null;
  }

  // ------------------------------------------------------------------------------------- WebGL

  /** The WebGL view (2D: flat camera), made or refreshed; false without WebGL. */
  makeCloud(flat) {
    const want = flat ? "gl2d" : "gl3d";
    if (this.view === want && this.cloud) {
      this.setCloudPoints();
      return true;
    }
    this.teardownView();
    if (this.noWebgl) return false;
    const canvas = h("canvas", { dataset: { testid: "projector-canvas", dims: flat ? "2" : "3" } });
    const gl = webglContext(canvas);
    if (!gl) {
      this.noWebgl = true;
      return false;
    }
    this.labelLayer = h("div", { class: "tbnb-pj-labels" });
    this.tip = h("div", { class: "tbnb-pj-tip" });
    this.lassoCanvas = h("canvas", { style: { pointerEvents: "none" } });
    this.plot.replaceChildren(canvas, this.lassoCanvas, this.labelLayer, this.tip);
    this.cloud = new PointCloud(canvas, gl, {
      onCamera: () => this.placeLabels(),
      onClick: (i) => this.board.setTrait("projector_selection", i >= 0 ? [this.rowOf(i)] : []),
      onHover: (i, e) => this.hover(i, e),
      selecting: () => this.lasso,
    }, { flat });
    listenLasso(this, canvas);
    this.view = want;
    this.setCloudPoints();
    loadSprite(this);
    return true;
  }

  rowOf(i) {
    return this.cloudRows ? this.cloudRows[i] : i;
  }

  setCloudPoints() {
    const { positions, n, dims } = this.points;
    const rows = this.shownRows();
    const all = normalizePositions(positions, n, dims);
    let pos = all;
    let rgb = this.colors.rgb;
    if (rows) {
      pos = new Float32Array(rows.length * 3);
      rgb = new Uint8Array(rows.length * 3);
      rows.forEach((r, k) => {
        pos.set(all.subarray(3 * r, 3 * r + 3), 3 * k);
        rgb.set(this.colors.rgb.subarray(3 * r, 3 * r + 3), 3 * k);
      });
    }
    this.cloudRows = rows;
    this.cloud.setPoints(pos, rgb, rows);
    this.firstDrawMs = performance.now();
  }

  updateCloud() {
    const sel = this.selection();
    const local = this.cloudRows ? sel.map((r) => this.cloudRows.indexOf(r)).filter((k) => k >= 0) : sel;
    this.cloud.setSelection(local);
    this.placeLabels();
  }

  placeLabels() {
    if (!this.cloud || !this.labelLayer) return;
    const sel = this.selection().slice(0, LABELLED);
    const local = sel.map((row) => (this.cloudRows ? this.cloudRows.indexOf(row) : row));
    const xy = this.cloud.project(local.map((k) => Math.max(0, k)));
    this.labelLayer.replaceChildren(...sel.map((row, j) => {
      if (local[j] < 0 || !xy[j]) return null;
      return h("div", { class: "tbnb-pj-label", text: this.label(row), style: { left: `${xy[j][0] + this.cloud.labelOffset()}px`, top: `${xy[j][1]}px` } });
    }).filter(Boolean));
  }

  hover(i, e) {
    if (i < 0) {
      this.tip.style.display = "none";
      return;
    }
    const rect = this.plot.getBoundingClientRect();
    this.tip.textContent = this.label(this.rowOf(i));
    Object.assign(this.tip.style, { display: "block", left: `${e.clientX - rect.left + 10}px`, top: `${e.clientY - rect.top + 10}px` });
  }

  // ------------------------------------------------------------------------------------- size

  resized() {
    if (this.view === "plotly" && this.board.plotly && this.plot2d) this.board.plotly.Plots.resize(this.plot2d);
    if (this.cloud) this.cloud.cameraMoved();
  }

  // ------------------------------------------------------------------------------------- side

  renderSide() {
    const sel = this.selection();
    const parts = [legend(this.colors && this.colors.legend), bookmarkList(this)];
    if (this.meta && this.meta.problems && this.meta.problems.length) parts.push(h("div", { class: "tbnb-pj-problems", style: { color: "#c62828" }, text: this.meta.problems.join("; ") }));
    if (sel.length) parts.push(selectionTable(this, sel));
    if (sel.length === 1) {
      if (this.neighbors && this.neighbors.index === sel[0]) parts.push(neighborList(this, this.neighbors));
      else this.askNeighbors(sel[0]);
    }
    this.side.replaceChildren(...parts.filter(Boolean));
  }

  askNeighbors(row) {
    this.request("neighbors", { type: "projector_neighbors", run: this.target.run, embedding: this.target.name, index: row, k: 10, metric: "cosine" }, (msg) => {
      this.neighbors = msg;
      this.renderSide();
    });
  }

  destroy() {
    clearTimeout(this.poll);
    this.teardownView();
  }
}

/** The page's hook into this module once it ran (a classic script: no dynamic import). */
globalThis.__tbnb_projector_view__ = { ProjectorView, PointCloud, webglContext, normalizePositions, pointColors, pointLabel };
