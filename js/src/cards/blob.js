// Images and audio from the kernel: which bytes may become a Blob URL (an allow-list of MIME
// types, checked here whatever the kernel says), what to show instead, and the image settings.
// Pure functions: no DOM.

/** The only MIME types a Blob URL is made with; anything else is shown as unsupported. */
export const ALLOWED_MIME = {
  images: new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"]),
  audio: new Set(["audio/wav", "audio/ogg", "audio/mpeg", "audio/flac"]),
};

/** "Image/PNG; x=y" -> "image/png" (null for anything that is not text). */
export function baseMime(mime) {
  if (typeof mime !== "string") return null;
  return mime.split(";")[0].trim().toLowerCase() || null;
}

/** The allowed MIME type of `mime` for `kind` ("images" or "audio"), or null. */
export function allowedMime(kind, mime) {
  const base = baseMime(mime);
  const allowed = ALLOWED_MIME[kind];
  return base && allowed && allowed.has(base) ? base : null;
}

/**
 * What to do with a "blob" reply: {show: "ok", mime, bytes} (make a Blob URL of bytes with that
 * type), {show: "too_large", size}, or {show: "unsupported", mime} (unknown status, MIME type
 * not allowed, bytes missing).
 */
export function blobOutcome(kind, msg, buffers) {
  const status = msg && msg.status;
  if (status === "too_large") return { show: "too_large", size: Number(msg.size) };
  if (status === "ok") {
    const mime = allowedMime(kind, msg.mime);
    const bytes = buffers && buffers[0];
    if (mime && bytes && (ArrayBuffer.isView(bytes) || bytes instanceof ArrayBuffer)) return { show: "ok", mime, bytes };
  }
  return { show: "unsupported", mime: baseMime(msg && msg.mime) };
}

/** 1536 -> "1.5 KB"; 5242880 -> "5 MB" (powers of 1024). */
export function formatBytes(n) {
  if (!Number.isFinite(n) || n < 0) return "unknown size";
  const units = ["bytes", "KB", "MB", "GB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${v} bytes` : `${Number(v.toFixed(v < 10 ? 1 : 0))} ${units[u]}`;
}

/** The text of a "too large" placeholder. */
export function tooLargeText(what, size, limit) {
  const max = Number.isFinite(limit) && limit > 0 ? ` (the limit is ${formatBytes(limit)}: max_blob_bytes)` : "";
  return `${what} too large to show: ${formatBytes(size)}${max}`;
}

function clampInt(value, lo, hi, fallback) {
  const v = Number(value);
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.round(v))) : fallback;
}

/**
 * TensorBoard's image adjustments as a CSS filter: brightness 0..2000 and contrast 0..5000,
 * 1000 meaning unchanged, applied as `contrast(c/10 %) brightness(b/1000)`.
 */
export function imageFilter(brightness, contrast) {
  const b = clampInt(brightness, 0, 2000, 1000);
  const c = clampInt(contrast, 0, 5000, 1000);
  return `contrast(${c / 10}%) brightness(${b / 1000})`;
}

/** 44100 -> "44.1 kHz"; 8000 -> "8 kHz"; 300 -> "300 Hz". */
export function formatSampleRate(rate) {
  const r = Number(rate);
  if (!Number.isFinite(r) || r <= 0) return "";
  return r >= 1000 ? `${Number((r / 1000).toFixed(3))} kHz` : `${Number(r.toFixed(1))} Hz`;
}
