// Dashboards: the tabs and the `dashboard` trait, the card-type filter, which cards each
// dashboard lays out, and what the cards area says when there are none.
import test from "node:test";
import assert from "node:assert/strict";
import { CARD_TYPES } from "../../js/src/core/constants.js";
import {
  DASHBOARDS,
  cardTypeLabel,
  emptyMessage,
  kindOf,
  kindsFor,
  layoutItems,
  normalizeCardTypes,
  normalizeDashboard,
  perRun,
  redrawTraits,
  showsCardTypes,
  dashboardLabel,
  toggleCardType,
} from "../../js/src/core/layout.js";

test("tabs: TensorBoard's names, one per value of the `dashboard` trait (protocol.DASHBOARDS)", () => {
  assert.deepEqual(
    DASHBOARDS.map(({ id }) => id),
    ["timeseries", "scalars", "histograms", "distributions", "images", "audio", "text", "pr_curves", "custom_scalars", "hparams", "mesh", "projector", "graphs", "diagnostics"],
  );
  assert.deepEqual(
    DASHBOARDS.map(({ label }) => label),
    ["Time series", "Scalars", "Histograms", "Distributions", "Images", "Audio", "Text", "PR curves", "Custom scalars", "HParams", "Mesh", "Projector", "Graphs", "Diagnostics"],
  );
  for (const { id, label } of DASHBOARDS) {
    assert.equal(normalizeDashboard(id), id);
    assert.equal(dashboardLabel(id), label);
  }
  for (const bad of [undefined, null, "", "no-such-board", "Scalars", 3]) {
    assert.equal(normalizeDashboard(bad), "timeseries");
    assert.equal(dashboardLabel(bad), "Time series");
  }
});

test("each dashboard's kind of card, and the plugin it reads", () => {
  assert.deepEqual(kindsFor("timeseries", ["scalars", "histograms", "images"]), ["scalars", "histograms", "images"]);
  assert.deepEqual(kindsFor("timeseries", ["images", "scalars"]), ["scalars", "images"], "display order");
  assert.deepEqual(kindsFor("timeseries", []), []);
  assert.deepEqual(kindsFor("timeseries", undefined), ["scalars", "histograms", "images"], "no trait: TensorBoard's three");
  assert.deepEqual(kindsFor("timeseries", CARD_TYPES), ["scalars", "histograms", "images", "pr_curves"], "PR cards on request");
  for (const id of ["scalars", "histograms", "distributions", "audio", "text"]) {
    assert.deepEqual(kindsFor(id, []), [id], "card_types applies to the time series tab only");
  }
  assert.deepEqual(kindsFor("images", []), ["images", "segmentation"], "segmentation cards: the images tab's");
  assert.equal(kindOf("distributions").plugin, "histograms");
  assert.equal(kindOf("images").plugin, "images");
  assert.ok(showsCardTypes("timeseries") && showsCardTypes("nonsense") && !showsCardTypes("images"));
  assert.deepEqual(CARD_TYPES.map(cardTypeLabel), ["Scalars", "Histograms", "Images", "PR curves"]);
  assert.equal(perRun("scalars"), false, "one scalar card draws every run");
  assert.ok(["histograms", "distributions", "images", "audio", "text"].every(perRun));
  const redraw = new Map(redrawTraits());
  for (const name of ["step_selection", "selected_step", "range_selection", "selected_range", "link_step", "card_steps", "tooltip_sort", "tooltip_rows"]) {
    const linked = ["selected_step", "link_step"].includes(name); // link by step: media cards follow
    assert.deepEqual([...redraw.get(name)].sort(), linked ? ["audio", "histograms", "images", "scalars", "segmentation"] : ["scalars"], name);
  }
  assert.deepEqual(redraw.get("histogram_mode"), ["histograms"]);
  assert.deepEqual(redraw.get("hparams_join"), ["hparams"]);
  assert.deepEqual(redraw.get("projector_method"), ["projector"]);
  assert.deepEqual(redraw.get("graph_expanded"), ["graph"]);
});

