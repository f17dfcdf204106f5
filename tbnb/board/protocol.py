"""The Board's wire protocol between the kernel (Python) and the page (JS), version 1.

The kernel owns the data; the page draws and asks for what it shows. Settings live in synced
traits (small, saved with the notebook, settable from Python); data travels as custom messages
whose arrays are binary buffers, never JSON lists, so nothing big is saved in the notebook.

Synced traits (same names on both sides; JS reads them with ``model.get(name)``)
-----------------------------------------------------------------------------
``dashboard``        "timeseries" (default) | "scalars"
``smoothing``        float in [0, 0.999], default 0.6 (TensorBoard's debiased EMA, done in JS)
``x_axis``           "step" (default) | "relative" | "wall"
``log_y``            bool, default False (every scalar card; a card can also toggle its own)
``ignore_outliers``  bool, default True (TensorBoard's 5%-95% rule on the y domain)
``runs``             list of regexes; a run is shown if it fully matches one; default [".*"]
``hidden_runs``      list of run names switched off in the run selector; default []
``run_colors``       {run: "#rrggbb"}: the kernel fills it in order of discovery from
                     TensorBoard's palette; the page's colour pickers write it back
``tag_filter``       regex, case-insensitive, default "" (an invalid regex filters nothing)
``pinned``           list of tags pinned to the top section
``card_width``       int px, default 420
``view``             written by the page: {"tags": {tag: {"x": [x0, x1] | null}}, "x_axis": ...}:
                     the x range each card is zoomed to (null: not zoomed). Read back in Python
                     as ``Board.view`` (a DataFrame of the points shown). The Python trait is
                     ``Board.view_state`` (``Board.view`` is that DataFrame); on the wire and in
                     JS the name stays ``view``.
``status``           written by the kernel: {"runs": n, "tags": n, "points": n, "problems": n,
                     "polling": bool, "last_reload": epoch seconds, "message": str | null}
                     ``last_reload``: when a reload last found new data; ``message``: something
                     to show the user, e.g. "waiting for /path/runs to be created" (a live
                     board on a logdir that training has not created yet), null otherwise

Messages (``model.send(content, callbacks, buffers)`` / ``msg:custom``)
---------------------------------------------------------------------
Every message is a dict with ``"type"``; arrays go in ``buffers`` and are described in the
content by ``{"buffer": i, "dtype": "float64" | "float32" | "int64" | "uint8", "shape": [..]}``
(``codec.py`` and ``js/src/codec.js`` are the only places that pack and unpack them).

Page -> kernel
  {"type": "plotly"}            the page has no plotly.js yet (it caches one on globalThis)
  {"type": "index"}             ask for runs and tags
  {"type": "series", "id": int, "tag": str, "runs": [str], "x_axis": str,
   "range": [x0, x1] | null, "width": int}
                                one card's data: every run's points of ``tag``; with ``range``
                                the points with x in it (on the given axis), else all; at most
                                about ``width`` points per run: min/max-preserving downsample,
                                exact points when a series has no more than ``2 * width``
                                points in range.
  {"type": "csv" | "json", "id": int, "tag": str, "runs": [str]}
                                a card's full data for download (text in the reply)
Kernel -> page
  {"type": "plotly", "version": str} + buffers [plotly.min.js bytes]
  {"type": "index", "runs": [{"name", "color", "start_time"}],
   "tags": [{"tag", "plugin", "runs": [str], "points": {run: n}}], "problems": [str]}
  {"type": "series", "id", "tag", "x_axis", "range",
   "series": [{"run", "total": n, "sent": n, "exact": bool,
               "x": array float64, "y": array float64, "step": array int64,
               "wall_time": array float64}]}
                                ``total`` counts the run's points in range before downsampling;
                                ``wall_time`` (each point's epoch seconds) was added so that
                                tooltips can show time on any x axis
  {"type": "download", "id", "tag", "format": "csv" | "json", "text": str}
  {"type": "changed", "runs": [...], "tags": {run: [tag, ...]}, "new_runs": [...],
   "new_tags": [...], "removed_runs": [...]}
                                after a poll found new data: the page re-asks ``series`` for
                                the visible cards whose tag changed (and ``index`` if runs or
                                tags appeared); cards keep their zoom
  {"type": "error", "id": int | null, "message": str}

x values: "step" -> the step; "relative" -> seconds since the run's first event;
"wall" -> epoch seconds (the page shows dates).
"""

from __future__ import annotations

VERSION = 1

DASHBOARDS = ("timeseries", "scalars")
X_AXES = ("step", "relative", "wall")

#: TensorBoard's run colour palette, assigned in order of first appearance.
PALETTE = ("#425066", "#12b5cb", "#e52592", "#f9ab00", "#9334e6", "#7cb342", "#e8710a")

#: TensorBoard's defaults.
DEFAULT_SMOOTHING = 0.6
DEFAULT_RELOAD_INTERVAL = 2.0
DEFAULT_CARD_WIDTH = 420
