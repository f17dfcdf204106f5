// The Board follows the host's light or dark theme, and switches live when the user switches.
//
// Which theme: JupyterLab and Notebook 7 say it on <body data-jp-theme-light="true|false">;
// VS Code on <body class="vscode-dark | vscode-light | vscode-high-contrast[-light]">; Colab on
// <html theme="dark">. Elsewhere (or when none says), the page's own background decides: the
// first opaque background from the Board up, dark when its luminance is low; with none, the
// browser's prefers-color-scheme. The CSS takes the host's colours where it defines them
// (JupyterLab's --jp-*, VS Code's --vscode-*) with light or dark fallbacks (the tbnb-dark
// class); plotly's text and hover colours are read from the Board's computed style, so the
// charts are redrawn when the theme changes.

const DARK_CLASS = "tbnb-dark";

/** The CSS of the dark theme's fallbacks (style.js adds it to the Board's one style element). */
export const DARK_CSS = `
.tbnb.${DARK_CLASS}{--tbnb-border:var(--jp-border-color2,var(--vscode-panel-border,#3c3c3c));
--tbnb-fg:var(--jp-ui-font-color1,var(--vscode-editor-foreground,#e0e0e0));
--tbnb-fg2:var(--jp-ui-font-color2,var(--vscode-descriptionForeground,#a8a8a8));
--tbnb-bg:var(--jp-layout-color1,var(--vscode-editor-background,#1e1e1e));
--tbnb-bg2:var(--jp-layout-color2,var(--vscode-sideBar-background,#2a2a2a));--tbnb-hover:rgba(255,255,255,.08);color-scheme:dark}
.tbnb.${DARK_CLASS} .tbnb-banner{background:#4a1c1c;color:#ffcdd2}
.tbnb.${DARK_CLASS} .tbnb-input.tbnb-invalid{background:#4a1c1c}
.tbnb.${DARK_CLASS} .tbnb-problems,.tbnb.${DARK_CLASS} .tbnb-problem-list{color:#ffcc80}
.tbnb.${DARK_CLASS} .tbnb-card-sub.tbnb-error{color:#ef9a9a}
`;

/** "r, g, b[, a]" of a CSS colour (rgb()/rgba() as computed styles give them), or null. */
export function parseRgb(color) {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+%?))?\s*\)$/.exec(String(color || "").trim());
  if (!m) return null;
  let a = m[4] === undefined ? 1 : parseFloat(m[4]);
  if (m[4] && m[4].endsWith("%")) a /= 100;
  return { r: Number(m[1]), g: Number(m[2]), b: Number(m[3]), a };
}

/** Whether a colour is dark: relative luminance (sRGB, WCAG's formula) below 0.4. */
export function isDarkColor(color) {
  const c = parseRgb(color);
  if (!c) return null;
  const lin = (v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b) < 0.4;
}

/**
 * Whether the host's theme is dark, from what the host says (`hints`: the body's
 * data-jp-theme-light and class, the html element's theme attribute), else from `background`
 * (the first opaque background above the Board), else from `prefersDark`.
 */
export function themeIsDark({ jpLight, bodyClass = "", htmlTheme, background, prefersDark = false }) {
  if (jpLight === "true") return false;
  if (jpLight === "false") return true;
  const classes = String(bodyClass).split(/\s+/);
  if (classes.includes("vscode-high-contrast-light") || classes.includes("vscode-light")) return false;
  if (classes.includes("vscode-dark") || classes.includes("vscode-high-contrast")) return true;
  if (htmlTheme === "dark") return true;
  if (htmlTheme === "light") return false;
  const fromBackground = background ? isDarkColor(background) : null;
  return fromBackground === null ? Boolean(prefersDark) : fromBackground;
}

/** The first opaque background colour from `el`'s parent up (null when all are transparent). */
function hostBackground(el) {
  const view = el.ownerDocument.defaultView;
  for (let node = el.parentElement; node; node = node.parentElement) {
    const c = parseRgb(view.getComputedStyle(node).backgroundColor);
    if (c && c.a > 0.5) return `rgb(${c.r}, ${c.g}, ${c.b})`;
  }
  return null;
}

function darkQuery(view) {
  return view && view.matchMedia ? view.matchMedia("(prefers-color-scheme: dark)") : null;
}

/** What the page says now about its theme. */
function readHost(root) {
  const doc = root.ownerDocument;
  const body = doc.body || doc.documentElement;
  const query = darkQuery(doc.defaultView);
  return {
    jpLight: body.dataset ? body.dataset.jpThemeLight : undefined,
    bodyClass: body.className,
    htmlTheme: doc.documentElement.getAttribute("theme"),
    background: hostBackground(root),
    prefersDark: Boolean(query && query.matches),
  };
}

/**
 * Keep `board` in the host's theme: the tbnb-dark class on its root now and whenever the host
 * switches (attributes of <html> and <body>, the colour-scheme query), and its charts redrawn
 * with the new colours. JupyterLab sets its attributes as it loads the new theme's CSS, so the
 * colours are read again a little later too (style.js carries DARK_CSS). Returns a function
 * that stops watching.
 */
export function watchTheme(board) {
  const root = board.root;
  const doc = root.ownerDocument;
  let last = null;
  let timers = [];
  const apply = () => {
    if (board.destroyed) return;
    const dark = themeIsDark(readHost(root));
    root.classList.toggle(DARK_CLASS, dark);
    board.themeColors = null; // read again from the computed style (board.colors)
    const colors = root.isConnected ? JSON.stringify(board.colors) : null;
    if (colors === last) return;
    last = colors;
    for (const card of board.cards ? board.cards.all() : []) if (card.drawn || card.needsDraw) card.redraw();
  };
  const soon = () => {
    for (const t of timers) clearTimeout(t);
    timers = [0, 300, 1200].map((delay) => setTimeout(apply, delay));
  };
  const observer = new MutationObserver(soon);
  const watched = { attributes: true, attributeFilter: ["class", "data-jp-theme-light", "data-jp-theme-name", "theme", "style"] };
  observer.observe(doc.documentElement, watched);
  if (doc.body) observer.observe(doc.body, watched);
  const query = darkQuery(doc.defaultView);
  if (query && query.addEventListener) query.addEventListener("change", soon);
  soon();
  return () => {
    observer.disconnect();
    if (query && query.removeEventListener) query.removeEventListener("change", soon);
    for (const t of timers) clearTimeout(t);
  };
}
