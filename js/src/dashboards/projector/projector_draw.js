// The projector's drawing beside the WebGL renderer: the view without WebGL (plotly's scattergl,
// clicks and lasso/box selections written to `projector_selection`) and the WebGL view's lasso. Functions of
// the view (projector_view.js), which holds the state; labels go to plotly escaped (text only).

import { h } from "../../dom.js";
import { escapePlotly } from "../../format.js";
import { pointsInPolygon } from "./projector_colors.js";

/** Selected points labelled on the plot (2D and 3D). */
export const LABELLED = 50;

/** The sprite atlas, asked once per embedding and decoded by the browser, then drawn by the view's cloud. */
export function loadSprite(view) {
  const info = view.meta && view.meta.sprite;
  if (!info || !view.cloud) return;
  const { run, name } = view.target;
  const show = (image) => {
    try {
      view.cloud.setSprite(image, info.single_image_dim);
    } catch (error) {
      view.setStatus(`${view.status} (the sprites cannot be drawn: ${error.message})`);
    }
  };
  if (view.sprite && view.sprite.run === run && view.sprite.name === name) {
    if (view.sprite.image) show(view.sprite.image);
    return;
  }
  view.sprite = { run, name, image: null };
  const mine = view.sprite;
  view.request("sprite", { type: "projector_sprite", run, embedding: name }, async (msg, buffers) => {
    const bytes = buffers[0];
    const png = bytes.byteLength > 4 && new Uint8Array(bytes.buffer || bytes, bytes.byteOffset || 0, 4)[1] === 0x50;
    try {
      mine.image = await createImageBitmap(new Blob([bytes], { type: png ? "image/png" : "image/jpeg" }));
    } catch {
      view.setStatus(`${view.status} (the sprite image could not be decoded)`);
      return;
    }
    if (view.sprite === mine && view.cloud) show(mine.image);
  });
}

export function listenLasso(view, canvas) {
  let path = null;
  const ctx = () => view.lassoCanvas.getContext("2d");
  canvas.addEventListener("pointerdown", (e) => {
    if (!view.lasso) return;
    const r = canvas.getBoundingClientRect();
    view.lassoCanvas.width = r.width;
    view.lassoCanvas.height = r.height;
    path = [[e.clientX - r.left, e.clientY - r.top]];
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!path) return;
    const r = canvas.getBoundingClientRect();
    path.push([e.clientX - r.left, e.clientY - r.top]);
    const c = ctx();
    c.clearRect(0, 0, r.width, r.height);
    c.strokeStyle = "#f57c00";
    c.beginPath();
    path.forEach(([x, y], k) => (k ? c.lineTo(x, y) : c.moveTo(x, y)));
    c.closePath();
    c.stroke();
  });
  canvas.addEventListener("pointerup", () => {
    if (!path) return;
    const hit = pointsInPolygon(view.cloud.screenPositions(), path).map((k) => view.rowOf(k));
    path = null;
    ctx().clearRect(0, 0, view.lassoCanvas.width, view.lassoCanvas.height);
    view.board.setTrait("projector_selection", hit);
  });
}

export function draw2d(view, warning) {
  const Plotly = view.board.plotly;
  const { positions, n, dims } = view.points;
  if (view.view !== "plotly") {
    view.teardownView();
    view.plot2d = h("div", { style: { position: "absolute", inset: "0" }, dataset: { testid: "projector-plot" } });
    view.warn = h("div", { class: "tbnb-pj-warn" });
    view.plot.replaceChildren(view.plot2d, view.warn);
    view.view = "plotly";
    view.plotlyBound = false;
  }
  view.warn.textContent = warning || "";
  view.warn.style.display = warning ? "block" : "none";
  const rows = view.shownRows();
  const count = rows ? rows.length : n;
  const x = new Float32Array(count);
  const y = new Float32Array(count);
  const color = new Array(count);
  const text = new Array(count);
  const rgb = view.colors.rgb;
  for (let k = 0; k < count; k++) {
    const i = rows ? rows[k] : k;
    x[k] = positions[i * dims];
    y[k] = positions[i * dims + 1];
    color[k] = `rgb(${rgb[3 * i]},${rgb[3 * i + 1]},${rgb[3 * i + 2]})`;
    text[k] = escapePlotly(view.label(i));
  }
  view.rows2d = rows;
  const sel = view.selection();
  const size = n > 50000 ? 3 : n > 10000 ? 4 : 6;
  const traces = [
    { type: "scattergl", mode: "markers", x, y, text, hoverinfo: "text", marker: { color, size, opacity: sel.length ? 0.3 : 0.9 }, showlegend: false },
    { type: "scattergl", mode: sel.length <= LABELLED ? "markers+text" : "markers", x: sel.map((i) => positions[i * dims]), y: sel.map((i) => positions[i * dims + 1]),
      text: sel.map((i) => escapePlotly(view.label(i))), textposition: "top right", hoverinfo: "text",
      marker: { color: sel.map((i) => `rgb(${rgb[3 * i]},${rgb[3 * i + 1]},${rgb[3 * i + 2]})`), size: size + 6, line: { color: "#212121", width: 2 } }, showlegend: false },
  ];
  const layout = { margin: { l: 30, r: 10, t: 10, b: 30 }, dragmode: view.lasso ? "lasso" : "pan", uirevision: `${view.target.run}/${view.target.name}`, hovermode: "closest",
    xaxis: { zeroline: false }, yaxis: { zeroline: false, scaleanchor: "x" } };
  const started = performance.now();
  Plotly.react(view.plot2d, traces, layout, { displaylogo: false, responsive: true, scrollZoom: true });
  view.drawMs = performance.now() - started;
  if (!view.plotlyBound) {
    view.plotlyBound = true;
    const toRow = (p) => (view.rows2d ? view.rows2d[p.pointIndex] : p.pointIndex);
    view.plot2d.on("plotly_click", (e) => {
      const p = e && e.points && e.points.find((q) => q.curveNumber === 0);
      if (p) view.board.setTrait("projector_selection", [toRow(p)]);
    });
    view.plot2d.on("plotly_selected", (e) => {
      if (!e || !e.points) return;
      view.board.setTrait("projector_selection", e.points.filter((q) => q.curveNumber === 0).map(toRow));
    });
  }
}
