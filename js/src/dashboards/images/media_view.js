// The lazy media view's entry (js/build.mjs LAZY "media_view"; lazy_media.js loads it): what the
// segmentation card and the "compare runs" row of image and audio cards draw with.

import { BlobCompare } from "../../cards/blob_compare.js";
import { addMediaStyle } from "./media_style.js";
import { SegmentationView } from "./segmentation_view.js";

/** The page's hook into this module once it ran (a classic script: no dynamic import). */
globalThis.__tbnb_media_view__ = { SegmentationView, BlobCompare, addMediaStyle };
