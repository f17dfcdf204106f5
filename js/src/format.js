// Numbers and times as text for people.

/** 12345 -> "12,345". */
export function formatCount(n) {
  return Math.round(n).toLocaleString("en-US");
}

/** 1234567 -> "1.23M" (short, for the status line). */
export function formatShort(n) {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toPrecision(3)}G`;
  if (abs >= 1e6) return `${(n / 1e6).toPrecision(3)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toPrecision(3)}k`;
  return formatCount(n);
}

/** Local clock time of epoch seconds: "14:02:11". */
export function formatClock(epochSeconds) {
  const d = new Date(epochSeconds * 1000);
  const pad = (v) => String(v).padStart(2, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local date and time of epoch seconds, short: "11-14 22:13:20". */
export function formatDateTime(epochSeconds) {
  const d = new Date(epochSeconds * 1000);
  const pad = (v) => String(v).padStart(2, "0");
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(epochSeconds)}`;
}

/**
 * Escape text for places where plotly renders its HTML subset (names, hover templates): no tag
 * can form without < and >, and % is spelled &#37; so that "%{y}" in a run name stays text.
 */
export function escapePlotly(text) {
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/%/g, "&#37;");
}

/** A file name from a tag: "loss/train" -> "loss_train". */
export function fileNameFor(tag, extension) {
  const base = String(tag).replace(/[^\w.-]+/g, "_").replace(/^[._]+|[._]+$/g, "") || "scalars";
  return `${base}.${extension}`;
}
