// The Board's dashboards: one line each. A dashboard is a module of this folder (<name>.js, or
// <name>/<name>.js beside its other files) exporting `dashboard` (see core/layout.js for what it
// holds); the tabs follow the kernel's list of dashboards (constants.json's "dashboards",
// protocol.DASHBOARDS), which names each one too.

export { dashboard as timeseries } from "./timeseries.js";
export { dashboard as scalars } from "./scalars.js";
export { dashboard as histograms } from "./histograms/histograms.js";
export { dashboard as distributions } from "./distributions/distributions.js";
export { dashboard as images } from "./images/images.js";
export { dashboard as audio } from "./audio.js";
export { dashboard as text } from "./text/text.js";
export { dashboard as pr_curves } from "./pr_curves/pr_curves.js";
export { dashboard as custom_scalars } from "./custom_scalars/custom_scalars.js";
export { dashboard as hparams } from "./hparams/hparams.js";
export { dashboard as mesh } from "./mesh/mesh.js";
export { dashboard as projector } from "./projector/projector.js";
export { dashboard as graphs } from "./graphs/graphs.js";
export { dashboard as diagnostics } from "./diagnostics/diagnostics.js";
