// The CSS of the segmentation card and of the "compare runs" row of image, audio and histogram
// cards, added once to each Board's own <style> (style.js; the page allows no other), scoped
// like its rules. Canvases and images are scaled with hard pixel edges: a 32x32 mask or a grid
// of 3x3 filters stays readable at a card's width.

const CSS = `
.tbnb .tbnb-seg-toolbar{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin:0 4px 6px 0;font-size:12px}
.tbnb .tbnb-seg-modes{display:flex;gap:4px}
.tbnb .tbnb-seg-mode.tbnb-on,.tbnb .tbnb-compare-toggle.tbnb-on{color:var(--tbnb-accent);background:var(--tbnb-hover)}
.tbnb .tbnb-seg-opacity-field{display:flex;align-items:center;gap:6px;color:var(--tbnb-fg2)}
.tbnb .tbnb-seg-opacity-field[hidden]{display:none}
.tbnb .tbnb-seg-panes{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:6px;padding:0 4px 4px 0}
.tbnb .tbnb-seg-panes[data-mode="overlay"]{grid-template-columns:repeat(2,minmax(0,1fr))}
.tbnb .tbnb-seg-panes[data-mode="errors"]{grid-template-columns:minmax(0,1fr)}
.tbnb .tbnb-seg-pane{margin:0;min-width:0}
.tbnb .tbnb-seg-canvas{display:block;width:100%;height:auto;max-height:360px;object-fit:contain;image-rendering:pixelated;
background:var(--tbnb-bg2)}
.tbnb .tbnb-seg-pane figcaption{font-size:11px;color:var(--tbnb-fg2);text-align:center;margin-top:2px}
.tbnb .tbnb-seg-note{font-size:11px;color:var(--tbnb-fg2);margin:0 4px 4px 0}
.tbnb .tbnb-seg-legend{display:flex;flex-wrap:wrap;gap:4px 6px;margin:0 4px 6px 0}
.tbnb .tbnb-seg-class{display:inline-flex;align-items:center;gap:4px;padding:1px 6px;border:1px solid var(--tbnb-border);
border-radius:10px;background:var(--tbnb-bg);color:var(--tbnb-fg);font:inherit;font-size:11px;cursor:pointer}
.tbnb .tbnb-seg-class.tbnb-off{opacity:.45;text-decoration:line-through}
.tbnb .tbnb-seg-swatch{width:10px;height:10px;border-radius:2px;border:1px solid rgba(128,128,128,.5)}
.tbnb .tbnb-seg-iou{color:var(--tbnb-fg2);font-variant-numeric:tabular-nums}
.tbnb .tbnb-compare{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:6px;padding:0 4px 6px 0}
.tbnb .tbnb-compare-cell{min-width:0;font-size:11px;color:var(--tbnb-fg2)}
.tbnb .tbnb-compare-head{display:flex;align-items:center;gap:4px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;margin-bottom:2px}
.tbnb .tbnb-compare-toggle{font-size:11px;padding:0 6px;white-space:nowrap}
`;

const STYLED = new WeakSet();

/** Add the CSS to the <style> of `root` (the Board's root element) unless it is there. */
export function addMediaStyle(root) {
  const style = root && root.querySelector(":scope > style");
  if (!style || STYLED.has(root)) return;
  STYLED.add(root);
  style.textContent += CSS;
}
