// The constants both sides of the comm use (palette, distribution basis points, default card
// width, dashboard ids, card types, x axes), read from the one file the kernel reads too
// (tbnb/board/constants.json, loaded by protocol.py): esbuild inlines it into the bundle, node's
// test runner imports it as a JSON module. No other JS file writes these values.

import shared from "../../../tbnb/board/constants.json" with { type: "json" };

/** TensorBoard's 7-colour run palette (protocol.PALETTE). */
export const PALETTE = Object.freeze([...shared.palette]);
/** The basis points of the kernel's distribution columns (protocol.BASIS_POINTS). */
export const BASIS_POINTS = Object.freeze([...shared.basis_points]);
/** The `card_width` trait's default, in px. */
export const DEFAULT_CARD_WIDTH = shared.default_card_width;
/** The `smoothing` trait's default. */
export const DEFAULT_SMOOTHING = shared.default_smoothing;
/** The values of the `dashboard` trait, in tab order; the first is the default. */
export const DASHBOARD_IDS = Object.freeze([...shared.dashboards]);
/** The card types the time series tab can show (the `card_types` trait), in display order. */
export const CARD_TYPES = Object.freeze([...shared.card_types]);
/** The `card_types` trait's default (TensorBoard's three; PR cards on request). */
export const DEFAULT_CARD_TYPES = Object.freeze([...shared.default_card_types]);
/** The values of the `histogram_mode` trait; the first is the default. */
export const HISTOGRAM_MODES = Object.freeze([...shared.histogram_modes]);
/** The values of the `x_axis` trait; the first is the default. */
export const X_AXES = Object.freeze([...shared.x_axes]);
