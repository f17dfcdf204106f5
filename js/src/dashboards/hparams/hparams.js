// The hparams tab: one card filling the area with every trial (protocol.md, `hparams`): parallel
// coordinates (brushing an axis filters the table), the table (click a heading to sort, a box
// per column to filter by value or range, columns shown or hidden, CSV download), and a
// scatter-plot matrix of the numeric hparams and metrics. Ticking rows selects those trials'
// runs, and their parent runs, on every tab (the `runs` trait); the `hparams_join` trait adds
// the parent run's scalars as columns. Values are text (textContent, escapePlotly), never markup.

import { Card } from "../../cards/card.js";
import { CONFIG } from "../../cards/chart_card.js";
import { h, iconButton } from "../../dom.js";
import { saveText } from "../../download.js";
import { formatDateTime } from "../../format.js";
import { brushesOf, parcoordsTrace, splomTrace } from "./hparams_plots.js";
import {
  columnLabel,
  csvText,
  filterRows,
  isNumeric,
  parseFilter,
  selectedRuns,
  selectionPatterns,
  sortRows,
  tableFrom,
} from "./hparams_table.js";

const JOIN = "hparams_join";

/** A cell's text: numbers short, start times as dates, empty for null. */
function cellText(column, value) {
  if (value === null || value === undefined) return "";
  if (column.kind === "start_time" && typeof value === "number") return formatDateTime(value);
  if (typeof value === "number") return String(Number(value.toPrecision(6)));
  return String(value);
}

export class HParamsCard extends Card {
  init() {
    this.sortKey = null;
    this.sortDir = "asc";
    this.filters = {};
    this.brushes = {};
    this.hidden = new Set(["start_time"]);
    this.problems = [];
  }

  build() {
    this.title = h("div", { class: "tbnb-card-title", text: "HParams" });
    this.join = h(
      "select",
      { class: "tbnb-input", title: "Metrics joined to each trial", on: { change: () => this.board.setTrait(JOIN, this.join.value) } },
      h("option", { value: "", text: "trial's runs" }),
      h("option", { value: "parent", text: "+ parent run's scalars" }),
    );
    this.columnsBox = h("div", { class: "tbnb-hp-columns", style: { display: "flex", flexWrap: "wrap", gap: "2px 10px" } });
    const columnsMenu = h("details", { class: "tbnb-hp-columns-menu" }, h("summary", { text: "Columns" }), this.columnsBox);
    const selectShown = h("button", {
      type: "button",
      class: "tbnb-btn tbnb-hp-select-filtered",
      text: "Select filtered",
      title: "Select the trials the filters and brushes leave (sets the runs on every tab)",
      on: { click: () => this.select(this.visibleRows()) },
    });
    const all = h("button", {
      type: "button",
      class: "tbnb-btn tbnb-hp-all",
      text: "All runs",
      title: "Select nothing: every run is shown",
      on: { click: () => this.select([]) },
    });
    const download = iconButton("download", "Download the table as CSV (the shown rows and columns)", () => this.download());
    this.sub = h("div", { class: "tbnb-card-sub" });
    this.plot = h("div", { class: "tbnb-body-hparams tbnb-hp-parcoords", style: { height: "320px" } });
    this.tableBox = h("div", { class: "tbnb-hp-table", style: { overflow: "auto", maxHeight: "420px" } });
    this.splom = h("div", { class: "tbnb-hp-splom" });
    this.el = h(
      "div",
      { class: `tbnb-card tbnb-card-${this.kind} tbnb-expanded`, dataset: { tag: this.tag, kind: this.kind } },
      h("div", { class: "tbnb-card-head", style: { gap: "8px" } }, this.title, columnsMenu, this.join, selectShown, all, download),
      this.sub,
      this.plot,
      this.tableBox,
      this.splom,
    );
  }

  /** Every run holding hparams summaries (the card shows all trials, selected or not). */
  runs() {
    const tags = this.board.index && this.board.index.plugins.get(this.plugin);
    const runs = new Set();
    for (const info of tags ? tags.values() : []) for (const run of info.runs) runs.add(run);
    return [...runs];
  }

  canLoad() {
    return true;
  }

  hasData() {
    return this.data !== null;
  }

