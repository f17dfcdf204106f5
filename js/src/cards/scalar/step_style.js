// Step selection's settings and CSS, shared by the settings pane and the scalar cards: the
// tooltip sorting methods, and the CSS of the markers, band, data table and tooltip, added once
// to each Board's own <style> (style.js; the page allows no other), scoped like its rules.

/** TensorBoard's tooltip sorting methods (the `tooltip_sort` trait's values). */
export const TOOLTIP_SORTS = ["default", "ascending", "descending", "nearest"];

const CSS = `
.tbnb .tbnb-card-steps{position:relative}
.tbnb .tbnb-nested{margin-left:22px}
.tbnb .tbnb-step-layer{position:absolute;pointer-events:none;overflow:hidden}
.tbnb .tbnb-step-marker{position:absolute;width:12px;margin-left:-6px;pointer-events:auto;cursor:ew-resize;touch-action:none;z-index:2}
.tbnb .tbnb-step-marker::after{content:"";position:absolute;left:5px;top:0;bottom:0;border-left:2px dotted var(--tbnb-fg)}
.tbnb .tbnb-step-handle{position:absolute;bottom:-18px;left:50%;transform:translateX(-50%);padding:0 6px;border:1px solid var(--tbnb-border);
border-radius:9px;background:var(--tbnb-bg2);font-size:11px;line-height:15px;white-space:nowrap;cursor:ew-resize;z-index:3}
.tbnb .tbnb-step-handle:focus-visible,.tbnb .tbnb-step-handle:focus{outline:2px solid var(--tbnb-accent);outline-offset:0}
.tbnb .tbnb-step-band{position:absolute;background:rgba(245,124,0,.12);pointer-events:none}
.tbnb .tbnb-step-table{position:relative;margin:22px 0 4px;max-height:220px;overflow:auto;font-size:12px}
.tbnb .tbnb-table-head{position:absolute;right:0;top:0;z-index:2}
.tbnb .tbnb-columns .tbnb-menu-items{padding:4px 8px;max-height:180px;overflow:auto;min-width:160px}
.tbnb .tbnb-columns .tbnb-check{margin:2px 0;font-size:12px;white-space:nowrap}
.tbnb .tbnb-data-table{border-collapse:collapse;width:100%}
.tbnb .tbnb-data-table th{font-weight:600;text-align:left;padding:3px 6px;border-bottom:1px solid var(--tbnb-border);white-space:nowrap}
.tbnb .tbnb-data-table th.tbnb-sortable{cursor:pointer}
.tbnb .tbnb-data-table td{padding:2px 6px;white-space:nowrap;font-variant-numeric:tabular-nums}
.tbnb .tbnb-data-table .tbnb-swatch-cell{width:16px;padding-right:0}
.tbnb .tbnb-data-table .tbnb-run-cell{max-width:160px;overflow:hidden;text-overflow:ellipsis}
.tbnb .tbnb-empty-table{color:var(--tbnb-fg2);font-style:italic;padding:4px 6px}
.tbnb .tbnb-tooltip{position:absolute;z-index:5;max-width:260px;padding:4px 6px;border:1px solid var(--tbnb-border);border-radius:4px;
background:var(--tbnb-bg);box-shadow:0 2px 6px rgba(0,0,0,.15);font-size:11px;pointer-events:none}
.tbnb .tbnb-tip-row{display:flex;align-items:center;gap:6px;white-space:nowrap;overflow:hidden}
.tbnb .tbnb-tip-more{color:var(--tbnb-fg2);font-style:italic}
`;

const STYLED = new WeakSet();

/** Add the CSS to the <style> of `root` (the Board's root element) unless it is there. */
export function addStepStyle(root) {
  const style = root && root.querySelector(":scope > style");
  if (!style || STYLED.has(root)) return;
  STYLED.add(root);
  style.textContent += CSS;
}
