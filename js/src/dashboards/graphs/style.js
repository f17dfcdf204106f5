// The graph explorer's CSS (scoped under .tbnb like the Board's own, style.js), put in the card.

export const GRAPH_CSS = `
.tbnb .tbnb-card-graph{display:flex;flex-direction:column;height:620px;padding:6px}
.tbnb .tbnb-graph-bar{display:flex;flex-wrap:wrap;align-items:center;gap:6px;padding-bottom:6px}
.tbnb .tbnb-graph-bar label{font-size:12px;color:var(--tbnb-fg2);display:flex;align-items:center;gap:4px}
.tbnb .tbnb-graph-bar .tbnb-graph-searchbox{flex:1 1 160px;max-width:320px}
.tbnb .tbnb-graph-sub{font-size:11px;color:var(--tbnb-fg2);min-height:15px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tbnb .tbnb-graph-sub.tbnb-error{color:#c62828;white-space:normal}
.tbnb .tbnb-graph-main{flex:1;display:flex;min-height:0;gap:6px}
.tbnb .tbnb-graph-canvas{flex:1;position:relative;min-width:0;border:1px solid var(--tbnb-border);border-radius:4px;overflow:hidden;
background:#fafbfc;cursor:grab}
.tbnb .tbnb-graph-svg{display:block;width:100%;height:100%;user-select:none}
.tbnb .tbnb-gnode{cursor:pointer}
.tbnb .tbnb-gtoggle{cursor:pointer}
.tbnb .tbnb-graph-side{width:260px;flex:none;overflow:auto;font-size:12px;border:1px solid var(--tbnb-border);border-radius:4px;padding:6px}
.tbnb .tbnb-graph-legend-title,.tbnb .tbnb-graph-subtitle{font-weight:600;margin:6px 0 2px}
.tbnb .tbnb-graph-legend-item{display:flex;align-items:center;gap:6px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.tbnb .tbnb-graph-swatch{width:12px;height:12px;border:1px solid #9aa0a6;border-radius:2px;flex:none}
.tbnb .tbnb-graph-ramp{height:10px;border-radius:2px;background:linear-gradient(to right,#fff5eb,#7f2704);margin:2px 0}
.tbnb .tbnb-graph-grow{flex:1}
.tbnb .tbnb-graph-muted{color:var(--tbnb-fg2)}
.tbnb .tbnb-graph-error{color:#c62828;white-space:pre-wrap;word-break:break-word}
.tbnb .tbnb-graph-match{display:block;width:100%;text-align:left;border:0;background:none;padding:1px 2px;cursor:pointer;
overflow:hidden;white-space:nowrap;text-overflow:ellipsis;font-family:monospace;font-size:11px}
.tbnb .tbnb-graph-match:hover{background:var(--tbnb-hover)}
.tbnb .tbnb-graph-info-title{font-weight:600;font-size:13px;word-break:break-all;margin-top:6px}
.tbnb .tbnb-graph-info-id{font-family:monospace;font-size:11px;color:var(--tbnb-fg2);word-break:break-all}
.tbnb .tbnb-graph-props{border-collapse:collapse;width:100%;margin:4px 0}
.tbnb .tbnb-graph-props th{text-align:left;font-weight:500;color:var(--tbnb-fg2);padding:1px 6px 1px 0;vertical-align:top;white-space:nowrap}
.tbnb .tbnb-graph-props td{word-break:break-all;font-family:monospace;font-size:11px}
.tbnb .tbnb-graph-edge{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-family:monospace;font-size:11px}
.tbnb .tbnb-graph-trace{border:1px solid var(--tbnb-border);padding:0 8px}
`;