  updateSub() {
    if (!this.sub) return;
    this.sub.classList.toggle("tbnb-error", Boolean(this.error));
    let text = this.error || "";
    if (!this.error && this.data) {
      const shown = this.visibleRows().length;
      const n = this.data.rows.length;
      text = `${n} trial${n === 1 ? "" : "s"}${shown !== n ? `, ${shown} after filters` : ""}`;
      if (this.problems.length) text += ` · ${this.problems.length} problem(s): ${this.problems.join("; ")}`;
    }
    if (!this.error && this.loading) text = text ? `${text} · loading…` : "loading…";
    this.sub.textContent = text;
  }

  load() {
    const join = this.board.trait(JOIN) || "";
    this.join.value = join;
    this.seenRuns = this.runs().join("\u0000");
    this.request("data", { type: "hparams", join }, (msg) => {
      this.data = tableFrom(msg);
      this.problems = (msg.problems || []).map(String);
      this.loading = false;
      this.draw();
    });
  }

  /** `hparams_join` changed: the columns change, ask again. */
  settingChanged() {
    this.join.value = this.board.trait(JOIN) || "";
    this.invalidate();
  }

  /** The selection or the index changed: a new run (a new trial) means new rows; otherwise only
   * the highlighted rows change. */
  runsChanged() {
    const runs = this.runs().join("\u0000");
    if (this.data && runs !== this.seenRuns) this.dirty = true;
    this.seenRuns = runs;
    super.runsChanged();
    if (this.data) this.renderTable();
  }

  /** Rows passing the filters and brushes, in the table's order. */
  visibleRows() {
    if (!this.data) return [];
    const { columns, rows } = this.data;
    return sortRows(filterRows(rows, columns, this.filters, this.brushes), this.sortKey, this.sortDir);
  }

  shownColumns() {
    return this.data.columns.filter((c) => !this.hidden.has(c.key));
  }

  /** Select these rows' trials on every tab (their runs and parent runs; none: every run). */
  select(rows) {
    this.board.setTrait("runs", selectionPatterns(rows));
  }

  selected() {
    return selectedRuns(this.data.rows, this.board.trait("runs"), this.board.shown || new Set());
  }

  toggleRow(row, on) {
    const chosen = this.selected();
    if (on) chosen.add(row.run);
    else chosen.delete(row.run);
    this.select(this.data.rows.filter((r) => chosen.has(r.run)));
  }

  download() {
    if (!this.data) return;
    saveText("hparams.csv", csvText(this.shownColumns(), this.visibleRows()), "text/csv");
  }

  render() {
    this.renderColumnsMenu();
    this.renderTable();
    const Plotly = this.board.plotly;
    if (!Plotly) {
      this.needsDraw = true;
      return false;
    }
    try {
      this.renderPlots(Plotly);
    } catch (err) {
      // A chart plotly cannot draw must not take the table (and row selection) with it.
      this.error = `Could not draw the charts: ${err && err.message}`;
      this.updateSub();
    }
    return true;
  }

  renderColumnsMenu() {
    this.columnsBox.replaceChildren(
      ...this.data.columns.map((c) =>
        h(
          "label",
          { class: "tbnb-check", style: { margin: "0" } },
          h("input", {
            type: "checkbox",
            checked: !this.hidden.has(c.key),
            dataset: { key: c.key },
            on: {
              change: (event) => {
                if (event.target.checked) this.hidden.delete(c.key);
                else this.hidden.add(c.key);
                this.draw();
              },
            },
          }),
          columnLabel(c),
        ),
      ),
    );
  }

