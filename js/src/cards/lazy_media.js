// The media view (dashboards/images/media_view.js: the segmentation card's view, the "compare runs" row
// of image and audio cards, their CSS) is built apart from the bundle (js/build.mjs LAZY), which
// is saved with every widget: the kernel sends it the first time a card needs it ({"type": "media_code"}), to
// run once per page as a classic script, as the projector's view is.

import { runViewScript } from "../core/view_script.js";

const GLOBAL = "__tbnb_media_view__";
let loading = null; // one promise per page

/** The media view module, asked for through the Board of `card` the first time: through the
 * router, not the card, so that the card going away does not leave every other card waiting. */
export function mediaView(card) {
  if (globalThis[GLOBAL]) return Promise.resolve(globalThis[GLOBAL]);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      card.board.router.enqueue({ type: "media_code" }, {
        key: "media_code",
        priority: () => 10,
        onReply: (msg, buffers) => {
          if (!buffers || !buffers.length) reject(new Error("the kernel sent no code"));
          else runViewScript(buffers[0], GLOBAL, "the media view's code").then(resolve, reject);
        },
        onError: (message) => reject(new Error(message)),
      });
    });
    loading.catch(() => (loading = null));
  }
  return loading;
}
