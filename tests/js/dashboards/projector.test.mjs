// The projector's pure logic: colours and legends from metadata columns, labels, lasso geometry,
// the camera matrices of the WebGL renderer, and the `fills` layout of an area-filling dashboard.
import test from "node:test";
import assert from "node:assert/strict";
import { CATEGORY, MAX_CATEGORIES, gradientAt, insidePolygon, nearestPoint, pointColors, pointLabel, pointsInPolygon } from "../../../js/src/dashboards/projector/projector_colors.js";
import { FlatCamera, lookAt, multiply, normalizePositions, perspective, toScreen } from "../../../js/src/dashboards/projector/projector_camera.js";
import { MOTION_POINTS, sampleStride } from "../../../js/src/dashboards/projector/projector_gl.js";
import { rgba } from "../../../js/src/dashboards/projector/projector_shaders.js";
import { applyBookmark } from "../../../js/src/dashboards/projector/projector_panel.js";
import { emptyMessage, layoutItems } from "../../../js/src/core/layout.js";

const hex = (rgb, i) => "#" + [0, 1, 2].map((j) => rgb[3 * i + j].toString(16).padStart(2, "0")).join("");

test("a categorical column colours by the category palette and lists values with counts", () => {
  const column = { name: "kind", kind: "category", values: ["bird", "cat"], codes: [1, 0, 1, -1] };
  const { rgb, legend } = pointColors(4, column);
  assert.equal(hex(rgb, 0), CATEGORY[1]);
  assert.equal(hex(rgb, 1), CATEGORY[0]);
  assert.equal(hex(rgb, 3), "#bdbdbd"); // missing
  assert.deepEqual(legend, { kind: "category", title: "kind", items: [
    { value: "bird", color: CATEGORY[0], count: 1 }, { value: "cat", color: CATEGORY[1], count: 2 }] });
});

test("more than 50 categories, or a numeric column, use the gradient", () => {
  const values = Array.from({ length: MAX_CATEGORIES + 1 }, (_, i) => `v${i}`);
  const many = pointColors(2, { name: "id", kind: "category", values, codes: [0, MAX_CATEGORIES] });
  assert.equal(many.legend.kind, "gradient");
  assert.equal(hex(many.rgb, 0), "#ffffdd");
  assert.equal(hex(many.rgb, 1), "#1f2d86");
  const num = pointColors(3, { name: "score", kind: "number", data: Float64Array.from([2, NaN, 4]) });
  assert.deepEqual([num.legend.kind, num.legend.min, num.legend.max], ["gradient", 2, 4]);
  assert.equal(hex(num.rgb, 2), "#1f2d86");
  assert.equal(hex(num.rgb, 1), "#bdbdbd");
  assert.deepEqual(gradientAt(0.5), [143, 150, 178]);
});

test("labels are the column's text, the row number without metadata", () => {
  const column = { name: "n", kind: "category", values: ["<b>x</b>"], codes: [0, -1] };
  assert.deepEqual([0, 1].map(pointLabel(column)), ["<b>x</b>", ""]);
  assert.deepEqual([0, 1].map(pointLabel(null)), ["0", "1"]);
});

test("lasso and nearest point in screen space", () => {
  const square = [[0, 0], [10, 0], [10, 10], [0, 10]];
  assert.ok(insidePolygon(5, 5, square) && !insidePolygon(11, 5, square));
  const xy = Float32Array.from([1, 1, 20, 20, 9, 9, -1e9, -1e9]);
  assert.deepEqual(pointsInPolygon(xy, square), [0, 2]);
  assert.equal(nearestPoint(xy, 19, 19, 3), 1);
  assert.equal(nearestPoint(xy, 50, 50, 3), -1);
});

test("the camera maps its target to the centre of the screen", () => {
  const m = multiply(perspective(0.8, 1, 0.01, 100), lookAt([0, 0, 3], [0, 0, 0], [0, 1, 0]));
  const w = m[15];
  assert.ok(Math.abs(m[12] / w) < 1e-6 && Math.abs(m[13] / w) < 1e-6);
  // a point right of the target lands right of the centre
  const x = 0.5;
  assert.ok((m[0] * x + m[12]) / (m[3] * x + m[15]) > 0);
});