  renderPlots(Plotly) {
    const { columns, rows } = this.data;
    const colors = this.board.colors || {};
    const base = {
      paper_bgcolor: "rgba(0,0,0,0)",
      plot_bgcolor: "rgba(0,0,0,0)",
      font: { size: 11, color: colors.text },
      uirevision: this.key,
    };
    const shown = columns.filter((c) => !this.hidden.has(c.key));
    const parcoords = parcoordsTrace(shown, rows, this.brushes);
    Plotly.react(this.plot, [parcoords], { ...base, height: 320, margin: { l: 60, r: 60, t: 48, b: 24 } }, CONFIG);
    if (!this.listening) {
      this.listening = true;
      this.plot.on("plotly_restyle", () => {
        this.brushes = brushesOf(this.plot.data && this.plot.data[0]);
        this.renderTable();
        this.updateSub();
      });
    }
    const splom = splomTrace(shown, rows, (run) => this.board.colorOf(run));
    if (splom) {
      const n = splom.dimensions.length;
      const size = Math.min(900, 150 * n + 60);
      Plotly.react(this.splom, [splom], { ...base, height: size, margin: { l: 60, r: 20, t: 20, b: 50 }, dragmode: "select", hovermode: "closest" }, CONFIG);
    } else {
      Plotly.purge(this.splom);
      this.splom.replaceChildren();
    }
  }

  renderTable() {
    const columns = this.shownColumns();
    const rows = this.visibleRows();
    const selected = this.selected();
    const heading = (c) =>
      h(
        "th",
        {
          title: c.description || c.key,
          style: { cursor: "pointer", whiteSpace: "nowrap", textAlign: "left", padding: "2px 8px" },
          dataset: { key: c.key },
          on: {
            click: () => {
              if (this.sortKey === c.key) this.sortDir = this.sortDir === "asc" ? "desc" : "asc";
              else [this.sortKey, this.sortDir] = [c.key, "asc"];
              this.renderTable();
            },
          },
        },
        columnLabel(c),
        this.sortKey === c.key ? (this.sortDir === "asc" ? " ▲" : " ▼") : "",
      );
    const filterBox = (c) => {
      const numeric = isNumeric(c, this.data.rows);
      const input = h("input", {
        class: "tbnb-input tbnb-hp-filter",
        value: this.filters[c.key] || "",
        placeholder: numeric ? "lo..hi" : "contains",
        title: numeric ? "a value, a range lo..hi, or >x, <x" : "text the value contains; =text for exactly text",
        spellcheck: false,
        dataset: { key: c.key },
        style: { width: "100%", height: "22px", boxSizing: "border-box" },
      });
      input.addEventListener("input", () => {
        const valid = parseFilter(input.value, numeric) !== null;
        input.classList.toggle("tbnb-invalid", !valid);
        this.filters[c.key] = input.value;
        if (valid) {
          this.renderBody(body, columns, selected);
          this.updateSub();
        }
      });
      return h("th", { style: { padding: "0 4px" } }, input);
    };
    const body = h("tbody");
    const table = h(
      "table",
      { class: "tbnb-hp-grid", style: { borderCollapse: "collapse", fontSize: "12px" } },
      h("thead", {}, h("tr", {}, h("th", { text: "" }), ...columns.map(heading)), h("tr", {}, h("th"), ...columns.map(filterBox))),
      body,
    );
    this.renderBody(body, columns, selected, rows);
    this.tableBox.replaceChildren(table);
  }

  renderBody(body, columns, selected, rows = this.visibleRows()) {
    body.replaceChildren(
      ...rows.map((row) => {
        const on = selected.has(row.run);
        return h(
          "tr",
          { dataset: { run: row.run }, class: on ? "tbnb-hp-selected" : "", style: on ? { background: "var(--tbnb-hover)" } : {} },
          h(
            "td",
            {},
            h("input", {
              type: "checkbox",
              checked: on,
              title: "Select this trial's runs on every tab",
              on: { change: (event) => this.toggleRow(row, event.target.checked) },
            }),
          ),
          ...columns.map((c) => h("td", { text: cellText(c, row.values[c.key]), style: { padding: "2px 8px", whiteSpace: "nowrap" } })),
        );
      }),
    );
  }

  destroy() {
    const Plotly = this.board.plotly;
    if (Plotly) {
      Plotly.purge(this.plot);
      Plotly.purge(this.splom);
    }
    super.destroy();
  }
}

/** The hparams tab: one card filling the area. */
export const dashboard = {
  id: "hparams",
  label: "HParams",
  plotly: "full", // parcoords and splom traces: not in the cartesian build
  whole: true,
  cards: { hparams: { Card: HParamsCard, plugin: "hparams", noun: "hparams", perRun: false, redrawOn: [JOIN] } },
};
