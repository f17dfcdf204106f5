// What the page does when a synced trait changes (set from Python, or by another view of the
// same Board): which pane syncs, which cards redraw, reset or lay out again. The Board's other
// half of "traits both ways" (board.js sets them); one listener list, removed on destroy.

import { redrawTraits } from "./layout.js";

/** Listen to `board.model`'s messages and trait changes; each listener is kept in
 * `board.listeners` for destroy() to remove. */
export function listen(board) {
  const on = (event, fn) => {
    board.model.on(event, fn);
    board.listeners.push([event, fn]);
  };
  const cards = () => board.cards.all();
  on("msg:custom", (msg, buffers) => board.router.receive(msg, buffers || []));
  on("change:smoothing", () => {
    board.settingsPane.sync();
    board.cards.smoothingChanged();
  });
  on("change:x_axis", () => {
    board.settingsPane.sync();
    board.zooms.clear();
    board.writeView();
    for (const card of cards()) card.resetAxis();
  });
  on("change:log_y", () => {
    board.settingsPane.sync();
    for (const card of cards()) card.setLogY(board.settings.logY);
  });
  on("change:ignore_outliers", () => {
    board.settingsPane.sync();
    for (const card of cards()) card.redraw();
  });
  on("change:card_width", () => {
    board.settingsPane.sync();
    board.applyWidth();
  });
  on("change:runs", () => {
    board.runSelector.syncFilter();
    board.runsChanged();
  });
  on("change:hidden_runs", () => board.runsChanged());
  on("change:hidden_patterns", () => board.runsChanged());
  on("change:run_groups", () => board.runSelector.render()); // the selector folds groups
  on("change:focus", () => board.runSelector.render()); // its focus buttons show the focused run
  on("change:run_colors", () => {
    board.runSelector.render();
    for (const card of cards()) card.redraw();
  });
  on("change:tag_filter", () => {
    board.header.sync();
    board.layoutCards();
  });
  on("change:pinned", () => board.layoutCards());
  on("change:custom_cards", () => board.layoutCards()); // board.add_card / remove_card
  on("change:view", () => board.applyView());
  on("change:status", () => {
    board.header.renderStatus();
    if (board.index && board.layoutEmpty) board.layoutCards();
  });
  on("change:dashboard", () => {
    board.header.sync();
    board.loadPlotly(); // before the cards: they draw once the build they need has run
    board.layoutCards();
  });
  on("change:card_types", () => {
    board.header.sync();
    board.layoutCards();
  });
  // Traits that only some kinds of card draw with (their dashboards' `redrawOn`).
  for (const [name, kinds] of redrawTraits()) {
    on(`change:${name}`, () => {
      board.settingsPane.sync();
      for (const card of board.cards.ofKinds(kinds)) card.settingChanged(name);
    });
  }
  for (const name of ["image_brightness", "image_contrast", "image_actual_size"]) {
    on(`change:${name}`, () => {
      board.settingsPane.sync();
      board.applyImageSettings();
    });
  }
}