test("the flat (2D) camera keeps equal scales, pans by pixels and zooms about its centre", () => {
  const cam = new FlatCamera(() => [800, 400]);
  let m = cam.matrix(2);
  // equal scales: a unit step in x and in y cover the same number of pixels on an 800 x 400 view
  const [cx, cy] = toScreen(m, 0, 0, 0, 800, 400);
  const [x1] = toScreen(m, 0.5, 0, 0, 800, 400);
  const [, y1] = toScreen(m, 0, 0.5, 0, 800, 400);
  assert.ok(Math.abs(cx - 400) < 1e-6 && Math.abs(cy - 200) < 1e-6);
  assert.ok(Math.abs((x1 - cx) - (cy - y1)) < 1e-4);
  // dragging 10 px right moves what is under the mouse 10 px right
  cam.pan(10, -20);
  m = cam.matrix(2);
  const [px, py] = toScreen(m, 0, 0, 0, 800, 400);
  assert.ok(Math.abs(px - 410) < 1e-3 && Math.abs(py - 180) < 1e-3);
  const before = x1 - cx;
  cam.zoom(0.5);
  m = cam.matrix(2);
  const [a] = toScreen(m, 0, 0, 0, 800, 400);
  const [b] = toScreen(m, 0.5, 0, 0, 800, 400);
  assert.ok(Math.abs((b - a) - 2 * before) < 1e-3);
  // a tall view: the shorter side (the width) spans the same extent as the height did above
  const tall = new FlatCamera(() => [400, 800]);
  const [l] = toScreen(tall.matrix(0.5), -1, 0, 0, 400, 800);
  const [r] = toScreen(tall.matrix(0.5), 1, 0, 0, 400, 800);
  assert.ok(l > 0 && r < 400 && Math.abs((r - l) - 400 / 1.1) < 1e-3);
});

test("a moving camera draws a regular sample of a large cloud, every point at rest", () => {
  assert.equal(sampleStride(100000, false), 1);
  assert.equal(sampleStride(MOTION_POINTS, true), 1);
  assert.equal(sampleStride(100000, true), Math.ceil(100000 / MOTION_POINTS));
  // WebGL's stride limit (255 bytes) caps the sample of very large clouds
  assert.ok(sampleStride(1000000, true) * 12 <= 255);
});

test("a bookmark sets the traits it names, the selection last", () => {
  const calls = [];
  const board = { setTrait: (name, value) => calls.push([name, value]) };
  applyBookmark(board, { label: "b", method: "pca", dims: 2, params: { components: [1, 0] }, selection: [3, 4], color_by: null, label_by: "name" });
  assert.deepEqual(calls, [["projector_method", "pca"], ["projector_params", { components: [1, 0] }], ["projector_dims", 2],
    ["projector_label_by", "name"], ["projector_search", ""], ["projector_selection", [3, 4]]]);
  calls.length = 0;
  applyBookmark(board, { label: "empty", method: null, dims: null, params: {}, selection: null, color_by: null, label_by: null });
  assert.deepEqual(calls, []);
});

test("positions are centred on their mean and scaled into [-1, 1]; colours become opaque RGBA", () => {
  const out = normalizePositions(Float32Array.from([0, 0, 2, 0, 4, 6]), 3, 2);
  assert.deepEqual(Array.from(out), [-0.5, -0.5, 0, 0, -0.5, 0, 0.5, 1, 0]);
  assert.deepEqual(Array.from(normalizePositions(Float32Array.from([1, 1, 1]), 1, 3)), [0, 0, 0]);
  assert.deepEqual(Array.from(rgba(Uint8Array.from([1, 2, 3, 250, 251, 252]))), [1, 2, 3, 255, 250, 251, 252, 255]);
});

test("an area-filling dashboard has one card of each kind, whatever the tags, and no empty message", () => {
  const layout = layoutItems({ dashboard: "projector", cardTypes: [], tags: new Map(), shown: new Set() });
  assert.deepEqual(layout.groups.map((g) => g.items), [[{ kind: "projector", tag: "", run: null, rowStart: false }]]);
  assert.equal(emptyMessage(layout, { tags: new Map(), filter: "" }), null);
});
