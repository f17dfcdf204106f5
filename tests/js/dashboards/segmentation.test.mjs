// The segmentation card's pure parts: which index tags are segmentations (and the images tab's
// layout of their cards), and the pixels of its views from class-id masks.
import test from "node:test";
import assert from "node:assert/strict";
import { layoutItems } from "../../../js/src/core/layout.js";
import { segmentationTags } from "../../../js/src/dashboards/images/segmentation_card.js";
import { ERROR_RGB, errorPixels, formatIou, hexRgb, maskPixels, overlayPixels } from "../../../js/src/dashboards/images/segmentation_pixels.js";

const info = (...runs) => ({ runs, points: {} });

function index() {
  return new Map([
    ["images", new Map([
      ["val/s/image", info("a", "b", "c")],
      ["val/s/label", info("a", "b", "c")],
      ["val/s/prediction", info("a", "b")],
      ["half/image", info("a")],
      ["half/label", info("a")],
      ["plain", info("a")],
    ])],
    ["text", new Map([["val/s/classes", info("a")], ["val/s/classes/text_summary", info("b", "c")], ["half/classes", info("a")]])],
  ]);
}

test("a segmentation is TAG/image, /label, /prediction images and TAG/classes text, in the runs holding all four", () => {
  const tags = segmentationTags(index());
  assert.deepEqual([...tags.keys()], ["val/s"], "half has no prediction; plain is an image");
  assert.deepEqual(tags.get("val/s").runs, ["a", "b"], "c has no prediction; torch's text_summary name counts");
  assert.deepEqual([...segmentationTags(new Map()).keys()], []);
});

test("the images tab lays out a segmentation card per run, before the tag's image cards", () => {
  const layout = layoutItems({ dashboard: "images", cardTypes: [], tags: index(), shown: new Set(["a", "b", "c"]) });
  const val = layout.groups.find((g) => g.name === "val").items.map((i) => [i.kind, i.tag, i.run, i.rowStart]);
  assert.deepEqual(val.slice(0, 3), [
    ["segmentation", "val/s", "a", true],
    ["segmentation", "val/s", "b", false],
    ["images", "val/s/image", "a", true],
  ]);
  const timeseries = layoutItems({ dashboard: "timeseries", cardTypes: ["images"], tags: index(), shown: new Set(["a"]) });
  assert.ok(timeseries.groups.flatMap((g) => g.items).every((i) => i.kind === "images"), "the time series tab shows images only");
});

// a 2x2 image, classes 0..2
const PALETTE = ["#000000", "#ff0000", "#00ff80"];
const IMAGE = new Uint8Array([10, 20, 30, 255, 100, 100, 100, 255, 200, 0, 0, 255, 0, 0, 200, 255]);
const LABEL = new Uint8Array([0, 1, 2, 1]);
const PRED = new Uint8Array([0, 2, 2, 0]);

test("a mask in its class colours; hidden classes transparent", () => {
  assert.deepEqual(hexRgb("#00ff80"), [0, 255, 128]);
  assert.deepEqual(hexRgb("red"), [128, 128, 128]);
  assert.deepEqual([...maskPixels(LABEL, PALETTE)], [0, 0, 0, 255, 255, 0, 0, 255, 0, 255, 128, 255, 255, 0, 0, 255]);
  assert.deepEqual([...maskPixels(LABEL, PALETTE, new Set([1]))], [0, 0, 0, 255, 0, 0, 0, 0, 0, 255, 128, 255, 0, 0, 0, 0]);
});

test("overlay: the colour blended over the image at the opacity; hidden classes leave the image", () => {
  const half = overlayPixels(IMAGE, LABEL, PALETTE, new Set(), 0.5);
  assert.deepEqual([...half.slice(0, 8)], [5, 10, 15, 255, 178, 50, 50, 255]);
  assert.deepEqual([...overlayPixels(IMAGE, LABEL, PALETTE, new Set(), 0)], [...IMAGE], "opacity 0: the image");
  assert.deepEqual([...overlayPixels(IMAGE, LABEL, PALETTE, new Set(), 1).slice(4, 8)], [255, 0, 0, 255], "opacity 1: the mask");
  const hidden = overlayPixels(IMAGE, LABEL, PALETTE, new Set([0, 1, 2]), 0.7);
  assert.deepEqual([...hidden], [...IMAGE]);
});

test("errors: the pixels where label and prediction differ, counted over shown classes", () => {
  const { pixels, wrong, counted } = errorPixels(IMAGE, LABEL, PRED);
  assert.equal(wrong, 2);
  assert.equal(counted, 4);
  const bad = [1, 3].map((i) => [...pixels.slice(4 * i, 4 * i + 3)]);
  assert.deepEqual(bad, [ERROR_RGB, ERROR_RGB]);
  for (const i of [0, 2]) {
    const p = pixels.slice(4 * i, 4 * i + 3);
    assert.ok(p[0] === p[1] && p[1] === p[2], "right pixels are grey");
  }
  // class 1 hidden: pixel 3 (label 1, prediction 0) still counts (0 is shown); hiding 0 too drops it
  assert.equal(errorPixels(IMAGE, LABEL, PRED, new Set([1])).wrong, 2);
  const both = errorPixels(IMAGE, LABEL, PRED, new Set([0, 1]));
  assert.deepEqual([both.wrong, both.counted], [1, 2]);
  assert.equal(formatIou(0.73456), "0.735");
  assert.equal(formatIou(NaN), "–");
});
