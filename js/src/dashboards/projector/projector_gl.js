// A small WebGL point renderer for the projector, 2D and 3D: plotly's scatter3d slows badly past
// ~10-50k points and scattergl pays per point in JavaScript; this draws 1,000,000 as one
// gl.POINTS call. Buffers (positions, colours, sprite indices) are uploaded when the points or
// colours change, never on a camera move, which only sets the matrix uniform and draws again, at
// most once per animation frame. While the camera moves, large clouds are drawn from a regular
// sample of their rows (every k-th, through the attribute stride: no extra buffer), and in full
// once it rests: software GL (no GPU) pays per point drawn. Picking is done on the CPU: the points
// projected to the screen once per camera position, on demand (hover, click, lasso), then the
// nearest within a few pixels. Sprites: each point drawn as its thumbnail from the atlas texture
// (shaders in projector_shaders.js).

import { FlatCamera, OrbitCamera, toScreen } from "./projector_camera.js";
import { nearestPoint } from "./projector_colors.js";
import { FRAGMENT, SPRITE_FRAGMENT, SPRITE_VERTEX, VERTEX, link, rgba } from "./projector_shaders.js";

/** Past this many points, a moving camera draws a regular sample of them. */
export const MOTION_POINTS = 25000;
/** The full cloud is drawn again once the camera has not moved for this long. */
export const SETTLE_MS = 180;
// WebGL caps a vertex attribute's stride at 255 bytes: 21 float positions (12 bytes each).
const MAX_STRIDE = 21;

/** The stride (every k-th row) a cloud of n points is drawn with: 1 at rest. */
export function sampleStride(n, moving) {
  return moving && n > MOTION_POINTS ? Math.min(MAX_STRIDE, Math.ceil(n / MOTION_POINTS)) : 1;
}

export class PointCloud {
  /**
   * @param canvas a <canvas>; @param gl its context (webglContext);
   * @param hooks {onCamera, onClick, onHover, selecting}; @param flat: 2D (orthographic, drag pans)
   */
  constructor(canvas, gl, hooks = {}, { flat = false } = {}) {
    this.canvas = canvas;
    this.gl = gl;
    this.hooks = hooks;
    this.flat = flat;
    this.n = 0;
    this.selected = 0;
    this.camera = flat ? new FlatCamera(() => [canvas.clientWidth, canvas.clientHeight]) : new OrbitCamera();
    this.frame = null;
    this.settle = null;
    this.moving = false;
    this.screen = null; // Float32Array n*2 of CSS pixels, for the current camera
    this.positions = null;
    this.sprite = null; // {texture, cols, cell: [w, h] as fractions of the atlas}
    this.dots = link(gl, VERTEX, FRAGMENT);
    this.sprites = null; // the sprite program, linked when a sprite is set
    this.buffers = { pos: gl.createBuffer(), color: gl.createBuffer(), index: gl.createBuffer(),
      selPos: gl.createBuffer(), selColor: gl.createBuffer(), selIndex: gl.createBuffer() };
    this.listen();
  }

