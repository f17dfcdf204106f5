// Fitting a drawn plotly chart to its box after the box changed size (card width, settings pane,
// expand). A card off screen is not touched then: it is fitted when it is next on screen, so a
// resize of the whole board costs only the visible charts.

export class PlotFit {
  /** `card`: {board, plot, drawn, visible, destroyed}, read at each call. */
  constructor(card) {
    this.card = card;
    this.frame = null;
    this.missed = false; // resized while off screen
  }

  /** The box changed size: fit at the next frame, or when next on screen. */
  resized() {
    const card = this.card;
    if (!card.drawn) return; // the first draw takes the box's size
    if (!card.visible) {
      this.missed = true;
      return;
    }
    this.missed = false;
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      const Plotly = card.board.plotly;
      if (Plotly && card.drawn && !card.destroyed && card.el.isConnected) Plotly.Plots.resize(card.plot);
    });
  }

  /** The card came on screen: catch up on a resize it missed. */
  shown() {
    if (this.missed) this.resized();
  }

  destroy() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
  }
}
