// A mesh step as plotly traces (protocol.md, `mesh`): a `mesh3d` when the step has faces, a
// point cloud (`scatter3d` markers) when it has none; vertex colours when written, else the run's
// colour. The writer's config is three.js's (camera, lights, material): the parts plotly can show
// are mapped here (orthographic or perspective projection, the camera's position and up vector,
// opacity, colour, flat shading, ambient light, roughness). Pure functions: no DOM.

import { toNumbers } from "../../core/codec.js";

/** The columns x, y, z of an [N, 3] array given flat (row-major). */
export function columns(flat, n) {
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = Number(flat[3 * i]);
    y[i] = Number(flat[3 * i + 1]);
    z[i] = Number(flat[3 * i + 2]);
  }
  return { x, y, z };
}

/** Per-vertex CSS colours from uint8 RGB triples. */
export function vertexColors(colors, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = `rgb(${colors[3 * i]},${colors[3 * i + 1]},${colors[3 * i + 2]})`;
  return out;
}

/** A three.js colour (number 0xRRGGBB or "#rrggbb") as CSS, or null. */
function cssColor(value) {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 0xffffff)
    return `#${value.toString(16).padStart(6, "0")}`;
  if (typeof value === "string" && /^#[0-9a-fA-F]{6}$/.test(value)) return value;
  return null;
}

const isNumber = (v) => typeof v === "number" && Number.isFinite(v);
const isTriple = (v) => Array.isArray(v) && v.length === 3 && v.every(isNumber);

/**
 * The plotly scene camera the config asks for, or null when it asks nothing plotly can do.
 * three.js places its camera in data units; plotly's eye is relative to the scene's box, so a
 * position is scaled to keep its direction at plotly's default distance.
 */
export function sceneCamera(config) {
  const cam = config && typeof config === "object" ? config.camera : null;
  if (!cam || typeof cam !== "object") return null;
  const out = {};
  if (cam.cls === "OrthographicCamera") out.projection = { type: "orthographic" };
  else if (cam.cls === "PerspectiveCamera") out.projection = { type: "perspective" };
  if (isTriple(cam.position)) {
    const [x, y, z] = cam.position;
    const length = Math.hypot(x, y, z);
    if (length > 0) {
      const scale = Math.hypot(1.25, 1.25, 1.25) / length;
      out.eye = { x: x * scale, y: y * scale, z: z * scale };
    }
  }
  if (isTriple(cam.up)) out.up = { x: cam.up[0], y: cam.up[1], z: cam.up[2] };
  return Object.keys(out).length ? out : null;
}

/** Trace settings from the config's material and lights (those plotly has). */
export function materialSettings(config) {
  const mat = config && typeof config === "object" && config.material && typeof config.material === "object" ? config.material : {};
  const lights = config && Array.isArray(config.lights) ? config.lights : [];
  const out = { lighting: {} };
  if (isNumber(mat.opacity) && mat.opacity >= 0 && mat.opacity <= 1) out.opacity = mat.opacity;
  const color = cssColor(mat.color);
  if (color) out.color = color;
  if (typeof mat.flatShading === "boolean") out.flatshading = mat.flatShading;
  if (isNumber(mat.roughness)) out.lighting.roughness = Math.min(1, Math.max(0, mat.roughness));
  const ambient = lights.find((l) => l && l.cls === "AmbientLight" && isNumber(l.intensity));
  if (ambient) out.lighting.ambient = Math.min(1, Math.max(0, ambient.intensity));
  if (!Object.keys(out.lighting).length) delete out.lighting;
  return out;
}

/**
 * One run's step as a plotly trace: {type: "mesh3d", x, y, z, i, j, k, vertexcolor | color} or
 * {type: "scatter3d", mode: "markers", ...}. `entry` is the reply's run entry (decoded arrays);
 * `color` the run's colour; `name` its (escaped) name.
 */
export function meshTrace(entry, color, name = "") {
  const n = entry.vertices ? Math.floor(entry.vertices.length / 3) : 0;
  const { x, y, z } = columns(entry.vertices || [], n);
  const colors = entry.colors && entry.colors.length === 3 * n ? vertexColors(entry.colors, n) : null;
  const material = materialSettings(entry.config);
  if (entry.faces) {
    const faces = toNumbers(entry.faces);
    const f = Math.floor(faces.length / 3);
    const i = new Int32Array(f);
    const j = new Int32Array(f);
    const k = new Int32Array(f);
    for (let t = 0; t < f; t++) {
      i[t] = faces[3 * t];
      j[t] = faces[3 * t + 1];
      k[t] = faces[3 * t + 2];
    }
    const trace = { type: "mesh3d", name, x, y, z, i, j, k, hoverinfo: "x+y+z", ...material };
    if (colors) {
      trace.vertexcolor = colors;
      delete trace.color;
    } else if (!trace.color) trace.color = color;
    return trace;
  }
  const marker = { size: 2.5, color: colors || material.color || color };
  if (material.opacity !== undefined) marker.opacity = material.opacity;
  return { type: "scatter3d", mode: "markers", name, x, y, z, marker, hoverinfo: "x+y+z" };
}

/** The union of the runs' steps, ascending: the slider's stops. */
export function unionSteps(entries) {
  const all = new Set();
  for (const e of entries) for (const s of toNumbers(e.steps)) all.add(s);
  return [...all].sort((a, b) => a - b);
}
