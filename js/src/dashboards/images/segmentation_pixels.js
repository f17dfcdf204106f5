// The segmentation card's pixels, computed from the kernel's class-id masks (protocol.md,
// Segmentations): a mask in its class colours, the masks over the image at an opacity, and the errors (pixels
// where label and prediction differ). Classes switched off in the legend are left unpainted.
// No DOM: RGBA arrays in, RGBA arrays out.

/** The colour errors are painted in. */
export const ERROR_RGB = [230, 20, 60];

/** "#rrggbb" -> [r, g, b] (grey for anything else: a palette comes from the kernel). */
export function hexRgb(hex) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(hex));
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [128, 128, 128];
}

function colours(palette) {
  return palette.map(hexRgb);
}

/** A mask in its class colours (RGBA); classes in `hidden` (a Set of ids) are transparent. */
export function maskPixels(ids, palette, hidden = new Set()) {
  const rgb = colours(palette);
  const out = new Uint8ClampedArray(ids.length * 4);
  for (let i = 0; i < ids.length; i++) {
    const c = ids[i];
    const col = rgb[c];
    if (!col || hidden.has(c)) continue;
    out[4 * i] = col[0];
    out[4 * i + 1] = col[1];
    out[4 * i + 2] = col[2];
    out[4 * i + 3] = 255;
  }
  return out;
}

/** The image (RGBA) with the mask's visible classes blended over it at `opacity` (0..1). */
export function overlayPixels(image, ids, palette, hidden = new Set(), opacity = 0.5) {
  const rgb = colours(palette);
  const a = Math.min(1, Math.max(0, Number(opacity) || 0));
  const out = new Uint8ClampedArray(image);
  for (let i = 0; i < ids.length; i++) {
    const col = rgb[ids[i]];
    if (!col || hidden.has(ids[i])) continue;
    for (let k = 0; k < 3; k++) out[4 * i + k] = Math.round(image[4 * i + k] * (1 - a) + col[k] * a);
    out[4 * i + 3] = 255;
  }
  return out;
}

/**
 * The errors view: the image in faded grey, and in ERROR_RGB each pixel whose label and
 * prediction differ where either class is shown. {pixels, wrong, counted}: wrong pixels, and
 * pixels whose label or prediction class is shown (what `wrong` is a share of).
 */
export function errorPixels(image, label, prediction, hidden = new Set()) {
  const out = new Uint8ClampedArray(image.length);
  let wrong = 0;
  let counted = 0;
  for (let i = 0; i < label.length; i++) {
    const shown = !hidden.has(label[i]) || !hidden.has(prediction[i]);
    const grey = 0.299 * image[4 * i] + 0.587 * image[4 * i + 1] + 0.114 * image[4 * i + 2];
    const faded = Math.round(150 + grey * 0.4);
    const bad = shown && label[i] !== prediction[i];
    if (shown) counted++;
    if (bad) wrong++;
    out[4 * i] = bad ? ERROR_RGB[0] : faded;
    out[4 * i + 1] = bad ? ERROR_RGB[1] : faded;
    out[4 * i + 2] = bad ? ERROR_RGB[2] : faded;
    out[4 * i + 3] = 255;
  }
  return { pixels: out, wrong, counted };
}

/** "0.734", "–" for NaN / missing (a class in neither mask has no IoU). */
export function formatIou(v) {
  return Number.isFinite(v) ? v.toFixed(3) : "–";
}