test("card_types: unknown entries dropped, toggling keeps the display order", () => {
  assert.deepEqual(normalizeCardTypes(["images", "text", "scalars"]), ["scalars", "images"]);
  assert.deepEqual(toggleCardType(["scalars", "histograms", "images"], "histograms", false), ["scalars", "images"]);
  assert.deepEqual(toggleCardType(["images"], "scalars", true), ["scalars", "images"]);
  assert.deepEqual(toggleCardType(["images"], "images", true), ["images"]);
});

function index() {
  return new Map([
    ["scalars", new Map([["loss", { runs: ["a", "b"] }], ["train/acc", { runs: ["a"] }]])],
    ["histograms", new Map([["train/w", { runs: ["a", "b"] }], ["loss", { runs: ["b"] }]])],
    ["images", new Map([["samples", { runs: ["b", "c"] }], ["train/img", { runs: ["a"] }]])],
    ["audio", new Map([["speech", { runs: ["a", "b"] }]])],
    ["text", new Map([["notes", { runs: ["c"] }]])],
  ]);
}
const names = (items) => items.map((i) => [i.kind, i.tag, i.run]);

test("time series: scalar cards per tag, histogram and image cards per tag and run, grouped", () => {
  const layout = layoutItems({ dashboard: "timeseries", cardTypes: CARD_TYPES, tags: index(), shown: new Set(["a", "b", "c"]) });
  assert.deepEqual(layout.groups.map((g) => g.name), ["loss", "samples", "train"]);
  assert.deepEqual(names(layout.groups[0].items), [["scalars", "loss", null], ["histograms", "loss", "b"]]);
  assert.deepEqual(names(layout.groups[1].items), [["images", "samples", "b"], ["images", "samples", "c"]]);
  assert.deepEqual(names(layout.groups[2].items), [
    ["scalars", "train/acc", null],
    ["images", "train/img", "a"],
    ["histograms", "train/w", "a"],
    ["histograms", "train/w", "b"],
  ]);
  assert.ok(layout.groups.every((g) => g.items.every((i) => !i.rowStart)));
});

test("the card-type filter and the run selection decide which cards exist", () => {
  const onlyImages = layoutItems({ dashboard: "timeseries", cardTypes: ["images"], tags: index(), shown: new Set(["a", "b", "c"]) });
  assert.deepEqual(onlyImages.groups.flatMap((g) => g.items).map((i) => i.kind), ["images", "images", "images"]);
  const hiddenB = layoutItems({ dashboard: "histograms", cardTypes: [], tags: index(), shown: new Set(["a", "c"]) });
  assert.deepEqual(names(hiddenB.groups.flatMap((g) => g.items)), [["histograms", "train/w", "a"]]);
  assert.deepEqual(hiddenB.tags, ["train/w"], "tags without a shown run have no card");
});

test("images and audio: a row per tag (first card starts the row), a column per run", () => {
  const layout = layoutItems({ dashboard: "images", cardTypes: [], tags: index(), shown: new Set(["a", "b", "c"]) });
  const items = layout.groups.flatMap((g) => g.items);
  assert.deepEqual(items.map((i) => [i.tag, i.run, i.rowStart]), [
    ["samples", "b", true],
    ["samples", "c", false],
    ["train/img", "a", true],
  ]);
  const audio = layoutItems({ dashboard: "audio", cardTypes: [], tags: index(), shown: new Set(["a", "b"]) });
  assert.deepEqual(audio.groups.flatMap((g) => g.items).map((i) => [i.kind, i.run, i.rowStart]), [
    ["audio", "a", true],
    ["audio", "b", false],
  ]);
});

