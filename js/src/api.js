// The page side of the dashboard contract (docs/writing-a-dashboard.md), version API_VERSION:
// what a dashboard's module may use of the Board. An installed dashboard's ES module cannot import
// the bundle's files (it runs from a Blob URL), so its default export is a function of this
// object that returns its `dashboard` description (layout.js says what it holds); the built-in
// dashboards are made of the same helpers, and both go through layout.js's registerDashboard.
// Adding a helper is a minor change; removing or changing one is a new API_VERSION.

import { Card } from "./cards/card.js";
import { CONFIG, ChartCard, baseLayout } from "./cards/chart_card.js";
import { decode, encode, toNumbers, toTypedArray } from "./core/codec.js";
import { h } from "./dom.js";
import { formatCount, formatShort } from "./format.js";
import { plotlyFor } from "./core/plotly.js";
import { RunCard } from "./cards/run_card.js";
import { buildTable } from "./widgets/table.js";
import { isDarkColor } from "./core/theme.js";

/** The version of the contract; the kernel's tbnb/board/extensions.py PLUGIN_API says the same. */
export const API_VERSION = 1;

/** What a dashboard module may use, grouped as the contract documents it (frozen: read only). */
export const API = Object.freeze({
  version: API_VERSION,
  // cards: the base classes; a card asks the kernel with this.request(purpose, content, onReply)
  cards: Object.freeze({ Card, RunCard, ChartCard }),
  // codec: arrays in messages (the twin of tbnb/board/codec.py); replies arrive decoded
  codec: Object.freeze({ decode, encode, toNumbers, toTypedArray }),
  // theme: plotly layout and config in the Board's colours and fonts; whether a colour is dark
  theme: Object.freeze({ baseLayout, CONFIG, isDarkColor }),
  // plotly: the plotly.js the page runs ("cartesian" or "full"), or null until it has run
  plotly: Object.freeze({ plotlyFor }),
  // dom: elements made with their text set as text (never as HTML), tables of text cells, numbers
  dom: Object.freeze({ h, buildTable, formatCount, formatShort }),
});
