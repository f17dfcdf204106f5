// The mesh tab: one card filling the area, listing the meshes (protocol.md, `meshes`: the mesh
// plugin's components have a tag each, so meshes are found by name, not by tag) with a panel per
// mesh: a step slider, a sample chooser when a step holds a batch, and a 3D view per selected run
// (plotly mesh3d, or scatter3d markers for a point cloud). The camera is shared by the runs of one
// mesh: turning one view turns the others. The writer's config sets the camera and material
// where plotly has the same setting (mesh_figure.js).

import { Card } from "../../cards/card.js";
import { CONFIG } from "../../cards/chart_card.js";
import { h } from "../../dom.js";
import { escapePlotly } from "../../format.js";
import { meshTrace, sceneCamera, unionSteps } from "./mesh_figure.js";

/** One mesh name's panel: its slider, sample box and a plot per run. */
class MeshPanel {
  constructor(card, name) {
    this.card = card;
    this.name = name;
    this.step = null; // null: each run's last step
    this.sample = 0;
    this.entries = [];
    this.plots = new Map(); // run -> element
    this.syncing = false;
    this.slider = h("input", { type: "range", min: 0, max: 0, step: 1, value: 0, class: "tbnb-mesh-slider" });
    this.slider.addEventListener("input", () => {
      const steps = unionSteps(this.entries);
      this.step = steps[Number(this.slider.value)] ?? null;
      this.stepLabel.textContent = this.step === null ? "" : `step ${this.step}`;
      this.load();
    });
    this.stepLabel = h("span", { class: "tbnb-mesh-step" });
    this.sampleBox = h("input", { type: "number", min: 0, value: 0, class: "tbnb-input", style: { width: "60px", display: "none" }, title: "Sample of the step's batch" });
    this.sampleBox.addEventListener("change", () => {
      this.sample = Math.max(0, Math.floor(Number(this.sampleBox.value)) || 0);
      this.load();
    });
    this.note = h("div", { class: "tbnb-card-sub" });
    this.grid = h("div", { class: "tbnb-mesh-runs", style: { display: "grid", gridTemplateColumns: "repeat(auto-fill,minmax(320px,1fr))", gap: "8px" } });
    this.el = h(
      "section",
      { class: "tbnb-mesh-panel", dataset: { mesh: name } },
      h("div", { class: "tbnb-card-head", style: { gap: "8px" } }, h("div", { class: "tbnb-card-title", text: name, title: name }), this.stepLabel, this.slider, this.sampleBox),
      this.note,
      this.grid,
    );
  }

  load() {
    const runs = this.runs;
    if (!runs.length) return;
    const steps = {};
    if (this.step !== null) for (const run of runs) steps[run] = this.step;
    this.card.request(`mesh:${this.name}`, { type: "mesh", tag: this.name, runs, steps, sample: this.sample }, (msg) => {
      this.entries = msg.runs || [];
      this.render();
    });
  }

  render() {
    const Plotly = this.card.board.plotly;
    const steps = unionSteps(this.entries);
    this.slider.max = Math.max(steps.length - 1, 0);
    const at = this.step === null ? steps.length - 1 : steps.indexOf(this.step);
    if (at >= 0) this.slider.value = at;
    this.slider.disabled = steps.length < 2;
    const shownStep = this.step === null ? steps[steps.length - 1] : this.step;
    this.stepLabel.textContent = shownStep === undefined ? "" : `step ${shownStep}`;
    const samples = Math.max(0, ...this.entries.map((e) => e.samples || 0));
    this.sampleBox.style.display = samples > 1 ? "" : "none";
    this.sampleBox.max = Math.max(samples - 1, 0);
    const problems = this.entries.flatMap((e) => e.problems || []);
    this.note.textContent = problems.join("; ");
    this.note.classList.toggle("tbnb-error", problems.length > 0);
    if (!Plotly) return;
    const keep = new Set();
    for (const entry of this.entries) {
      keep.add(entry.run);
      let box = this.plots.get(entry.run);
      if (!box) {
        const plot = h("div", { class: "tbnb-mesh-plot", style: { height: "320px" } });
        const label = h("div", { class: "tbnb-card-sub" }, h("span", { class: "tbnb-dot", style: { background: this.card.board.colorOf(entry.run) } }), h("span", { text: ` ${entry.run}` }), h("span", { class: "tbnb-mesh-meta" }));
        box = { el: h("div", { class: "tbnb-mesh-run", dataset: { run: entry.run } }, label, plot), plot, label };
        this.plots.set(entry.run, box);
        this.grid.append(box.el);
      }
      const meta = box.label.querySelector(".tbnb-mesh-meta");
      meta.textContent = entry.step === null ? " · no step" : ` · step ${entry.step}${entry.samples > 1 ? `, sample ${entry.sample + 1} of ${entry.samples}` : ""}${entry.faces ? "" : " · point cloud"}`;
      if (!entry.vertices) {
        Plotly.purge(box.plot);
        continue;
      }
      const trace = meshTrace(entry, this.card.board.colorOf(entry.run), escapePlotly(entry.run));
      const camera = this.camera || sceneCamera(entry.config);
      const colors = this.card.board.colors || {};
      const axis = { showbackground: false, gridcolor: "rgba(128,128,128,0.25)", zerolinecolor: "rgba(128,128,128,0.4)" };
      const layout = {
        height: 320,
        margin: { l: 0, r: 0, t: 0, b: 0 },
        paper_bgcolor: "rgba(0,0,0,0)",
        font: { size: 10, color: colors.text },
        showlegend: false,
        scene: { xaxis: axis, yaxis: axis, zaxis: axis, aspectmode: "data", ...(camera ? { camera } : {}) },
        uirevision: `${this.name}\u0000${entry.run}`,
      };
      Plotly.react(box.plot, [trace], layout, CONFIG);
      if (!box.listening) {
        box.listening = true;
        box.plot.on("plotly_relayout", (event) => this.cameraMoved(entry.run, box.plot, event));
      }
    }
    for (const [run, box] of this.plots) {
      if (keep.has(run)) continue;
      Plotly.purge(box.plot);
      box.el.remove();
      this.plots.delete(run);
    }
  }

