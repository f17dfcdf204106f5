// The scalars tab: a card per tag with every selected run. The card (cards/scalar/scalar_card.js)
// is shared: the custom scalars tab draws its charts with it and the time series tab shows it.

import { SCALAR_TRAITS, ScalarCard } from "../cards/scalar/scalar_card.js";

/** The scalars tab: a card per tag with every selected run; also a card type of the time series tab. */
export const dashboard = {
  id: "scalars",
  label: "Scalars",
  cards: {
    scalars: { Card: ScalarCard, plugin: "scalars", noun: "scalar", perRun: false, redrawOn: SCALAR_TRAITS },
  },
};
