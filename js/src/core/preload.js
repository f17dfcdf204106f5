// plotly.js before any Board: `%load_ext tbnb` makes a model of this module (never displayed)
// and the kernel sends plotly.js's cartesian build on it at once, so that the page runs the
// script while the user is still to run %tbnb. The Board's bundle shares the copy on
// globalThis (plotly.js), drawn once already (plotly_warm.js). Built apart from the bundle (tbnb/static/preload.js), a few KB.
import { deliverPlotly, loadPlotly } from "./plotly.js";
import { warmPlotly } from "./plotly_warm.js";

export default {
  initialize({ model }) {
    model.on("msg:custom", (msg, buffers) => {
      if (!msg || msg.type !== "plotly" || !buffers || !buffers.length) return;
      deliverPlotly(buffers[0], msg.bundle);
      // The kernel closes this model once the script ran (or failed: a Board will ask again).
      const ran = () => model.send({ type: "ran" });
      // Then its first drawing, on a hidden plot: the first card does not pay for it.
      loadPlotly(() => {}, msg.bundle === "full" ? "full" : "cartesian")
        .then((Plotly) => warmPlotly(Plotly))
        .then(ran, ran);
    });
  },
  render() {},
};
