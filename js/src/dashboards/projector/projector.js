// The projector dashboard: one card filling the area (layout.js `fills`). Its view (2D plotly,
// 3D WebGL, panels: projector_view.js and the modules it imports) is not in the bundle, which is
// saved with every widget: it is built apart (js/build.mjs, LAZY) and the kernel sends it the first
// time a projector card is shown ({"type": "projector_code"}), to run as a classic script once
// per page, like plotly.js. This card forwards its lifecycle to that view.

import { Card } from "../../cards/card.js";
import { h } from "../../dom.js";
import { runViewScript } from "../../core/view_script.js";

const GLOBAL = "__tbnb_projector_view__";
const TRAITS = ["projector_run", "projector_embedding", "projector_method", "projector_dims", "projector_params",
  "projector_color_by", "projector_label_by", "projector_search", "projector_selection"];
let loading = null; // one promise per page

export class ProjectorCard extends Card {
  build() {
    this.plot = h("div", { class: "tbnb-pj-area", style: { position: "relative", height: "520px" } },
      h("div", { class: "tbnb-pj-msg", text: "Loading the projector…" }));
    this.sub = h("div", { class: "tbnb-card-sub", text: "loading the projector…" });
    this.el = h("div", { class: "tbnb-card tbnb-card-projector tbnb-expanded tbnb-projector", dataset: { kind: this.kind } }, this.sub, this.plot);
    this.view = null;
  }

  canLoad() {
    return true;
  }

  runs() {
    return [];
  }

  hasData() {
    return this.view !== null && this.view.hasData();
  }

  load() {
    if (this.view) {
      this.view.load();
      return;
    }
    if (globalThis[GLOBAL]) {
      this.start(globalThis[GLOBAL]);
      return;
    }
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        this.request("code", { type: "projector_code" }, (msg, buffers) => {
          if (!buffers.length) reject(new Error("the kernel sent no code"));
          else runViewScript(buffers[0], GLOBAL, "the projector's code").then(resolve, reject);
        }, (message) => reject(new Error(message)));
      });
      loading.catch(() => (loading = null));
    }
    loading.then((mod) => this.start(mod), (error) => this.fail(error.message));
  }

  start(mod) {
    if (this.destroyed) return;
    this.view = new mod.ProjectorView(this);
    this.view.load();
  }

  fail(message) {
    if (this.view) this.view.fail(message);
    else {
      this.loading = false;
      this.dirty = true;
      this.sub.textContent = "";
      this.plot.replaceChildren(h("div", { class: "tbnb-pj-msg", text: `Could not load the projector: ${message}` }));
    }
  }

  render() {
    return this.view ? this.view.render() : false;
  }

  settingChanged(name) {
    if (this.view) this.view.settingChanged(name);
  }

  resized() {
    if (this.view) this.view.resized();
  }

  destroy() {
    if (this.view) this.view.destroy();
    super.destroy();
  }
}

export const dashboard = {
  id: "projector",
  label: "Projector",
  plotly: "full", // WebGL scatter (scattergl) in 2D: not in the cartesian build
  fills: true,
  cards: {
    projector: { Card: ProjectorCard, plugin: "projector", noun: "embedding", perRun: false, redrawOn: TRAITS },
  },
};