  /** One view's camera moved: move the other runs' views of this mesh to it. */
  cameraMoved(run, plot, event) {
    if (this.syncing || !event) return;
    const camera = event["scene.camera"] || (plot.layout && plot.layout.scene && plot.layout.scene.camera);
    if (!camera || !Object.keys(event).some((k) => k.startsWith("scene.camera"))) return;
    this.camera = JSON.parse(JSON.stringify(camera));
    const Plotly = this.card.board.plotly;
    this.syncing = true;
    const moves = [];
    for (const [other, box] of this.plots) {
      if (other !== run && box.plot.layout) moves.push(Plotly.relayout(box.plot, { "scene.camera": this.camera }));
    }
    Promise.allSettled(moves).then(() => {
      this.syncing = false;
    });
  }

  destroy() {
    const Plotly = this.card.board.plotly;
    if (Plotly) for (const box of this.plots.values()) Plotly.purge(box.plot);
  }
}

export class MeshCard extends Card {
  init() {
    this.panels = new Map();
  }

  build() {
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.plot = h("div", { class: "tbnb-body-mesh" });
    this.el = h(
      "div",
      { class: `tbnb-card tbnb-card-${this.kind} tbnb-expanded`, dataset: { tag: this.tag, kind: this.kind } },
      h("div", { class: "tbnb-card-head" }, h("div", { class: "tbnb-card-title", text: "Meshes" })),
      this.sub,
      this.plot,
    );
  }

  canLoad() {
    return true;
  }

  updateSub() {
    if (!this.sub) return;
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    const n = this.data ? this.data.length : 0;
    this.sub.textContent = this.error || (this.loading ? "loading…" : this.data ? `${n} mesh${n === 1 ? "" : "es"}` : "");
  }

  load() {
    this.seenRuns = this.runs().join("\u0000");
    this.request("data", { type: "meshes" }, (msg) => {
      this.data = (msg.meshes || []).filter((m) => m && typeof m.name === "string");
      this.loading = false;
      this.draw();
    });
  }

  render() {
    if (!this.board.plotly) {
      this.needsDraw = true;
      return false;
    }
    const shown = this.board.shown || new Set();
    const keep = new Set();
    const order = [];
    for (const mesh of this.data) {
      const runs = (mesh.runs || []).filter((run) => shown.has(run));
      if (!runs.length) continue;
      keep.add(mesh.name);
      let panel = this.panels.get(mesh.name);
      if (!panel) {
        panel = new MeshPanel(this, mesh.name);
        this.panels.set(mesh.name, panel);
      }
      const changed = String(panel.runs) !== String(runs);
      panel.runs = runs;
      if (changed || !panel.entries.length) panel.load();
      else panel.render();
      order.push(panel.el);
    }
    for (const [name, panel] of this.panels) {
      if (keep.has(name)) continue;
      panel.destroy();
      this.panels.delete(name);
    }
    this.plot.replaceChildren(...(order.length ? order : [h("div", { class: "tbnb-empty", text: "No selected run has a mesh." })]));
    return true;
  }

  /** Runs holding mesh tags: a new one (new data) lists the meshes again. */
  runs() {
    const tags = this.board.index && this.board.index.plugins.get(this.plugin);
    const runs = new Set();
    for (const info of tags ? tags.values() : []) for (const run of info.runs) runs.add(run);
    return [...runs];
  }

  runsChanged() {
    const runs = this.runs().join("\u0000");
    if (this.data && runs !== this.seenRuns) this.dirty = true;
    this.seenRuns = runs;
    super.runsChanged();
    if (this.data && !this.dirty) this.redraw();
  }

  destroy() {
    for (const panel of this.panels.values()) panel.destroy();
    super.destroy();
  }
}

/** The mesh tab: one card filling the area, a panel per mesh. */
export const dashboard = {
  id: "mesh",
  label: "Mesh",
  plotly: "full", // mesh3d and scatter3d traces: not in the cartesian build
  whole: true,
  cards: { mesh: { Card: MeshCard, plugin: "mesh", noun: "mesh", perRun: false } },
};
