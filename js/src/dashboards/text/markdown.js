// marked and DOMPurify, once per page: the bundle carries them gzipped (build.mjs); the first
// text card that needs them unpacks the script, runs it from a Blob URL (as plotly.js is run)
// and every Board on the page shares the result, kept on globalThis. Offline: nothing is
// fetched from anywhere.

const KEY = "__tbnb_markdown_libs__";
const PENDING = "__tbnb_markdown_libs_pending__";

async function unpack() {
  // Imported when first needed (the bundle inlines it: no chunk is fetched), so that modules
  // importing this one, the text dashboard's, load in node's test runner too, where only
  // esbuild's plugin could resolve this name.
  const { LIBS } = await import("tbnb:markdown-libs");
  const bytes = Uint8Array.from(atob(LIBS), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = await new Response(stream).text();
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  try {
    await new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.onload = () => {
        script.remove();
        resolve();
      };
      script.onerror = () => {
        script.remove();
        reject(new Error("the Markdown renderer could not be started"));
      };
      script.src = url;
      document.head.appendChild(script);
    });
  } finally {
    URL.revokeObjectURL(url);
  }
  if (!globalThis[KEY]) throw new Error("the Markdown renderer did not start");
  return globalThis[KEY];
}

/** Resolves with {Marked, createDOMPurify}. */
export function loadMarkdownLibs() {
  if (globalThis[KEY]) return Promise.resolve(globalThis[KEY]);
  if (!globalThis[PENDING]) {
    const pending = unpack();
    globalThis[PENDING] = pending;
    pending.catch(() => {
      if (globalThis[PENDING] === pending) delete globalThis[PENDING]; // the next card tries again
    });
  }
  return globalThis[PENDING];
}

/** The libraries if they are loaded already (else null). */
export function markdownLibs() {
  return globalThis[KEY] || null;
}
