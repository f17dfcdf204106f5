// Run colours: TensorBoard's palette, the kernel's `run_colors` trait first.

/** TensorBoard's 7-colour run palette (the same tuple as protocol.PALETTE). */
export const PALETTE = ["#425066", "#12b5cb", "#e52592", "#f9ab00", "#9334e6", "#7cb342", "#e8710a"];

const HEX = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

export function isHexColor(value) {
  return typeof value === "string" && HEX.test(value);
}

/** `#rgb` or `#rrggbb` -> `#rrggbb` (lower case), as `<input type=color>` needs. */
export function normalizeHex(value) {
  if (!isHexColor(value)) return null;
  const v = value.toLowerCase();
  return v.length === 4 ? `#${v[1]}${v[1]}${v[2]}${v[2]}${v[3]}${v[3]}` : v;
}

/** The colour of a run: run_colors[run] if it is a hex colour, else the palette by `index`. */
export function runColor(run, runColors, index) {
  const chosen = runColors && normalizeHex(runColors[run]);
  if (chosen) return chosen;
  const i = Number.isInteger(index) && index >= 0 ? index : 0;
  return PALETTE[i % PALETTE.length];
}
