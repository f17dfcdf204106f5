// A scalar card's download menu (dashboards/scalar_download.js): each item closes the menu and
// asks the kernel for the card's data in its format; the reply's text is saved under a file
// name made from the tag, with its MIME type; a failure goes to the Board's banner.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../../js/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body></body>");
globalThis.document = window.document;
globalThis.Node = window.Node;
const saved = [];
// The browser's save: a Blob URL on a clicked <a download>; here, what it would save.
URL.createObjectURL = (blob) => {
  saved.push(blob);
  return "blob:x";
};
URL.revokeObjectURL = () => {};
window.HTMLAnchorElement.prototype.click = function click() {
  saved.push(this.download);
};
const { download, downloadMenu } = await import("../../../js/src/cards/scalar/scalar_download.js");

function fakeCard() {
  const sent = [];
  const banners = [];
  const card = {
    tag: "loss/train <b>",
    runs: () => ["a", "b"],
    compare: { request: () => ({ best: "min" }) },
    board: {
      router: { sendNow: (content, handlers) => sent.push({ content, handlers }) },
      banner: (text) => banners.push(text),
    },
    downloads: [],
    download(format) {
      this.downloads.push(format);
    },
  };
  return { card, sent, banners };
}

test("each item closes the menu and downloads its format", () => {
  const { card } = fakeCard();
  const menu = downloadMenu(card);
  assert.equal(menu.tagName, "DETAILS");
  const items = [...menu.querySelectorAll("button")];
  assert.deepEqual(items.map((b) => b.textContent), ["Download CSV", "Download JSON"]);
  menu.open = true;
  items[1].click();
  assert.equal(menu.open, false);
  items[0].click();
  assert.deepEqual(card.downloads, ["json", "csv"]);
});

test("the request names the card's runs and comparison; the reply is saved as a file", async () => {
  const { card, sent, banners } = fakeCard();
  download(card, "csv");
  assert.deepEqual(sent[0].content, { type: "csv", tag: "loss/train <b>", runs: ["a", "b"], best: "min" });
  saved.length = 0;
  sent[0].handlers.onReply({ format: "csv", text: "run,step\na,1\n" });
  const [blob, name] = saved;
  assert.equal(name, "loss_train_b.csv");
  assert.equal(blob.type, "text/csv");
  assert.equal(await blob.text(), "run,step\na,1\n");
  download(card, "json");
  sent[1].handlers.onError("no such tag");
  assert.deepEqual(banners, ["Download of loss/train <b> failed: no such tag"]);
});
