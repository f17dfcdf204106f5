// Image and audio bytes: the MIME allow-list (whatever the kernel says), placeholders, and
// TensorBoard's brightness/contrast filter.
import test from "node:test";
import assert from "node:assert/strict";
import {
  ALLOWED_MIME,
  allowedMime,
  blobOutcome,
  formatBytes,
  formatSampleRate,
  imageFilter,
  tooLargeText,
} from "../../js/src/cards/blob.js";
import { blobSteps } from "../../js/src/cards/blob_card.js";

const bytes = [new DataView(new ArrayBuffer(8))];

test("allow-lists: PNG, JPEG, GIF, WebP, BMP images; WAV, OGG, MP3, FLAC audio", () => {
  assert.deepEqual([...ALLOWED_MIME.images].sort(), ["image/bmp", "image/gif", "image/jpeg", "image/png", "image/webp"]);
  assert.deepEqual([...ALLOWED_MIME.audio].sort(), ["audio/flac", "audio/mpeg", "audio/ogg", "audio/wav"]);
  assert.equal(allowedMime("images", "image/png"), "image/png");
  assert.equal(allowedMime("images", " IMAGE/JPEG; q=1"), "image/jpeg");
  assert.equal(allowedMime("audio", "audio/ogg; codecs=opus"), "audio/ogg");
  for (const bad of ["image/svg+xml", "text/html", "application/javascript", "image/png\u0000", "", null, undefined, 5]) {
    assert.equal(allowedMime("images", bad), null, String(bad));
  }
  assert.equal(allowedMime("images", "audio/wav"), null, "audio is not an image");
  assert.equal(allowedMime("audio", "image/png"), null, "an image is not audio");
  assert.equal(allowedMime("text", "text/plain"), null, "no other kind");
});

test("a blob reply: bytes only with status ok, an allowed MIME type and a buffer", () => {
  assert.deepEqual(blobOutcome("images", { status: "ok", mime: "image/png" }, bytes), { show: "ok", mime: "image/png", bytes: bytes[0] });
  assert.equal(blobOutcome("images", { status: "ok", mime: "image/svg+xml" }, bytes).show, "unsupported", "the kernel's word is not enough");
  assert.equal(blobOutcome("images", { status: "ok", mime: "text/html" }, bytes).mime, "text/html");
  assert.equal(blobOutcome("images", { status: "ok", mime: "image/png" }, []).show, "unsupported", "no bytes");
  assert.equal(blobOutcome("images", { status: "ok", mime: "image/png" }, ["not bytes"]).show, "unsupported");
  assert.equal(blobOutcome("images", { status: "unsupported", mime: null }, []).show, "unsupported");
  assert.equal(blobOutcome("images", { status: "weird", mime: "image/png" }, bytes).show, "unsupported");
  assert.deepEqual(blobOutcome("audio", { status: "too_large", size: 5 << 20 }, []), { show: "too_large", size: 5 << 20 });
  assert.equal(blobOutcome("audio", { status: "ok", mime: "audio/x-evil" }, bytes).show, "unsupported");
});

test("placeholders say how big", () => {
  assert.equal(formatBytes(512), "512 bytes");
  assert.equal(formatBytes(1536), "1.5 KB");
  assert.equal(formatBytes(5 << 20), "5 MB");
  assert.equal(formatBytes(NaN), "unknown size");
  assert.equal(tooLargeText("Image", 5 << 20, 4 << 20), "Image too large to show: 5 MB (the limit is 4 MB: max_blob_bytes)");
  assert.equal(formatSampleRate(44100), "44.1 kHz");
  assert.equal(formatSampleRate(16000), "16 kHz");
  assert.equal(formatSampleRate(300), "300 Hz");
  assert.equal(formatSampleRate(null), "");
});

test("brightness and contrast as TensorBoard applies them: contrast(c/10 %) brightness(b/1000)", () => {
  assert.equal(imageFilter(1000, 1000), "contrast(100%) brightness(1)");
  assert.equal(imageFilter(0, 5000), "contrast(500%) brightness(0)");
  assert.equal(imageFilter(2000, 0), "contrast(0%) brightness(2)");
  assert.equal(imageFilter(9999, -5), "contrast(0%) brightness(2)", "clamped to the sliders' ranges");
  assert.equal(imageFilter("x", undefined), "contrast(100%) brightness(1)");
});

test("a blobs reply's run: steps in order with their batch size, time, label and rate", () => {
  const rows = blobSteps({
    run: "a",
    steps: [20, 10],
    wall_times: [2.5, 1.5],
    counts: [3, 1],
    labels: ["<b>two</b>", null],
    sample_rates: [16000, 8000],
  });
  assert.deepEqual(rows.map((r) => [r.step, r.count, r.wall, r.label, r.rate]), [
    [10, 1, 1.5, null, 8000],
    [20, 3, 2.5, "<b>two</b>", 16000],
  ]);
  assert.deepEqual(blobSteps({ steps: [1] }).map((r) => [r.count, r.label]), [[1, null]]);
  assert.deepEqual(blobSteps(undefined), []);
});
