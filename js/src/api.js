// The page side of the dashboard contract (docs/writing-a-dashboard.md), version API_VERSION:
// what a dashboard's module may use of the Board. An installed dashboard's ES module cannot import
// the bundle's files (it runs from a Blob URL), so its default export is a function of this
// object that returns its `dashboard` description (core/layout.js says what it holds); the
// built-in dashboards import the same helpers from the same modules (tests/test_architecture_js.py
// checks that a built-in dashboard imports nothing from outside its folder that this file does
// not import and put in API), and both go through core/layout.js's registerDashboard.
// Adding a helper is a minor change; removing or changing one is a new API_VERSION.

import { formatSampleRate, tooLargeText } from "./cards/blob.js";
import { BlobCard } from "./cards/blob_card.js";
import { Card } from "./cards/card.js";
import { AXIS, CONFIG, ChartCard, baseLayout } from "./cards/chart_card.js";
import { mediaView } from "./cards/lazy_media.js";
import { PlotFit } from "./cards/plot_fit.js";
import { RunCard, stepCount } from "./cards/run_card.js";
import { SCALAR_TRAITS, ScalarCard } from "./cards/scalar/scalar_card.js";
import { hoverTemplate } from "./cards/scalar/scalars_plot.js";
import { NoStepView } from "./cards/scalar/step_view.js";
import { LINK_TRAITS, atOrBefore, boardLinkedStep } from "./cards/step_link.js";
import { decode, encode, toNumbers, toTypedArray } from "./core/codec.js";
import { PALETTE, rampColor, withAlpha } from "./core/colors.js";
import { BASIS_POINTS } from "./core/constants.js";
import { plotlyFor } from "./core/plotly.js";
import { isDarkColor } from "./core/theme.js";
import { runViewScript } from "./core/view_script.js";
import { debounce, h, icon, iconButton } from "./dom.js";
import { saveBlob, saveText } from "./download.js";
import { escapePlotly, formatCount, formatDateTime, formatShort } from "./format.js";
import { naturalCompare } from "./naturalsort.js";
import { exactPattern } from "./runs.js";
import { fromMessage, hoverData, maxX, mergeZoom } from "./series.js";
import { smooth } from "./smoothing.js";
import { StepSlider } from "./widgets/step_slider.js";
import { buildTable } from "./widgets/table.js";
import { relativeUnit, toDisplayX, xAxisLayout } from "./xaxis.js";

/** The version of the contract; the kernel's tbnb/board/extensions.py PLUGIN_API says the same. */
export const API_VERSION = 1;

/** What a dashboard module may use, grouped as the contract documents it (frozen: read only). */
export const API = Object.freeze({
  version: API_VERSION,
  // cards: the base classes; a card asks the kernel with this.request(purpose, content, onReply);
  // a chart that fits its box; how many steps a run card shows
  cards: Object.freeze({ Card, RunCard, ChartCard, PlotFit, stepCount }),
  // scalar: the scalars tab's card (lines per run, smoothing, zoom, step table) to draw with
  scalar: Object.freeze({ ScalarCard, SCALAR_TRAITS, NoStepView, hoverTemplate }),
  // media: the image/audio card, its texts, and the media view the kernel sends on first use
  media: Object.freeze({ BlobCard, formatSampleRate, tooLargeText, mediaView, runViewScript }),
  // steps: the step every card links to (traits, lookup) and the step slider
  steps: Object.freeze({ LINK_TRAITS, atOrBefore, boardLinkedStep, StepSlider }),
  // codec: arrays in messages (the twin of tbnb/board/codec.py); replies arrive decoded
  codec: Object.freeze({ decode, encode, toNumbers, toTypedArray, BASIS_POINTS }),
  // series: a run's points from a reply, hover and zoom, smoothing, the x axis's units
  series: Object.freeze({ fromMessage, hoverData, maxX, mergeZoom, smooth, relativeUnit, toDisplayX, xAxisLayout }),
  // theme: plotly layout and config in the Board's colours and fonts; whether a colour is dark
  theme: Object.freeze({ baseLayout, CONFIG, AXIS, isDarkColor, PALETTE, rampColor, withAlpha }),
  // plotly: the plotly.js the page runs ("cartesian" or "full"), or null until it has run
  plotly: Object.freeze({ plotlyFor }),
  // dom: elements made with their text set as text (never as HTML), tables of text cells, numbers,
  // names in plotly's hover text, sorting, saving a file, a run name as an exact pattern
  dom: Object.freeze({
    h, icon, iconButton, debounce, buildTable, formatCount, formatShort, formatDateTime, escapePlotly,
    naturalCompare, saveBlob, saveText, exactPattern,
  }),
});
