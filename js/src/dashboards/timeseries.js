// The time series tab (TensorBoard's default): the cards of the kinds the `card_types` trait
// selects, each drawn by its own dashboard's card class, grouped by tag.

/** It defines no card of its own: `cardTypes` says its kinds come from the `card_types` trait. */
export const dashboard = {
  id: "timeseries",
  label: "Time series",
  cards: {},
  cardTypes: true,
};
