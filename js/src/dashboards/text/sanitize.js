// Text summaries are Markdown written by anyone who can write to the logdir: they are rendered
// with `marked` and then sanitised with DOMPurify under one policy, kept here.
//
// The policy: an allow-list of the tags and attributes Markdown makes (tables, lists, links,
// code, images, emphasis); never <script>, <style>, <iframe>, <object>, <embed>, <form>, <input>
// and other controls, <svg> or <math>; no event-handler, style, id, name or class attribute;
// URLs only http(s) (and mailto: for links), so no javascript:, data: or relative URL in href or
// src; every link opens in a new tab with rel="noopener noreferrer". The result is a
// DocumentFragment (never an HTML string for innerHTML). A final pass over it re-checks the
// attributes, so a hook that did not run cannot let anything through. When DOMPurify cannot
// run (no usable DOM), the Markdown source is shown as text.
//
// The libraries come in as `libs` = {Marked, createDOMPurify}: the page gets them from
// markdown.js (unpacked on first use), node's tests import them from node_modules.

export const ALLOWED_TAGS = [
  "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "details", "div", "dl", "dt", "em",
  "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q",
  "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
  "thead", "tr", "u", "ul",
];

/** Never kept, whatever else says so (the allow-list already leaves them out). */
export const FORBID_TAGS = [
  "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input", "button",
  "textarea", "select", "option", "svg", "math", "link", "meta", "base", "template", "noscript", "audio",
  "video", "source", "track", "canvas", "portal", "dialog",
];

export const ALLOWED_ATTR = ["href", "title", "alt", "src", "align", "start", "colspan", "rowspan", "width", "height", "open"];
export const FORBID_ATTR = ["style", "id", "name", "class", "srcset", "target", "rel", "action", "formaction", "xlink:href", "background", "poster", "ping"];

const URL_ATTRIBUTES = new Set(["href", "src"]);
const SAFE = { href: /^(?:https?:\/\/|mailto:)/i, src: /^https?:\/\//i };

const CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // DOMPurify tests every attribute not listed as "URI safe" against this: list the allowed
  // ones that are not URLs, so that the expression only ever judges href and src.
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ADD_URI_SAFE_ATTR: ALLOWED_ATTR.filter((name) => !URL_ATTRIBUTES.has(name)),
  KEEP_CONTENT: true,
  RETURN_DOM_FRAGMENT: true,
};

/**
 * Whether `value` may stay in attribute `name` ("href" or "src"). Browsers ignore ASCII
 * whitespace and control characters in URLs' schemes, so they are removed before the check.
 */
export function isSafeUrl(value, name = "href") {
  if (typeof value !== "string") return false;
  const compact = value.replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  return (SAFE[name] || SAFE.src).test(compact);
}

/**
 * The final pass over sanitised nodes: drop every attribute not allowed (event handlers
 * above all) and every unsafe URL; links open in a new tab without opener or referrer.
 */
export function enforceLinks(root) {
  const elements = root.querySelectorAll ? root.querySelectorAll("*") : [];
  for (const el of elements) {
    for (const { name } of Array.from(el.attributes)) {
      const lower = name.toLowerCase();
      const allowed = ALLOWED_ATTR.includes(lower) || (lower === "target" || lower === "rel") && el.localName === "a";
      if (!allowed || (URL_ATTRIBUTES.has(lower) && !isSafeUrl(el.getAttribute(name), lower))) el.removeAttribute(name);
    }
    if (el.localName === "img" && !el.hasAttribute("src")) {
      el.remove(); // nothing to show (its URL was not allowed)
      continue;
    }
    if (el.localName === "a" && el.hasAttribute("href")) {
      el.setAttribute("target", "_blank");
      el.setAttribute("rel", "noopener noreferrer");
    } else if (el.localName === "a") {
      el.removeAttribute("target");
      el.removeAttribute("rel");
    }
  }
  return root;
}

const purifiers = new WeakMap(); // window -> DOMPurify with the hooks, or null

/** DOMPurify bound to `win` with the policy's hooks, or null when it cannot run there. */
function purifierFor(libs, win) {
  if (!win || (typeof win !== "object" && typeof win !== "function")) return null;
  if (purifiers.has(win)) return purifiers.get(win);
  let purify = null;
  try {
    purify = libs.createDOMPurify(win);
  } catch {
    purify = null;
  }
  // Where DOMPurify is not supported its sanitize() returns the input untouched: never use it.
  if (!purify || purify.isSupported !== true) purify = null;
  else {
    purify.addHook("uponSanitizeAttribute", (node, data) => {
      if (URL_ATTRIBUTES.has(data.attrName) && !isSafeUrl(data.attrValue, data.attrName)) data.keepAttr = false;
    });
    purify.addHook("afterSanitizeAttributes", (node) => {
      if (node.nodeName === "A" && node.hasAttribute("href")) {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      }
    });
  }
  purifiers.set(win, purify);
  return purify;
}

/** `text` in a <pre>, as a DocumentFragment of `doc` (what is shown when rendering fails). */
export function textFragment(doc, text) {
  const fragment = doc.createDocumentFragment();
  const pre = doc.createElement("pre");
  pre.textContent = String(text ?? "");
  fragment.append(pre);
  return fragment;
}

/** HTML text -> a sanitised DocumentFragment of `win`'s document (as text if DOMPurify cannot run). */
export function sanitizeHtml(libs, html, win = globalThis.window) {
  const purify = purifierFor(libs, win);
  if (!purify) return textFragment(win.document, html);
  return enforceLinks(purify.sanitize(String(html ?? ""), CONFIG));
}

const renderers = new WeakMap(); // libs -> Marked instance

/** Markdown source -> a sanitised DocumentFragment (the source as text if rendering fails). */
export function renderMarkdown(libs, source, win = globalThis.window) {
  let marked = renderers.get(libs);
  if (!marked) {
    marked = new libs.Marked({ gfm: true, breaks: false, async: false });
    renderers.set(libs, marked);
  }
  let html;
  try {
    html = marked.parse(String(source ?? ""));
  } catch {
    return textFragment(win.document, source);
  }
  if (typeof html !== "string" || !purifierFor(libs, win)) return textFragment(win.document, source);
  return sanitizeHtml(libs, html, win);
}
