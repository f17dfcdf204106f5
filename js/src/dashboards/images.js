// The images tab: a card per image tag and run, with a step slider and the step's images (all of
// its batch); small images are scaled up with hard pixel edges. Also a card type of the time
// series tab.

import { BlobCard } from "../blob_card.js";
import { h } from "../dom.js";

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
    // Small images are scaled up with hard pixel edges (MNIST digits, feature maps).
    img.addEventListener("load", () => {
      const scale = Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight);
      img.classList.toggle("tbnb-pixelated", scale >= 2);
    });
    return h("div", { class: "tbnb-image" }, img);
  }
}

/** Laid out as TensorBoard's image dashboard: a row per tag, a column per run. */
export const dashboard = {
  id: "images",
  label: "Images",
  cards: {
    images: { Card: ImageCard, plugin: "images", noun: "image", perRun: true },
  },
  rowsPerTag: true,
};
