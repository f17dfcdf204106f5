// Mesh steps as plotly traces: mesh3d with faces, a point cloud without; vertex colours; the
// writer's three.js camera and material mapped to plotly's settings.
import test from "node:test";
import assert from "node:assert/strict";
import { materialSettings, meshTrace, sceneCamera, unionSteps, vertexColors } from "../../../js/src/dashboards/mesh/mesh_figure.js";

const VERTICES = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);

test("a step with faces is a mesh3d with i, j, k and vertex colours", () => {
  const entry = {
    vertices: VERTICES,
    faces: new BigInt64Array([0n, 1n, 2n, 0n, 2n, 3n]),
    colors: new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]),
    config: null,
  };
  const trace = meshTrace(entry, "#425066", "run");
  assert.equal(trace.type, "mesh3d");
  assert.deepEqual([...trace.x], [0, 1, 0, 0]);
  assert.deepEqual([...trace.y], [0, 0, 1, 0]);
  assert.deepEqual([...trace.z], [0, 0, 0, 1]);
  assert.deepEqual([...trace.i], [0, 0]);
  assert.deepEqual([...trace.j], [1, 2]);
  assert.deepEqual([...trace.k], [2, 3]);
  assert.deepEqual(trace.vertexcolor, ["rgb(255,0,0)", "rgb(0,255,0)", "rgb(0,0,255)", "rgb(10,20,30)"]);
  assert.equal(trace.color, undefined);
  const plain = meshTrace({ ...entry, colors: null }, "#425066");
  assert.equal(plain.color, "#425066");
  assert.equal(plain.vertexcolor, undefined);
});

test("a step without faces is a point cloud of markers", () => {
  const trace = meshTrace({ vertices: VERTICES, faces: null, colors: null, config: {} }, "#12b5cb");
  assert.equal(trace.type, "scatter3d");
  assert.equal(trace.mode, "markers");
  assert.equal(trace.marker.color, "#12b5cb");
  assert.equal(trace.x.length, 4);
  const painted = meshTrace({ vertices: VERTICES, faces: null, colors: new Uint8Array(12).fill(7), config: null }, "#000000");
  assert.deepEqual(painted.marker.color, vertexColors(new Uint8Array(12).fill(7), 4));
  assert.equal(painted.marker.color[0], "rgb(7,7,7)");
});

test("the config's camera and material, where plotly has them", () => {
  assert.equal(sceneCamera(null), null);
  assert.equal(sceneCamera({}), null);
  assert.deepEqual(sceneCamera({ camera: { cls: "PerspectiveCamera", fov: 75 } }), { projection: { type: "perspective" } });
  const cam = sceneCamera({ camera: { cls: "OrthographicCamera", position: [0, 0, 10], up: [0, 1, 0] } });
  assert.deepEqual(cam.projection, { type: "orthographic" });
  assert.equal(cam.eye.x, 0);
  assert.ok(Math.abs(cam.eye.z - Math.hypot(1.25, 1.25, 1.25)) < 1e-12);
  assert.deepEqual(cam.up, { x: 0, y: 1, z: 0 });
  const config = {
    material: { cls: "MeshStandardMaterial", opacity: 0.5, color: 0xff8800, roughness: 2, flatShading: true },
    lights: [{ cls: "AmbientLight", intensity: 0.75 }],
  };
  assert.deepEqual(materialSettings(config), {
    opacity: 0.5,
    color: "#ff8800",
    flatshading: true,
    lighting: { roughness: 1, ambient: 0.75 },
  });
  assert.deepEqual(materialSettings({ material: { opacity: "x", color: "red; background:url(x)" } }), {});
  const trace = meshTrace({ vertices: VERTICES, faces: new BigInt64Array([0n, 1n, 2n]), colors: null, config }, "#425066");
  assert.equal(trace.color, "#ff8800");
  assert.equal(trace.opacity, 0.5);
});

test("the slider's steps are every run's steps", () => {
  assert.deepEqual(unionSteps([{ steps: new BigInt64Array([0n, 4n]) }, { steps: new BigInt64Array([1n, 4n, 9n]) }]), [0, 1, 4, 9]);
});