test("distributions read histogram tags; text reads text tags; the tag filter and pins apply", () => {
  const d = layoutItems({ dashboard: "distributions", cardTypes: [], tags: index(), shown: new Set(["a", "b"]), filter: "^train" });
  assert.deepEqual(names(d.groups.flatMap((g) => g.items)), [["distributions", "train/w", "a"], ["distributions", "train/w", "b"]]);
  const t = layoutItems({ dashboard: "text", cardTypes: [], tags: index(), shown: new Set(["c"]), pinned: ["notes", "gone"] });
  assert.deepEqual(names(t.pinned), [["text", "notes", "c"]]);
  assert.deepEqual(names(t.groups[0].items), [["text", "notes", "c"]]);
});

test("what the cards area says when there are no cards", () => {
  const tags = index();
  const say = (dashboard, { cardTypes = CARD_TYPES, shown = ["a", "b", "c"], filter = "", message, plugins = tags } = {}) =>
    emptyMessage(layoutItems({ dashboard, cardTypes, tags: plugins, shown: new Set(shown), filter }), { tags: plugins, filter, message });
  assert.equal(say("timeseries"), null);
  assert.equal(say("timeseries", { cardTypes: [] }), "No card type is selected: tick Scalars, Histograms, Images or PR curves above.");
  const none = new Map();
  assert.equal(
    say("scalars", { plugins: none }),
    "No scalar data yet. The kernel reads the logdir again and again: scalars appear here once written.",
  );
  assert.equal(
    say("timeseries", { cardTypes: ["histograms", "images"], plugins: none }),
    "No histogram or image data yet. The kernel reads the logdir again and again: data appears here once written.",
  );
  assert.equal(say("text", { plugins: none, message: "waiting for runs/ to be created" }), "No text data yet: waiting for runs/ to be created.");
  assert.equal(say("text", { shown: ["a"] }), "No selected run has text data: see the run selector on the left.");
  assert.equal(say("histograms", { filter: "^nothing" }), "No tag matches the filter “^nothing”.");
});

test("a dashboard with a `section` lays its cards out in that one section, whatever the tag filter", () => {
  const tags = new Map([["custom_scalars", new Map([["custom_scalars__config__", { runs: ["a"] }]])]]);
  const layout = layoutItems({ dashboard: "custom_scalars", cardTypes: [], tags, shown: new Set(["a", "b"]), filter: "nomatch", pinned: ["custom_scalars__config__"] });
  assert.deepEqual(layout.groups.map((g) => g.name), ["Layout"]);
  assert.deepEqual(layout.groups[0].items.map((i) => [i.kind, i.tag, i.run]), [["custom_scalars", "custom_scalars__config__", null]]);
  assert.deepEqual(layout.pinned, []);
  const none = layoutItems({ dashboard: "custom_scalars", cardTypes: [], tags, shown: new Set(["b"]) });
  assert.deepEqual(none.groups, []);
});

test("a `whole` tab (hparams, mesh) is one card, shown while any run has its plugin's tags", () => {
  const tags = new Map([
    ["hparams", new Map([["_hparams_/session_start_info", { runs: ["t/1"] }], ["_hparams_/experiment", { runs: ["t/1"] }]])],
    ["scalars", new Map([["loss", { runs: ["t"] }]])],
  ]);
  const layout = layoutItems({ dashboard: "hparams", cardTypes: [], tags, shown: new Set(["t"]), filter: "zzz" });
  assert.deepEqual(layout.groups, [{ name: "HParams", items: [{ kind: "hparams", tag: "hparams", run: null, rowStart: false }] }]);
  assert.deepEqual(layout.pinned, []);
  assert.equal(emptyMessage(layout, { tags, filter: "zzz" }), null, "neither the run selection nor the tag filter hides it");
  const none = layoutItems({ dashboard: "mesh", cardTypes: [], tags, shown: new Set(["t"]) });
  assert.deepEqual(none.groups, []);
  assert.match(emptyMessage(none, { tags, filter: "" }), /No mesh data yet/);
});