  /** positions: Float32Array n*3 within about [-1, 1]; colors: Uint8Array n*3; rows: each point's
   *  row in the embedding (for its sprite), null when the points are rows 0..n-1. */
  setPoints(positions, colors, rows = null) {
    const gl = this.gl;
    this.n = positions.length / 3;
    this.positions = positions;
    this.rows = rows;
    this.indexed = false;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers.pos);
    gl.bufferData(gl.ARRAY_BUFFER, positions, gl.STATIC_DRAW);
    this.setColors(colors);
    if (this.sprite) this.uploadIndex();
    this.screen = null;
  }

  /** colors: Uint8Array n*3 (RGB), uploaded as RGBA. */
  setColors(colors) {
    const gl = this.gl;
    this.colors = colors;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers.color);
    gl.bufferData(gl.ARRAY_BUFFER, rgba(colors), gl.STATIC_DRAW);
    this.requestDraw();
  }

  /** Each point's row in the embedding, for its sprite: made only when there is a sprite. */
  uploadIndex() {
    if (this.indexed) return;
    const index = new Float32Array(this.n);
    for (let i = 0; i < this.n; i++) index[i] = this.rows ? this.rows[i] : i;
    this.gl.bindBuffer(this.gl.ARRAY_BUFFER, this.buffers.index);
    this.gl.bufferData(this.gl.ARRAY_BUFFER, index, this.gl.STATIC_DRAW);
    this.indexed = true;
  }

  /** Draw the points in `indices` (of this cloud) larger, ringed, on top; the others dimmed. */
  setSelection(indices) {
    const gl = this.gl;
    const pos = new Float32Array(indices.length * 3);
    const col = new Uint8Array(indices.length * 3);
    const idx = new Float32Array(indices.length);
    indices.forEach((i, k) => {
      for (let j = 0; j < 3; j++) {
        pos[3 * k + j] = this.positions[3 * i + j];
        col[3 * k + j] = this.colors[3 * i + j];
      }
      idx[k] = this.rows ? this.rows[i] : i;
    });
    this.selected = indices.length;
    for (const [buffer, data] of [[this.buffers.selPos, pos], [this.buffers.selColor, rgba(col)], [this.buffers.selIndex, idx]]) {
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    }
    this.requestDraw();
  }

  /**
   * Draw each point as its thumbnail: `image` the whole atlas (ImageBitmap or <img>), `cell` one
   * thumbnail's [width, height] in pixels, laid out row-major (TensorBoard's layout). null: dots.
   */
  setSprite(image, cell) {
    const gl = this.gl;
    if (this.sprite) gl.deleteTexture(this.sprite.texture);
    this.sprite = null;
    if (image) {
      if (!this.sprites) this.sprites = link(gl, SPRITE_VERTEX, SPRITE_FRAGMENT);
      const texture = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, texture);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, image);
      // any size (WebGL 1 without mipmaps): clamp, linear
      for (const [k, v] of [[gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE],
        [gl.TEXTURE_MIN_FILTER, gl.LINEAR], [gl.TEXTURE_MAG_FILTER, gl.LINEAR]]) gl.texParameteri(gl.TEXTURE_2D, k, v);
      this.sprite = { texture, cols: Math.max(1, Math.floor(image.width / cell[0])), cell: [cell[0] / image.width, cell[1] / image.height] };
      this.uploadIndex();
    }
    this.requestDraw();
  }

  pointSize() {
    const ratio = globalThis.devicePixelRatio || 1;
    if (this.sprite) return (this.n > 10000 ? 12 : this.n > 1000 ? 20 : 32) * ratio;
    return (this.n > 50000 ? 2 : this.n > 10000 ? 3 : 5) * ratio;
  }

  matrix() {
    return this.camera.matrix(this.canvas.width / Math.max(1, this.canvas.height));
  }

  requestDraw() {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.draw();
    });
  }

  /** Draw now (the benchmark calls it directly and waits for the pixels). */
  draw() {
    const gl = this.gl;
    const ratio = globalThis.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * ratio));
    const h = Math.max(1, Math.round(this.canvas.clientHeight * ratio));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.screen = null;
    }
    gl.viewport(0, 0, w, h);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    // Blending only to dim the unselected points or for sprites: opaque dots are drawn markedly
    // faster by software GL.
    if (this.selected || this.sprite) {
      gl.enable(gl.BLEND);
      gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    } else gl.disable(gl.BLEND);
    const p = this.sprite ? this.sprites : this.dots;
    gl.useProgram(p.program);
    gl.uniformMatrix4fv(p.uMatrix, false, this.matrix());
    if (this.sprite) {
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, this.sprite.texture);
      gl.uniform1i(p.uAtlas, 0);
      gl.uniform1f(p.uCols, this.sprite.cols);
      gl.uniform2f(p.uCell, this.sprite.cell[0], this.sprite.cell[1]);
    } else {
      gl.uniform1f(p.uCols, 1);
      gl.uniform2f(p.uCell, 0, 0);
    }
    const attribute = (loc, buffer, size, type, normalized, bytes, stride) => {
      if (loc < 0) return;
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, size, type, normalized, stride > 1 ? bytes * stride : 0, 0);
    };
    const pass = (pos, color, index, count, stride, size, dim, ring) => {
      if (!count) return;
      attribute(p.aPos, pos, 3, gl.FLOAT, false, 12, stride);
      attribute(p.aColor, color, 4, gl.UNSIGNED_BYTE, true, 4, stride);
      if (this.sprite) attribute(p.aIndex, index, 1, gl.FLOAT, false, 4, stride);
      gl.uniform1f(p.uSize, size);
      gl.uniform1f(p.uDim, dim);
      gl.uniform1f(p.uRing, ring);
      gl.drawArrays(gl.POINTS, 0, Math.ceil(count / stride));
    };
    const stride = sampleStride(this.n, this.moving);
    const size = this.pointSize();
    pass(this.buffers.pos, this.buffers.color, this.buffers.index, this.n, stride, size, this.selected ? 0.25 : 1, 0);
    pass(this.buffers.selPos, this.buffers.selColor, this.buffers.selIndex, this.selected, 1,
      this.sprite ? size * 1.5 : Math.max(8 * ratio, size * 2.5), 1, 1);
    this.drawnStride = stride;
  }

  viewSize() {
    return [this.canvas.clientWidth, this.canvas.clientHeight];
  }

  /** Every point's CSS-pixel position for the current camera (points behind the eye: -1e9). */
  screenPositions() {
    if (this.screen) return this.screen;
    const m = this.matrix();
    const [w, h] = this.viewSize();
    const out = new Float32Array(this.n * 2);
    const p = this.positions;
    for (let i = 0; i < this.n; i++) {
      const xy = toScreen(m, p[3 * i], p[3 * i + 1], p[3 * i + 2], w, h);
      out[2 * i] = xy ? xy[0] : -1e9;
      out[2 * i + 1] = xy ? xy[1] : -1e9;
    }
    this.screen = out;
    return out;
  }

  /** The CSS-pixel positions of a few points (labels) without projecting the whole cloud. */
  project(indices) {
    const m = this.matrix();
    const [w, h] = this.viewSize();
    const p = this.positions;
    return indices.map((i) => toScreen(m, p[3 * i], p[3 * i + 1], p[3 * i + 2], w, h));
  }

  /** How far right of its point a label starts, in CSS pixels: past the sprite when drawn. */
  labelOffset() {
    return this.sprite ? this.pointSize() / (2 * (globalThis.devicePixelRatio || 1)) : 0;
  }

  cameraMoved() {
    this.screen = null;
    this.moving = true;
    clearTimeout(this.settle);
    this.settle = setTimeout(() => this.rest(), SETTLE_MS);
    this.requestDraw();
    if (this.hooks.onCamera) this.hooks.onCamera();
  }

  /** The camera stopped: draw every point again. */
  rest() {
    clearTimeout(this.settle);
    this.settle = null;
    if (!this.moving) return;
    this.moving = false;
    this.requestDraw();
  }

  /** A drag of (dx, dy) pixels: rotates in 3D, pans in 2D (the benchmark moves the camera through this too). */
  rotate(dx, dy) {
    this.camera.drag(dx, dy);
    this.cameraMoved();
  }

  pan(dx, dy) {
    this.camera.pan(dx, dy);
    this.cameraMoved();
  }

  zoom(factor) {
    this.camera.zoom(factor);
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

  /** The point under the mouse event (within 6 px, or half a sprite), or -1. */
  pick(e) {
    const rect = this.canvas.getBoundingClientRect();
    const radius = this.sprite ? this.pointSize() / (2 * (globalThis.devicePixelRatio || 1)) : 6;
    return nearestPoint(this.screenPositions(), e.clientX - rect.left, e.clientY - rect.top, radius);
  }

  destroy() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    clearTimeout(this.settle);
    const ext = this.gl.getExtension("WEBGL_lose_context");
    if (ext) ext.loseContext();
  }
}
