// The synced traits of protocol.py, with the defaults the page assumes when one is missing.

export const DEFAULTS = {
  dashboard: "timeseries",
  smoothing: 0.6,
  x_axis: "step",
  log_y: false,
  ignore_outliers: true,
  runs: [".*"],
  hidden_runs: [],
  run_colors: {},
  tag_filter: "",
  pinned: [],
  card_width: 420,
  view: { tags: {}, x_axis: "step" },
  status: {},
  card_types: ["scalars", "histograms", "images"],
  histogram_mode: "offset",
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
