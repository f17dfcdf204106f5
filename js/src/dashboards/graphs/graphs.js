// The graphs dashboard: one card filling the area, TensorBoard's graph explorer. The card is a
// shell: the explorer itself (explorer.js, with the dagre layout worker) is handed over by
// the kernel when a graph is first shown (loader.js), so the bundle stays small.

import { Card } from "../../cards/card.js";
import { h } from "../../dom.js";
import { loadExplorer } from "./loader.js";

/** The traits the explorer follows (tbnb/board/dashboards/graphs.py, Traits). */
const TRAITS = ["graph_run", "graph_tag", "graph_expanded", "graph_series", "graph_include", "graph_selected", "graph_search", "graph_color_by"];

export class GraphCard extends Card {
  build() {
    this.plot = h("div", { class: "tbnb-placeholder", text: "loading the graph explorer…" });
    this.el = h("div", { class: "tbnb-card tbnb-card-graph tbnb-expanded", dataset: { tag: this.tag, kind: this.kind } }, this.plot);
    this.explorer = null;
  }

  canLoad() {
    return true;
  }

  runs() {
    const run = this.board.model.get("graph_run");
    return run ? [run] : [];
  }

  fail(message) {
    this.loading = false;
    this.dirty = true;
    if (this.explorer) this.explorer.fail(message);
    else this.plot.textContent = `Could not load the graph explorer: ${message}`;
  }

  load() {
    if (this.explorer) {
      this.explorer.load();
      return;
    }
    const ask = () => new Promise((resolve, reject) => this.request("explorer", { type: "graph_explorer" }, (_msg, buffers) => resolve(buffers[0]), reject));
    // The list of graphs is asked at once, while the explorer's script comes.
    const list = new Promise((resolve, reject) => this.request("list", { type: "graph_list" }, resolve, reject));
    list.catch(() => {});
    loadExplorer(ask).then(
      (module) => {
        if (this.destroyed) return;
        this.explorer = new module.Explorer(this);
        this.plot = this.explorer.plot;
        this.explorer.load(list);
      },
      (error) => this.fail(error.message || String(error)),
    );
  }

  settingChanged(name) {
    if (this.explorer) this.explorer.settingChanged(name);
  }

  draw() {
    if (this.explorer && this.visible) this.explorer.draw();
  }
}

/** The graphs tab: the explorer, one card filling the area. */
export const dashboard = {
  id: "graphs",
  label: "Graphs",
  whole: true,
  cards: {
    graph: {
      Card: GraphCard,
      plugin: "graphs",
      plugins: ["graphs", "graph_run_metadata", "graph_run_metadata_graph", "graph_keras_model", "graph_tagged_run_metadata"],
      noun: "graph",
      perRun: false,
      redrawOn: TRAITS,
    },
  },
};
