// A scalar card's download menu: the card's every point as CSV or JSON, made by the kernel (a
// "csv"/"json" request for the card's runs) and saved through the browser.

import { h, icon } from "../../dom.js";
import { saveText } from "../../download.js";
import { fileNameFor } from "../../format.js";

const MIME = { csv: "text/csv", json: "application/json" };

/** The menu (a <details>) whose items download `card`'s data (its download(format)). */
export function downloadMenu(card) {
  const item = (label, format) =>
    h("button", {
      type: "button",
      text: label,
      on: {
        click: () => {
          menu.open = false;
          card.download(format);
        },
      },
    });
  const menu = h(
    "details",
    { class: "tbnb-menu" },
    h("summary", { class: "tbnb-btn", title: "Download data", "aria-label": "Download data" }, icon("download")),
    h("div", { class: "tbnb-menu-items" }, item("Download CSV", "csv"), item("Download JSON", "json")),
  );
  return menu;
}

/** `card`'s full data, as CSV or JSON, saved through the browser. */
export function download(card, format) {
  card.board.router.sendNow(
    { type: format, tag: card.tag, runs: card.runs(), ...card.compare.request() },
    {
      onReply: (msg) => saveText(fileNameFor(card.tag, msg.format || format), String(msg.text ?? ""), MIME[format]),
      onError: (message) => card.board.banner(`Download of ${card.tag} failed: ${message}`),
    },
  );
}
