// The images tab: a card per image tag and run, with a step slider and the step's images (all of
// its batch); images scaled up are drawn with hard pixel edges (a filter or activation grid of
// tbnb.log_filters / log_activations stays readable). Also a card type of the time series tab.
// A segmentation logged by tbnb.log_segmentation gets a segmentation card of its own
// (segmentation_card.js), laid out before its TAG/image, /label and /prediction image cards.

import { BlobCard } from "../../cards/blob_card.js";
import { h } from "../../dom.js";
import { LINK_TRAITS } from "../../cards/step_link.js";
import { segmentationKind } from "./segmentation_card.js";

export class ImageCard extends BlobCard {
  show(entry, step, index) {
    if (entry.show !== "ok") return this.placeholder(entry, "Image");
    const img = h("img", {
      src: entry.url,
      alt: `${this.tag} · ${this.run} · step ${step}${index ? ` · #${index + 1}` : ""}`,
      decoding: "async",
    });
    if (Number.isInteger(entry.width) && Number.isInteger(entry.height) && entry.width > 0 && entry.height > 0) {
      img.width = entry.width;
      img.height = entry.height;
    }
    // Images scaled up get hard pixel edges, no blur (MNIST digits, feature maps, filter grids):
    // at any enlargement, as a 1.5x blur already smears a 3x3 filter.
    img.addEventListener("load", () => {
      const scale = Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight);
      img.classList.toggle("tbnb-pixelated", scale > 1);
    });
    return h("div", { class: "tbnb-image" }, img);
  }
}

/** Laid out as TensorBoard's image dashboard: a row per tag, a column per run. */
export const dashboard = {
  id: "images",
  label: "Images",
  cards: {
    images: { Card: ImageCard, plugin: "images", noun: "image", perRun: true, redrawOn: LINK_TRAITS },
    segmentation: segmentationKind,
  },
  rowsPerTag: true,
};
