// The page side of the example dashboard: an ES module the Board loads through the comm. It
// cannot import tbnb's files; its default export gets tbnb's page API (docs/writing-a-dashboard.md)
// and returns the dashboard's description: here one card filling the tab, a table of each shown
// run's scalar tags with their last, best and mean value and a sparkline.

const SVG = "http://www.w3.org/2000/svg";

function number(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return "–";
  const x = Number(v);
  return Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

/** A sparkline of `values` (a Float64Array) as an SVG polyline in `color`. */
function sparkline(doc, values, color, width = 120, height = 24) {
  const svg = doc.createElementNS(SVG, "svg");
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("class", "tbnb-example-spark");
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (!Number.isFinite(lo)) return svg;
  const span = hi - lo || 1;
  const n = values.length;
  const points = [];
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    const x = n > 1 ? (i / (n - 1)) * (width - 2) + 1 : width / 2;
    const y = height - 2 - ((v - lo) / span) * (height - 4);
    points.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  const line = doc.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", color);
  line.setAttribute("stroke-width", "1.5");
  svg.append(line);
  return svg;
}

export default function example(api) {
  const { Card } = api.cards;
  const { h } = api.dom;

  class ExampleCard extends Card {
    build() {
      this.meta = h("span", { class: "tbnb-card-meta" });
      this.plot = h("div", { class: "tbnb-example-body", style: { overflow: "auto", maxHeight: "70vh" } });
      this.el = h(
        "div",
        { class: "tbnb-card tbnb-card-example", dataset: { kind: this.kind }, style: { width: "100%", boxSizing: "border-box" } },
        h("div", { class: "tbnb-card-head" }, h("div", { class: "tbnb-card-title", text: "Scalar summary" })),
        h("div", { class: "tbnb-card-sub" }, this.meta),
        this.plot,
      );
    }

    /** Every shown run (the Board's run selector). */
    runs() {
      return this.board.runNames().filter((run) => this.board.shown.has(run));
    }

    runsChanged() {
      this.dirty = true;
      super.runsChanged();
    }

    updateSub() {
      if (!this.meta) return;
      const rows = this.data ? this.data.rows.length : null;
      this.meta.textContent = this.error || (this.loading ? "loading…" : rows === null ? "" : `${rows} series`);
    }

    load() {
      this.request("table", { type: "example_table", runs: this.runs() }, (msg) => {
        this.data = { rows: Array.isArray(msg.rows) ? msg.rows : [] };
        this.loading = false;
        this.draw();
      });
    }

    render() {
      const doc = this.el.ownerDocument;
      const head = h("tr", {}, ...["run", "tag", "last", "best", "mean", "points", "series"].map((text) => h("th", { text })));
      const rows = this.data.rows.map((row) => {
        const color = this.board.colorOf(row.run);
        return h(
          "tr",
          { dataset: { run: row.run, tag: row.tag } },
          h("td", {}, h("span", { class: "tbnb-dot", style: { background: color } }), h("span", { text: ` ${row.run}` })),
          h("td", { text: row.tag }),
          h("td", { text: number(row.last) }),
          h("td", { text: `${number(row.best)} (${row.best_is})` }),
          h("td", { text: number(row.mean) }),
          h("td", { text: String(row.points) }),
          h("td", {}, sparkline(doc, api.codec.toNumbers(row.spark), color)),
        );
      });
      const table = h("table", { class: "tbnb-text-table tbnb-example-table" }, h("thead", {}, head), h("tbody", {}, ...rows));
      this.plot.replaceChildren(rows.length ? table : h("div", { class: "tbnb-placeholder", text: "No scalar data in the shown runs" }));
      return true;
    }
  }

  return {
    id: "example",
    label: "Example",
    whole: true,
    cards: { example: { Card: ExampleCard, plugin: "scalars", noun: "scalar", perRun: false } },
  };
}
