// The audio tab: a card per audio tag and run, with a step slider, the step's clip and its sample
// rate and label.

import { formatSampleRate } from "../cards/blob.js";
import { BlobCard } from "../cards/blob_card.js";
import { h } from "../dom.js";
import { LINK_TRAITS } from "../cards/step_link.js";

export class AudioCard extends BlobCard {
  renderInfo(row) {
    const parts = [];
    const rate = formatSampleRate(row.rate);
    if (rate) parts.push(rate);
    if (typeof row.label === "string" && row.label) parts.push(row.label);
    this.info.textContent = parts.join(" · ");
    this.info.hidden = parts.length === 0;
  }

  show(entry) {
    if (entry.show !== "ok") return this.placeholder(entry, "Audio");
    return h("audio", { class: "tbnb-audio", controls: true, preload: "metadata", src: entry.url });
  }
}

/** Laid out as TensorBoard's audio dashboard: a row per tag, a column per run. */
export const dashboard = {
  id: "audio",
  label: "Audio",
  cards: {
    audio: { Card: AudioCard, plugin: "audio", noun: "audio", perRun: true, redrawOn: LINK_TRAITS },
  },
  rowsPerTag: true,
};
