// The projector renderer's shaders (dots: round points; sprites: each point its thumbnail from
// the atlas texture) and the WebGL plumbing around them, apart from the renderer's state.

// Colours are RGBA bytes on the GPU: a 3-byte vertex format is not native to every driver
// (software GL converts such a buffer before its first draw, which costs as much as drawing).
export const VERTEX = `
attribute vec3 aPos;
attribute vec4 aColor;
uniform mat4 uMatrix;
uniform float uSize;
uniform float uDim;
varying vec3 vColor;
varying float vAlpha;
void main() {
  gl_Position = uMatrix * vec4(aPos, 1.0);
  gl_PointSize = uSize;
  vColor = aColor.rgb;
  vAlpha = uDim;
}`;

export const SPRITE_VERTEX = `
attribute vec3 aPos;
attribute vec4 aColor;
attribute float aIndex;
uniform mat4 uMatrix;
uniform float uSize;
uniform float uDim;
uniform float uCols;
uniform vec2 uCell;
varying float vAlpha;
varying vec2 vOrigin;
varying vec2 vCell;
void main() {
  gl_Position = uMatrix * vec4(aPos, 1.0);
  gl_PointSize = uSize;
  vAlpha = uDim;
  float row = floor((aIndex + 0.5) / uCols);
  vOrigin = vec2(aIndex - row * uCols, row) * uCell;
  vCell = uCell;
}`;

export const FRAGMENT = `
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

// Sprites: the thumbnail under the point (square, as TensorBoard draws them), framed when selected.
export const SPRITE_FRAGMENT = `
precision mediump float;
varying float vAlpha;
varying vec2 vOrigin;
varying vec2 vCell;
uniform float uRing;
uniform sampler2D uAtlas;
void main() {
  vec2 d = abs(gl_PointCoord - vec2(0.5));
  if (uRing > 0.5 && max(d.x, d.y) > 0.44) { gl_FragColor = vec4(0.96, 0.49, 0.0, 1.0); return; }
  vec4 texel = texture2D(uAtlas, vOrigin + gl_PointCoord * vCell);
  gl_FragColor = vec4(texel.rgb, texel.a * vAlpha);
}`;

function compile(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader) || "shader error");
  return shader;
}

export function link(gl, vertex, fragment) {
  const program = gl.createProgram();
  gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, vertex));
  gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, fragment));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program) || "link error");
  const loc = { program };
  for (const name of ["aPos", "aColor", "aIndex"]) loc[name] = gl.getAttribLocation(program, name);
  for (const name of ["uMatrix", "uSize", "uDim", "uRing", "uCols", "uCell", "uAtlas"]) loc[name] = gl.getUniformLocation(program, name);
  return loc;
}

/** The WebGL context of a canvas, or null (no WebGL in this browser, e.g. GPU and software GL off). */
export function webglContext(canvas) {
  try {
    return canvas.getContext("webgl", { antialias: false, preserveDrawingBuffer: true, alpha: false, depth: false }) || null;
  } catch {
    return null;
  }
}

/** RGB bytes (n*3) as opaque RGBA (n*4). */
export function rgba(rgb) {
  const n = rgb.length / 3;
  const out = new Uint32Array(n);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  for (let i = 0; i < n; i++) {
    const r = rgb[3 * i];
    const g = rgb[3 * i + 1];
    const b = rgb[3 * i + 2];
    out[i] = little ? (0xff000000 | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 0xff) >>> 0;
  }
  return new Uint8Array(out.buffer);
}
