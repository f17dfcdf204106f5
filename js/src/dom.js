// Tiny DOM helpers. Data (run and tag names) only ever becomes text: textContent, attributes
// and property values, never HTML.

// Always attributes (their properties are read-only or named differently).
const ATTRIBUTES = new Set(["list", "for", "role", "form"]);

/**
 * h("div", {class: "a", text: "hi", title: "t", on: {click}}, child, ...) -> element.
 * Other attrs set properties when the element has them (value, checked, type...), else attributes.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "text") el.textContent = value;
    else if (name === "style") Object.assign(el.style, value);
    else if (name === "on") for (const [event, fn] of Object.entries(value)) el.addEventListener(event, fn);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name in el && !ATTRIBUTES.has(name) && typeof el[name] !== "function" && !name.startsWith("aria"))
      el[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

// 24x24 single-path icons (our own drawings).
const ICONS = {
  pin: "M15 3l6 6-1.5 1.5-1.2-.6-3.6 3.6.6 3.7-1.6 1.6-3.7-3.7L5.1 19.9 4 19.8l.1-1.1 4.8-4.9-3.7-3.7 1.6-1.6 3.7.6 3.6-3.6-.6-1.2z",
  expand: "M4 4h6v2H6v4H4zm10 0h6v6h-2V6h-4zM4 14h2v4h4v2H4zm14 0h2v6h-6v-2h4z",
  shrink: "M8 4h2v6H4V8h4zm6 0h2v4h4v2h-6zM4 14h6v6H8v-4H4zm10 0h6v2h-4v4h-2z",
  download: "M11 4h2v8.2l3.3-3.3 1.4 1.4L12 16 6.3 10.3l1.4-1.4 3.3 3.3zM5 18h14v2H5z",
  tune: "M3 6h11v2H3zm15 0h3v2h-3zm-2-2h2v6h-2zM3 16h5v2H3zm9 0h9v2h-9zm-2-2h2v6h-2z",
  chevron: "M7 9.5l5 5 5-5z",
  reset: "M12 5V2L8 6l4 4V7a5 5 0 1 1-5 5H5a7 7 0 1 0 7-7z",
  close: "M6.4 5L12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z",
};

/**
 * Write DOM properties only where they differ: a write of the same value is still a DOM
 * mutation (a text node replaced, an attribute set), which mutation observers take for a change
 * and the browser styles and lays out again. Props: {text, hidden, attrs: {name: value},
 * data: {key: value}}.
 */
export function update(el, { text, hidden, attrs = {}, data = {} }) {
  if (text !== undefined && el.textContent !== text) el.textContent = text;
  if (hidden !== undefined && el.hidden !== hidden) el.hidden = hidden;
  for (const [name, value] of Object.entries(attrs)) if (el.getAttribute(name) !== value) el.setAttribute(name, value);
  for (const [key, value] of Object.entries(data)) if (el.dataset[key] !== value) el.dataset[key] = value;
}

/** An inline SVG icon (constant shapes only). */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "tbnb-icon");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

/** A button with an icon (or text) and a tooltip. */
export function iconButton(name, title, onClick, extraClass = "") {
  return h(
    "button",
    { type: "button", class: `tbnb-btn ${extraClass}`.trim(), title, "aria-label": title, on: { click: onClick } },
    ICONS[name] ? icon(name) : name,
  );
}

/** fn delayed until `ms` after the last call; .flush() runs a pending call now, .cancel() drops it. */
export function debounce(fn, ms) {
  let timer = null;
  let args = null;
  const run = () => {
    timer = null;
    const a = args;
    args = null;
    fn(...a);
  };
  const wrapped = (...a) => {
    args = a;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
  wrapped.flush = () => {
    if (timer !== null) {
      clearTimeout(timer);
      run();
    }
  };
  wrapped.cancel = () => {
    clearTimeout(timer);
    timer = null;
  };
  return wrapped;
}

/** fn called at the next animation frame with the latest arguments: once per frame at most;
 * .cancel() drops a pending call. */
export function perFrame(fn) {
  let frame = 0;
  let args = [];
  const wrapped = (...a) => {
    args = a;
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        fn(...args);
      });
    }
  };
  wrapped.cancel = () => {
    cancelAnimationFrame(frame);
    frame = 0;
  };
  return wrapped;
}

/** Unique ids for label/datalist wiring inside one page. */
let uid = 0;
export function uniqueId(prefix) {
  uid += 1;
  return `${prefix}-${uid}-${Math.floor(Math.random() * 1e6)}`;
}
