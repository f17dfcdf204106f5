// The synced traits of protocol.md, with the defaults the page assumes when one is missing
// (those the kernel also defines come from constants.json).

import { DEFAULT_CARD_TYPES, DASHBOARD_IDS, DEFAULT_CARD_WIDTH, DEFAULT_SMOOTHING, HISTOGRAM_MODES, X_AXES } from "./constants.js";

export const DEFAULTS = {
  dashboard: DASHBOARD_IDS[0],
  smoothing: DEFAULT_SMOOTHING,
  x_axis: X_AXES[0],
  log_y: false,
  ignore_outliers: true,
  runs: [".*"],
  hidden_runs: [],
  hidden_patterns: [],
  run_colors: {},
  tag_filter: "",
  pinned: [],
  card_width: DEFAULT_CARD_WIDTH,
  view: { tags: {}, x_axis: X_AXES[0] },
  status: {},
  card_types: [...DEFAULT_CARD_TYPES],
  histogram_mode: HISTOGRAM_MODES[0],
  image_brightness: 1000,
  image_contrast: 1000,
  image_actual_size: false,
  max_blob_bytes: 4 * 1024 * 1024,
};

export const NAMES = Object.keys(DEFAULTS);

/** model.get(name), or the default when the kernel did not define it. */
export function trait(model, name) {
  const value = model.get(name);
  return value === undefined || value === null ? DEFAULTS[name] : value;
}
