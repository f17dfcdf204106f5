// Installed dashboards (the kernel's entry point group `tbnb.dashboards`): the page asks the
// kernel for their code once (the `plugins` request; protocol.md, "Installed dashboards"), runs
// each as an ES module from a Blob URL (as anywidget runs `_esm`: no CDN, no network), calls its
// default export with the API (api.js) and registers the description it returns as a dashboard.
// A module that fails is reported in the banner, naming its package; the others still load.

import { API, API_VERSION } from "../api.js";
import { registerDashboard } from "./layout.js";

const decoder = new TextDecoder();

/** The text of a buffer (DataView, typed array or ArrayBuffer). */
function text(buffer) {
  if (buffer instanceof ArrayBuffer) return decoder.decode(new Uint8Array(buffer));
  return decoder.decode(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
}

/** Import ES module source text through a Blob URL (revoked once run). */
async function importText(source) {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  try {
    return await import(/* webpackIgnore: true */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The dashboard a plugin's module describes: its default export called with the API. */
export function describe(module, entry) {
  const make = module && (module.default ?? module.dashboard);
  const dashboard = typeof make === "function" ? make(API) : make;
  if (!dashboard || typeof dashboard !== "object") throw new Error("its module's default export is not a function returning a dashboard");
  if (dashboard.id !== entry.name) throw new Error(`its dashboard's id is ${JSON.stringify(dashboard.id)}, not its entry point's name ${JSON.stringify(entry.name)}`);
  return dashboard;
}

/**
 * Load the installed dashboards of a `plugins` reply and register them. Returns the ids
 * registered; `onError(text)` is called once per plugin that could not be.
 */
export async function registerPlugins(msg, buffers, onError) {
  if (!msg || msg.api !== API_VERSION) {
    if (msg && Array.isArray(msg.dashboards) && msg.dashboards.length) onError(`installed dashboards use API ${msg.api}, this page ${API_VERSION}`);
    return [];
  }
  const ids = [];
  for (const entry of Array.isArray(msg.dashboards) ? msg.dashboards : []) {
    const who = `the dashboard ${JSON.stringify(String(entry.name))} of package ${String(entry.package)} ${String(entry.version)}`;
    try {
      const module = await importText(text(buffers[entry.buffer]));
      registerDashboard(describe(module, entry));
      ids.push(entry.name);
    } catch (error) {
      onError(`${who} was skipped: ${error && error.message ? error.message : error}`);
    }
  }
  return ids;
}

/** Ask the kernel for its installed dashboards (once per Board), register them, then `done(ids)`. */
export function loadPlugins(board, done) {
  board.router.enqueue(
    { type: "plugins" },
    {
      key: "plugins",
      priority: () => 20,
      onReply: (msg, buffers) => {
        registerPlugins(msg, buffers, (text) => board.banner(text)).then((ids) => {
          if (!board.destroyed && ids.length) done(ids);
        });
      },
      onError: () => {}, // a kernel without the request (an older tbnb): no installed dashboards
    },
  );
}
