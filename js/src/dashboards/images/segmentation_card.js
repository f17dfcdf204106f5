// The segmentation card of the images tab: one segmentation TAG logged by tbnb.log_segmentation
// (TAG/image, /label, /prediction and /classes), one run, laid out before the tag's three image
// cards (which stay: TensorBoard's view of the same series). Image | label | prediction side by
// side, an overlay and an errors view, a legend of classes that toggle, a step slider that
// follows new steps and, with link by step, the scalar cards' selected step. This shell is in the
// bundle (saved with every widget); its view (segmentation_view.js) is built apart and sent by
// the kernel the first time a card needs it (lazy_media.js).

import { mediaView } from "../../cards/lazy_media.js";
import { RunCard, stepCount } from "../../cards/run_card.js";
import { LINK_TRAITS } from "../../cards/step_link.js";

/** The sub-series tbnb.log_segmentation writes (images) and its classes text's names. */
const PARTS = ["image", "label", "prediction"];
const CLASSES = ["classes", "classes/text_summary"];

/**
 * The segmentation tags of an index (plugin -> tag -> {runs}): TAG such that TAG/image,
 * TAG/label and TAG/prediction are image tags and TAG/classes a text tag, with the runs that
 * hold all four (in the image tag's order). A Map TAG -> {runs, points} like the index's.
 */
export function segmentationTags(plugins) {
  const images = (plugins && plugins.get("images")) || new Map();
  const texts = (plugins && plugins.get("text")) || new Map();
  const out = new Map();
  for (const [tag, info] of images) {
    if (!tag.endsWith("/image")) continue;
    const base = tag.slice(0, -"/image".length);
    if (!base) continue;
    const others = PARTS.slice(1).map((part) => images.get(`${base}/${part}`));
    const classRuns = new Set(CLASSES.flatMap((name) => (texts.get(`${base}/${name}`) || { runs: [] }).runs));
    if (others.some((o) => !o) || !classRuns.size) continue;
    const runs = (info.runs || []).filter((run) => classRuns.has(run) && others.every((o) => o.runs.includes(run)));
    if (runs.length) out.set(base, { runs, points: {} });
  }
  return out;
}

export class SegmentationCard extends RunCard {
  init() {
    this.view = null;
  }

  /** [run] while the run is selected and holds the segmentation (its prediction series). */
  runs() {
    return this.board.runsForTag(`${this.tag}/prediction`, "images").includes(this.run) ? [this.run] : [];
  }

  load() {
    if (this.view) return this.view.load();
    mediaView(this).then(
      (mod) => {
        if (this.destroyed) return;
        this.view = new mod.SegmentationView(this);
        this.view.load();
      },
      (error) => this.fail(error.message),
    );
  }

  describe() {
    return stepCount(this.data && this.data.length);
  }

  render() {
    return this.view ? this.view.render() : false;
  }

  settingChanged(name) {
    if (this.view) this.view.settingChanged(name);
  }

  destroy() {
    if (this.view) this.view.destroy();
    super.destroy();
  }
}

/** The card's kind in the images tab (layout.js `tagsOf`: a segmentation is four series). */
export const segmentationKind = {
  Card: SegmentationCard,
  plugin: "images",
  plugins: ["images", "text"],
  noun: "image",
  perRun: true,
  tagsOf: segmentationTags,
  redrawOn: LINK_TRAITS,
};
