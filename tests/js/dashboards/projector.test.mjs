// The projector's pure logic: colours and legends from metadata columns, labels, lasso geometry,
// the camera matrices of the WebGL renderer, and the `fills` layout of an area-filling dashboard.
import test from "node:test";
import assert from "node:assert/strict";
import { CATEGORY, MAX_CATEGORIES, gradientAt, insidePolygon, nearestPoint, pointColors, pointLabels, pointsInPolygon } from "../../../js/src/dashboards/projector_colors.js";
import { lookAt, multiply, perspective } from "../../../js/src/dashboards/projector_gl.js";
import { emptyMessage, layoutItems } from "../../../js/src/layout.js";

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
  assert.deepEqual(pointLabels(2, column), ["<b>x</b>", ""]);
  assert.deepEqual(pointLabels(2, null), ["0", "1"]);
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

test("an area-filling dashboard has one card of each kind, whatever the tags, and no empty message", () => {
  const layout = layoutItems({ dashboard: "projector", cardTypes: [], tags: new Map(), shown: new Set() });
  assert.deepEqual(layout.groups.map((g) => g.items), [[{ kind: "projector", tag: "", run: null, rowStart: false }]]);
  assert.equal(emptyMessage(layout, { tags: new Map(), filter: "" }), null);
});
