// A small WebGL point renderer for the projector's 3D view: plotly's scatter3d slows badly past
// ~10-50k points, this draws 100,000+ as one gl.POINTS call. One vertex buffer (positions and
// colours), a round point-size shader, an orbit camera (drag: rotate, shift/right drag: pan,
// wheel: zoom) and picking done on the CPU: every point projected to the screen once per camera
// move, then the nearest within a few pixels (mat4 helpers are at the bottom).

import { nearestPoint } from "./projector_colors.js";

const VERTEX = `
attribute vec3 aPos;
attribute vec3 aColor;
uniform mat4 uMatrix;
uniform float uSize;
uniform float uDim;
varying vec3 vColor;
varying float vAlpha;
void main() {
  gl_Position = uMatrix * vec4(aPos, 1.0);
  gl_PointSize = uSize;
  vColor = aColor;
  vAlpha = uDim;
}`;

const FRAGMENT = `
precision mediump float;
varying vec3 vColor;
varying float vAlpha;
uniform float uRing;
void main() {
  vec2 d = gl_PointCoord - vec2(0.5);
  float r = dot(d, d);
  if (r > 0.25) discard;
  vec3 color = (uRing > 0.5 && r > 0.12) ? vec3(0.1, 0.1, 0.1) : vColor;
  gl_FragColor = vec4(color, vAlpha);
}`;

function compile(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader) || "shader error");
  return shader;
}

/** The WebGL context of a canvas, or null (no WebGL in this browser, e.g. GPU and software GL off). */
export function webglContext(canvas) {
  try {
    return canvas.getContext("webgl", { antialias: false, preserveDrawingBuffer: true, alpha: false }) || null;
  } catch {
    return null;
  }
}

