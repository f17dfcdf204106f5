// The Board's CSS, shipped inside the bundle and put in a <style> in the widget root, so that
// the Python side needs no _css. JupyterLab's theme variables with light fallbacks; no web fonts.
// Rules are scoped under .tbnb (two classes) so that the host page's button and input styles lose.

import { DEFAULT_CARD_WIDTH } from "./constants.js";
import { DARK_CSS } from "./theme.js";

export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

const CSS = `
.tbnb{--tbnb-accent:#f57c00;--tbnb-border:var(--jp-border-color2,#e0e0e0);--tbnb-fg:var(--jp-ui-font-color1,#212121);
--tbnb-fg2:var(--jp-ui-font-color2,#616161);--tbnb-bg:var(--jp-layout-color1,#fff);--tbnb-bg2:var(--jp-layout-color2,#f5f5f5);
--tbnb-hover:rgba(0,0,0,.06);--tbnb-card-width:${DEFAULT_CARD_WIDTH}px;box-sizing:border-box;display:flex;flex-direction:column;height:760px;
min-height:300px;resize:vertical;overflow:hidden;border:1px solid var(--tbnb-border);border-radius:4px;background:var(--tbnb-bg);
color:var(--tbnb-fg);font:13px/1.4 ${FONT};text-align:left}
.tbnb *,.tbnb *::before,.tbnb *::after{box-sizing:border-box}
.tbnb button,.tbnb input,.tbnb select{font:inherit;color:inherit}
.tbnb input[type=checkbox],.tbnb input[type=range]{accent-color:var(--tbnb-accent)}
.tbnb .tbnb-icon{width:18px;height:18px;fill:currentColor;display:block}
.tbnb .tbnb-btn{display:inline-flex;align-items:center;justify-content:center;min-width:26px;height:26px;padding:0 4px;border:0;
border-radius:4px;background:none;color:var(--tbnb-fg2);cursor:pointer;font-size:11px;font-weight:600}
.tbnb .tbnb-btn:hover{background:var(--tbnb-hover);color:var(--tbnb-fg)}
.tbnb .tbnb-btn.tbnb-on{color:var(--tbnb-accent)}
.tbnb .tbnb-btn:focus-visible,.tbnb summary:focus-visible{outline:2px solid var(--tbnb-accent);outline-offset:-2px}
.tbnb .tbnb-input{height:28px;padding:0 8px;border:1px solid var(--tbnb-border);border-radius:4px;background:var(--tbnb-bg);min-width:0}
.tbnb .tbnb-input:focus{outline:none;border-color:var(--tbnb-accent)}
.tbnb .tbnb-input.tbnb-invalid{border-color:#d32f2f;background:#fdecea}
.tbnb .tbnb-top{display:flex;align-items:center;gap:10px;padding:6px 8px 6px 12px;border-bottom:1px solid var(--tbnb-border)}
.tbnb .tbnb-title{font-weight:600;color:var(--tbnb-accent);white-space:nowrap;letter-spacing:.02em}
.tbnb .tbnb-tagfilter{flex:1 1 240px;max-width:520px}
.tbnb .tbnb-status{flex:1 1 auto;color:var(--tbnb-fg2);font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;text-align:right}
.tbnb .tbnb-problems{color:#b26a00;cursor:pointer;border:0;background:none;padding:0;font-size:12px}
.tbnb .tbnb-problem-list{margin:0;padding:6px 12px 6px 28px;max-height:120px;overflow:auto;font-size:12px;color:#7a4a00;
background:#fff8e1;border-bottom:1px solid var(--tbnb-border)}
.tbnb .tbnb-banner{display:flex;align-items:flex-start;gap:8px;padding:6px 8px 6px 12px;background:#fdecea;color:#b71c1c;font-size:12px;
border-bottom:1px solid #f5c6cb;white-space:pre-wrap;word-break:break-word}
.tbnb .tbnb-banner span{flex:1}
.tbnb .tbnb-body{flex:1;display:flex;min-height:0}
.tbnb .tbnb-runs{width:210px;flex:none;display:flex;flex-direction:column;border-right:1px solid var(--tbnb-border);min-height:0}
.tbnb .tbnb-runs .tbnb-input{margin:8px}
.tbnb .tbnb-runs-head{display:flex;align-items:center;gap:8px;padding:4px 8px;border-bottom:1px solid var(--tbnb-border);font-weight:600}
.tbnb .tbnb-runs-head span{flex:1}
.tbnb .tbnb-runs-count{flex:none!important;color:var(--tbnb-fg2);font-weight:400;font-size:12px}
.tbnb .tbnb-runs-list{flex:1;overflow:auto;padding:2px 0}
.tbnb .tbnb-run{display:flex;align-items:center;gap:8px;padding:3px 8px;position:relative}
.tbnb .tbnb-run:hover{background:var(--tbnb-hover)}
.tbnb .tbnb-run label{display:flex;align-items:center;gap:8px;flex:1;min-width:0;cursor:pointer}
.tbnb .tbnb-run-name{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tbnb .tbnb-swatch{width:14px;height:14px;flex:none;border-radius:50%;border:0;padding:0;cursor:pointer}
.tbnb .tbnb-swatch:hover{box-shadow:0 0 0 2px var(--tbnb-border)}
.tbnb .tbnb-focus{flex:none;border:0;background:none;padding:0 2px;cursor:pointer;color:inherit;opacity:0;font-size:13px;line-height:1}
.tbnb .tbnb-run:hover .tbnb-focus,.tbnb .tbnb-focus:focus-visible,.tbnb .tbnb-focus[aria-pressed="true"]{opacity:.8}
.tbnb .tbnb-run-focused .tbnb-run-name{font-weight:600}
.tbnb .tbnb-colorpicker{position:absolute;right:4px;top:2px;width:1px;height:1px;opacity:0;border:0;padding:0;pointer-events:none}
.tbnb .tbnb-main{flex:1;min-width:0;overflow:auto}
.tbnb .tbnb-empty{padding:28px 16px;color:var(--tbnb-fg2);text-align:center;font-style:italic}
.tbnb .tbnb-section-head{position:sticky;top:0;z-index:3;display:flex;align-items:center;gap:8px;width:100%;padding:6px 12px;border:0;
border-bottom:1px solid var(--tbnb-border);background:var(--tbnb-bg2);cursor:pointer;text-align:left}
.tbnb .tbnb-section-head b{font-weight:600}
.tbnb .tbnb-section-head small{color:var(--tbnb-fg2)}
.tbnb .tbnb-section-head .tbnb-icon{transition:transform .15s;margin-left:auto}
.tbnb .tbnb-collapsed .tbnb-section-head .tbnb-icon{transform:rotate(-90deg)}
.tbnb .tbnb-pinned-hint{padding:10px;color:var(--tbnb-fg2);font-style:italic;text-align:center;font-size:12px}
.tbnb .tbnb-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(var(--tbnb-card-width),100%),1fr));gap:12px;padding:12px}
.tbnb .tbnb-card{content-visibility:auto;contain-intrinsic-size:auto 280px;min-width:0;border:1px solid var(--tbnb-border);border-radius:4px;background:var(--tbnb-bg);padding:6px 6px 2px 10px}
.tbnb .tbnb-card.tbnb-expanded{grid-column:1/-1}
.tbnb .tbnb-card-head{display:flex;align-items:center;gap:2px;min-height:26px}
.tbnb .tbnb-card-title{flex:1;min-width:0;font-weight:500;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tbnb .tbnb-card-sub{font-size:11px;color:var(--tbnb-fg2);min-height:15px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tbnb .tbnb-card-sub.tbnb-error{color:#c62828;white-space:normal}
.tbnb .tbnb-plot{height:230px;width:100%}
.tbnb .tbnb-plot:focus{outline:none}
.tbnb .tbnb-expanded .tbnb-plot{height:420px}
.tbnb .tbnb-menu{position:relative}
.tbnb .tbnb-menu summary{list-style:none}
.tbnb .tbnb-menu summary::-webkit-details-marker{display:none}
.tbnb .tbnb-menu-items{position:absolute;right:0;top:28px;z-index:5;display:flex;flex-direction:column;min-width:120px;padding:4px 0;
background:var(--tbnb-bg);border:1px solid var(--tbnb-border);border-radius:4px;box-shadow:0 2px 8px rgba(0,0,0,.15)}
.tbnb .tbnb-menu-items button{border:0;background:none;text-align:left;padding:6px 12px;cursor:pointer}
.tbnb .tbnb-menu-items button:hover{background:var(--tbnb-hover)}
.tbnb .tbnb-settings{width:240px;flex:none;overflow:auto;border-left:1px solid var(--tbnb-border);padding:4px 14px 14px}
.tbnb .tbnb-settings[hidden]{display:none}
.tbnb .tbnb-settings h3{margin:14px 0 8px;font-size:11px;font-weight:600;letter-spacing:.06em;color:var(--tbnb-fg2);text-transform:uppercase}
.tbnb .tbnb-settings-head{display:flex;align-items:center;justify-content:space-between;font-weight:600;font-size:14px;padding-top:8px}
.tbnb .tbnb-field{display:block;margin:0 0 12px}
.tbnb .tbnb-field>span{display:block;font-size:12px;color:var(--tbnb-fg2);margin-bottom:3px}
.tbnb .tbnb-row{display:flex;align-items:center;gap:8px}
.tbnb .tbnb-row input[type=range]{flex:1;min-width:0}
.tbnb .tbnb-number{width:72px}
.tbnb .tbnb-check{display:flex;align-items:center;gap:8px;margin:0 0 10px;cursor:pointer}
.tbnb .tbnb-select{width:100%}
.tbnb [hidden]{display:none!important}
.tbnb .tbnb-tabs{display:flex;gap:2px;padding:0 8px;border-bottom:1px solid var(--tbnb-border);background:var(--tbnb-bg2);overflow-x:auto;flex:none}
.tbnb .tbnb-tab{border:0;border-bottom:2px solid transparent;background:none;padding:7px 10px 5px;cursor:pointer;font-size:12px;font-weight:600;
letter-spacing:.04em;text-transform:uppercase;color:var(--tbnb-fg2);white-space:nowrap}
.tbnb .tbnb-tab:hover{color:var(--tbnb-fg)}
.tbnb .tbnb-tab.tbnb-on{color:var(--tbnb-accent);border-bottom-color:var(--tbnb-accent)}
.tbnb .tbnb-tab:focus-visible{outline:2px solid var(--tbnb-accent);outline-offset:-2px}
.tbnb .tbnb-cardtypes{display:flex;gap:10px;flex:none}
.tbnb .tbnb-cardtypes .tbnb-check{margin:0;font-size:12px;gap:4px}
.tbnb .tbnb-row-start{grid-column-start:1}
.tbnb .tbnb-dot{display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:5px;vertical-align:middle}
.tbnb .tbnb-card-meta.tbnb-error{color:#c62828}
.tbnb .tbnb-body-histograms,.tbnb .tbnb-body-distributions{height:230px;width:100%}
.tbnb .tbnb-expanded .tbnb-body-histograms,.tbnb .tbnb-expanded .tbnb-body-distributions{height:420px}
.tbnb .tbnb-step-row{display:flex;align-items:center;gap:8px;margin:2px 4px 4px 0}
.tbnb .tbnb-step-slider{flex:1;min-width:0}
.tbnb .tbnb-step-text,.tbnb .tbnb-blob-info,.tbnb .tbnb-text-step{font-size:11px;color:var(--tbnb-fg2)}
.tbnb .tbnb-step-text{white-space:nowrap}
.tbnb .tbnb-blob-info{margin:0 4px 4px 0;overflow-wrap:anywhere}
.tbnb .tbnb-items{display:flex;flex-direction:column;gap:6px;padding:0 4px 6px 0}
.tbnb .tbnb-items-images.tbnb-batch{display:grid;grid-template-columns:repeat(auto-fill,minmax(120px,1fr))}
.tbnb .tbnb-image{overflow:auto;max-height:640px}
.tbnb .tbnb-image img{display:block;width:100%;height:auto;max-height:320px;object-fit:contain;filter:var(--tbnb-image-filter,none)}
.tbnb .tbnb-image img.tbnb-pixelated{image-rendering:pixelated}
.tbnb.tbnb-actual-size .tbnb-image img{width:auto;height:auto;max-width:none;max-height:none}
.tbnb .tbnb-audio{width:100%}
.tbnb .tbnb-placeholder{padding:16px 8px;text-align:center;color:var(--tbnb-fg2);font-size:12px;background:var(--tbnb-bg2);border-radius:4px;
overflow-wrap:anywhere}
.tbnb .tbnb-body-text{max-height:360px;overflow:auto;padding:0 4px 6px 0}
.tbnb .tbnb-expanded .tbnb-body-text{max-height:none}
.tbnb .tbnb-text-item{padding:6px 0;border-top:1px solid var(--tbnb-border)}
.tbnb .tbnb-text-item:first-child{border-top:0}
.tbnb .tbnb-markdown{overflow-wrap:anywhere}
.tbnb .tbnb-markdown>:first-child{margin-top:0}
.tbnb .tbnb-markdown :is(p,ul,ol,pre,table,blockquote,h1,h2,h3,h4,h5,h6){margin:4px 0}
.tbnb .tbnb-markdown :is(h1,h2,h3,h4,h5,h6){font-size:14px}
.tbnb .tbnb-markdown pre{padding:6px;background:var(--tbnb-bg2);overflow:auto}
.tbnb .tbnb-markdown code{font-family:var(--jp-code-font-family,monospace);font-size:12px}
.tbnb .tbnb-markdown blockquote{border-left:3px solid var(--tbnb-border);padding-left:8px;color:var(--tbnb-fg2)}
.tbnb .tbnb-markdown img{max-width:100%}
.tbnb .tbnb-markdown a[href]{color:var(--jp-content-link-color,#1976d2)}
.tbnb .tbnb-table-wrap{overflow:auto}
.tbnb :is(.tbnb-markdown,.tbnb-table-wrap) table{border-collapse:collapse}
.tbnb :is(.tbnb-markdown,.tbnb-table-wrap) :is(td,th){border:1px solid var(--tbnb-border);padding:2px 6px;vertical-align:top}
.tbnb .tbnb-markdown th:not([align]){text-align:left}
.tbnb .tbnb-text-table caption{caption-side:bottom;font-size:11px;color:var(--tbnb-fg2);text-align:left}
.tbnb .tbnb-more{border:1px solid var(--tbnb-border);background:none;border-radius:4px;padding:3px 10px;cursor:pointer;margin-top:4px;font-size:12px}
`;

/** A <style> element with the Board's CSS (one per Board root). */
export function styleElement() {
  const style = document.createElement("style");
  style.textContent = CSS + DARK_CSS; // one style element per Board: the dark theme's rules too
  return style;
}
