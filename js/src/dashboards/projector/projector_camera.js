// The projector's cameras and the 4x4 matrix helpers they need (column-major, as WebGL takes
// them). A camera move only changes the matrix the renderer passes as a uniform: the point
// buffers stay on the GPU. 3D: an orbit camera (drag rotates, shift/right drag pans, wheel zooms).
// 2D: a flat orthographic camera with equal scales on both axes (drag pans, wheel zooms).

export class OrbitCamera {
  constructor() {
    this.theta = 0.6;
    this.phi = 0.4;
    this.distance = 3.2;
    this.target = [0, 0, 0];
  }

  matrix(aspect) {
    const eye = [
      this.target[0] + this.distance * Math.cos(this.phi) * Math.sin(this.theta),
      this.target[1] + this.distance * Math.sin(this.phi),
      this.target[2] + this.distance * Math.cos(this.phi) * Math.cos(this.theta),
    ];
    // the field of view spans the shorter side, so a tall view does not cut the cloud's sides
    const fovy = aspect < 1 ? 2 * Math.atan(Math.tan(0.4) / aspect) : 0.8;
    return multiply(perspective(fovy, aspect, 0.01, 100), lookAt(eye, this.target, [0, 1, 0]));
  }

  /** A drag of (dx, dy) CSS pixels. */
  drag(dx, dy) {
    this.theta -= dx * 0.008;
    this.phi = Math.max(-1.5, Math.min(1.5, this.phi + dy * 0.008));
  }

  pan(dx, dy) {
    const s = this.distance * 0.0015;
    const right = [Math.cos(this.theta), 0, -Math.sin(this.theta)];
    const t = this.target;
    this.target = [t[0] - right[0] * dx * s, t[1] + dy * s, t[2] - right[2] * dx * s];
  }

  zoom(factor) {
    this.distance = Math.max(0.05, Math.min(50, this.distance * factor));
  }
}

export class FlatCamera {
  /** @param size a function giving the view's [width, height] in CSS pixels (to pan by whole pixels). */
  constructor(size = () => [500, 500]) {
    this.size = size;
    this.centre = [0, 0];
    this.half = 1.1; // half the shorter side's extent, in the positions' units (they lie within [-1, 1])
  }

  matrix(aspect) {
    const sx = aspect >= 1 ? 1 / (this.half * aspect) : 1 / this.half;
    const sy = sx * aspect;
    return new Float32Array([sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, -this.centre[0] * sx, -this.centre[1] * sy, 0, 1]);
  }

  drag(dx, dy) {
    this.pan(dx, dy);
  }

  pan(dx, dy) {
    const unit = (2 * this.half) / Math.max(1, Math.min(...this.size()));
    this.centre = [this.centre[0] - dx * unit, this.centre[1] + dy * unit];
  }

  zoom(factor) {
    this.half = Math.max(1e-4, Math.min(100, this.half * factor));
  }
}

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

/** Where the world point (x, y, z) lands in CSS pixels of a w x h view under matrix m, or null behind the eye. */
export function toScreen(m, x, y, z, w, h) {
  const cw = m[3] * x + m[7] * y + m[11] * z + m[15];
  if (cw <= 0) return null;
  return [(((m[0] * x + m[4] * y + m[8] * z + m[12]) / cw + 1) / 2) * w, ((1 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / cw) / 2) * h];
}

/** Positions [n, dims] rescaled into [-1, 1] around their mean, as n*3 (z = 0 in 2D). One
 *  coordinate at a time (plain loops: a million points are rescaled in a few milliseconds). */
export function normalizePositions(positions, n, dims) {
  const out = new Float32Array(n * 3);
  const total = n * dims;
  const centre = [0, 0, 0];
  let scale = 0;
  for (let j = 0; j < dims; j++) {
    let sum = 0;
    for (let k = j; k < total; k += dims) sum += positions[k];
    const c = n ? sum / n : 0;
    centre[j] = c;
    for (let k = j; k < total; k += dims) {
      const d = Math.abs(positions[k] - c);
      if (d > scale) scale = d;
    }
  }
  const inv = scale > 0 && Number.isFinite(scale) ? 1 / scale : 1;
  for (let j = 0; j < dims; j++) {
    const c = centre[j];
    for (let i = 0, k = j; i < n; i++, k += dims) out[3 * i + j] = (positions[k] - c) * inv;
  }
  return out;
}