export class PointCloud {
  /** @param canvas a <canvas>; @param gl its context (webglContext); @param hooks {onCamera, onClick, onHover} */
  constructor(canvas, gl, hooks = {}) {
    this.canvas = canvas;
    this.gl = gl;
    this.hooks = hooks;
    this.n = 0;
    this.selected = 0;
    this.camera = { theta: 0.6, phi: 0.4, distance: 3.2, target: [0, 0, 0] };
    this.frame = null;
    this.screen = null; // Float32Array n*2 of CSS pixels, for the current camera
    this.positions = null;
    const program = gl.createProgram();
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program) || "link error");
    this.program = program;
    this.loc = {
      pos: gl.getAttribLocation(program, "aPos"),
      color: gl.getAttribLocation(program, "aColor"),
      matrix: gl.getUniformLocation(program, "uMatrix"),
      size: gl.getUniformLocation(program, "uSize"),
      dim: gl.getUniformLocation(program, "uDim"),
      ring: gl.getUniformLocation(program, "uRing"),
    };
    this.buffers = { pos: gl.createBuffer(), color: gl.createBuffer(), selPos: gl.createBuffer(), selColor: gl.createBuffer() };
    this.listen();
  }

  /** positions: Float32Array n*3 within about [-1, 1]; colors: Uint8Array n*3. */
  setPoints(positions, colors) {
    const gl = this.gl;
    this.n = positions.length / 3;
    this.positions = positions;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers.pos);
    gl.bufferData(gl.ARRAY_BUFFER, positions, gl.STATIC_DRAW);
    this.setColors(colors);
    this.screen = null;
  }

  setColors(colors) {
    const gl = this.gl;
    this.colors = colors;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers.color);
    gl.bufferData(gl.ARRAY_BUFFER, colors, gl.STATIC_DRAW);
    this.requestDraw();
  }

  /** Draw the rows in `indices` larger, ringed, on top; the others dimmed. */
  setSelection(indices) {
    const gl = this.gl;
    const pos = new Float32Array(indices.length * 3);
    const col = new Uint8Array(indices.length * 3);
    indices.forEach((row, k) => {
      for (let j = 0; j < 3; j++) {
        pos[3 * k + j] = this.positions[3 * row + j];
        col[3 * k + j] = this.colors[3 * row + j];
      }
    });
    this.selected = indices.length;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers.selPos);
    gl.bufferData(gl.ARRAY_BUFFER, pos, gl.STATIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers.selColor);
    gl.bufferData(gl.ARRAY_BUFFER, col, gl.STATIC_DRAW);
    this.requestDraw();
  }

  pointSize() {
    const ratio = globalThis.devicePixelRatio || 1;
    return (this.n > 50000 ? 2 : this.n > 10000 ? 3 : 5) * ratio;
  }

  matrix() {
    const { width, height } = this.canvas;
    const c = this.camera;
    const eye = [
      c.target[0] + c.distance * Math.cos(c.phi) * Math.sin(c.theta),
      c.target[1] + c.distance * Math.sin(c.phi),
      c.target[2] + c.distance * Math.cos(c.phi) * Math.cos(c.theta),
    ];
    return multiply(perspective(0.8, width / Math.max(1, height), 0.01, 100), lookAt(eye, c.target, [0, 1, 0]));
  }

  requestDraw() {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.draw();
    });
  }

  /** Draw now (the benchmark calls it directly and waits with gl.finish()). */
  draw() {
    const gl = this.gl;
    const ratio = globalThis.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * ratio));
    const h = Math.max(1, Math.round(this.canvas.clientHeight * ratio));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    gl.viewport(0, 0, w, h);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    // Blending only to dim the unselected points: without a selection every point is opaque, and
    // software GL (no GPU) draws opaque points markedly faster.
    if (this.selected) {
      gl.enable(gl.BLEND);
      gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    } else gl.disable(gl.BLEND);
    gl.useProgram(this.program);
    gl.uniformMatrix4fv(this.loc.matrix, false, this.matrix());
    const pass = (pos, color, count, size, dim, ring) => {
      if (!count) return;
      gl.bindBuffer(gl.ARRAY_BUFFER, pos);
      gl.enableVertexAttribArray(this.loc.pos);
      gl.vertexAttribPointer(this.loc.pos, 3, gl.FLOAT, false, 0, 0);
      gl.bindBuffer(gl.ARRAY_BUFFER, color);
      gl.enableVertexAttribArray(this.loc.color);
      gl.vertexAttribPointer(this.loc.color, 3, gl.UNSIGNED_BYTE, true, 0, 0);
      gl.uniform1f(this.loc.size, size);
      gl.uniform1f(this.loc.dim, dim);
      gl.uniform1f(this.loc.ring, ring);
      gl.drawArrays(gl.POINTS, 0, count);
    };
    pass(this.buffers.pos, this.buffers.color, this.n, this.pointSize(), this.selected ? 0.25 : 1, 0);
    pass(this.buffers.selPos, this.buffers.selColor, this.selected, Math.max(8 * ratio, this.pointSize() * 2.5), 1, 1);
  }

  /** Every point's CSS-pixel position for the current camera (points behind the eye: -1e9). */
  screenPositions() {
    if (this.screen) return this.screen;
    const m = this.matrix();
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    const out = new Float32Array(this.n * 2);
    const p = this.positions;
    for (let i = 0; i < this.n; i++) {
      const x = p[3 * i];
      const y = p[3 * i + 1];
      const z = p[3 * i + 2];
      const cw = m[3] * x + m[7] * y + m[11] * z + m[15];
      if (cw <= 0) {
        out[2 * i] = out[2 * i + 1] = -1e9;
        continue;
      }
      out[2 * i] = (((m[0] * x + m[4] * y + m[8] * z + m[12]) / cw + 1) / 2) * w;
      out[2 * i + 1] = ((1 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / cw) / 2) * h;
    }
    this.screen = out;
    return out;
  }

  cameraMoved() {
    this.screen = null;
    this.requestDraw();
    if (this.hooks.onCamera) this.hooks.onCamera();
  }

  /** Rotate by (dx, dy) pixels of drag (the benchmark moves the camera through this too). */
  rotate(dx, dy) {
    this.camera.theta -= dx * 0.008;
    this.camera.phi = Math.max(-1.5, Math.min(1.5, this.camera.phi + dy * 0.008));
    this.cameraMoved();
  }

  pan(dx, dy) {
    const c = this.camera;
    const s = c.distance * 0.0015;
    const right = [Math.cos(c.theta), 0, -Math.sin(c.theta)];
    c.target = [c.target[0] - right[0] * dx * s, c.target[1] + dy * s, c.target[2] - right[2] * dx * s];
    this.cameraMoved();
  }

  zoom(factor) {
    this.camera.distance = Math.max(0.05, Math.min(50, this.camera.distance * factor));
    this.cameraMoved();
  }

  listen() {
    const canvas = this.canvas;
    let drag = null;
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    canvas.addEventListener("pointerdown", (e) => {
      if (this.hooks.selecting && this.hooks.selecting()) return;
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey, moved: 0 };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (!drag) {
        if (this.hooks.onHover) this.hooks.onHover(this.pick(e), e);
        return;
      }
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      drag.moved += Math.abs(dx) + Math.abs(dy);
      drag.x = e.clientX;
      drag.y = e.clientY;
      if (drag.pan) this.pan(dx, dy);
      else this.rotate(dx, dy);
    });
    canvas.addEventListener("pointerup", (e) => {
      const click = drag && drag.moved < 4;
      drag = null;
      if (click && this.hooks.onClick) this.hooks.onClick(this.pick(e), e);
    });
    canvas.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        this.zoom(Math.exp(e.deltaY * 0.001));
      },
      { passive: false },
    );
  }

  /** The row under the mouse event (within 6 px), or -1. */
  pick(e) {
    const rect = this.canvas.getBoundingClientRect();
    return nearestPoint(this.screenPositions(), e.clientX - rect.left, e.clientY - rect.top, 6);
  }

  destroy() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    const ext = this.gl.getExtension("WEBGL_lose_context");
    if (ext) ext.loseContext();
  }
}

// Column-major 4x4 matrices, as WebGL takes them.
export function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2);
  const nf = 1 / (near - far);
  return new Float32Array([f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0]);
}

export function lookAt(eye, target, up) {
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const norm = (v) => {
    const l = Math.hypot(v[0], v[1], v[2]) || 1;
    return [v[0] / l, v[1] / l, v[2] / l];
  };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = norm(sub(eye, target));
  const x = norm(cross(up, z));
  const y = cross(z, x);
  return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
}

export function multiply(a, b) {
  const out = new Float32Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = s;
    }
  }
  return out;
}
