"""The Board's wire protocol between the kernel (Python) and the page (JS), version 1.

The kernel owns the data; the page draws and asks for what it shows. Settings live in synced
traits (small, saved with the notebook, settable from Python); data travels as custom messages
whose arrays are binary buffers, never JSON lists, so nothing big is saved in the notebook.

Synced traits (same names on both sides; JS reads them with ``model.get(name)``)
-----------------------------------------------------------------------------
``dashboard``        "timeseries" (default) | "scalars"
``smoothing``        float in [0, 0.999], default 0.6 (TensorBoard's debiased EMA, done in JS)
``x_axis``           "step" (default) | "relative" | "wall" | "log_step" | "relative_step", or the
                     name of a scalar tag (x = that tag's value at each point's step;
                     dashboards/scalar_axes.py); non-scalar cards draw a tag axis as "step"
``best``             "min" | "max" | null (default): each run's best point marked on scalar cards
``focus``            a run name | null: that run's lines on top, the others faded (a click sets it)
``partition_x``      bool, default False: a run whose x goes back is drawn as separate segments
``restarts``         "purge" (the only mode; dashboards/scalar_best.py says why)
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
``router.py`` routes each request to the board's core (``plotly``, ``index``: core.py) or to the
dashboard module that declares its type (dashboards/__init__.py); a failure is an ``error`` reply.

Page -> kernel
  {"type": "plotly"}            the page has no plotly.js yet (it caches one on globalThis)
  {"type": "index"}             ask for runs and tags
  {"type": "series", "id": int, "tag": str, "runs": [str], "x_axis": str,
   "range": [x0, x1] | null, "width": int, "best": "min" | "max" | null (optional)}
                                one card's data: every run's points of ``tag``; with ``range``
                                the points with x in it (on the given axis), else all; at most
                                about ``width`` points per run: min/max-preserving downsample
                                (the min and max of each two pixel columns), exact points when
                                a series has no more than ``width`` points in range.
  {"type": "csv" | "json", "id": int, "tag": str, "runs": [str], "best": "min" | "max" | null}
                                a card's full data for download (text in the reply); with
                                ``best`` the CSV has two more columns, Best and Best step
Kernel -> page
  {"type": "plotly", "version": str} + buffers [plotly.min.js bytes]
                                the reply to {"type": "plotly"}; the first Board of a kernel
                                also sends it unasked as soon as its comm opens, before it
                                reads the logdir, so that the page runs plotly.js while the
                                kernel reads (the page takes it from the model, view or not)
  {"type": "index", "runs": [{"name", "color", "start_time"}],
   "tags": [{"tag", "plugin", "runs": [str], "points": {run: n}}], "problems": [str]}
  {"type": "series", "id", "tag", "x_axis", "range", "best", "absent": [run],
   "series": [{"run", "total": n, "sent": n, "exact": bool,
               "x": array float64, "y": array float64, "step": array int64,
               "wall_time": array float64, "dropped": n,
               "best": {"value": float, "step": int, "x": float | null} | null}]}
                                ``total`` counts the run's points in range before downsampling;
                                ``wall_time`` (each point's epoch seconds) was added so that
                                tooltips can show time on any x axis; ``dropped``: points the
                                axis cannot place (step <= 0 on log_step, before the x tag's
                                first step); ``best``: the run's best point over all its points;
                                ``absent``: runs holding the tag but not the x tag
  {"type": "download", "id", "tag", "format": "csv" | "json", "text": str}
  {"type": "changed", "runs": [...], "tags": {run: [tag, ...]}, "new_runs": [...],
   "new_tags": [...], "removed_runs": [...]}
                                after a poll found new data: the page re-asks ``series`` for
                                the visible cards whose tag changed (and ``index`` if runs or
                                tags appeared); cards keep their zoom. The kernel also pushes
                                fresh replies itself: see "Pushed replies" below
  {"type": "error", "id": int | null, "message": str}

Dashboards beyond scalars (version 1 additions; traits first)
--------------------------------------------------------------
``dashboard`` also takes "histograms" | "distributions" | "images" | "audio" | "text".
``card_types``       list of "scalars" | "histograms" | "images" | "pr_curves": which card types
                     the time series dashboard shows (TensorBoard's card-type filter); default
                     TensorBoard's three ("pr_curves": PR cards, see below, only when listed)
``histogram_mode``   "offset" (default) | "overlay"
``image_brightness`` int 0..2000, default 1000; ``image_contrast`` int 0..5000, default 1000
                     (applied as CSS ``contrast(c/10 %) brightness(b/1000)``, TensorBoard's way)
``image_actual_size`` bool, default False
``max_blob_bytes``   int, default 4 MiB: an image, audio clip or text larger than this is not
                     sent; the page shows a placeholder saying how big it is

Page -> kernel
  {"type": "histograms", "id", "tag", "runs": [str], "x_axis": str}
                                per run: the sampled steps of a histogram tag, rebinned in the
                                kernel to 30 equal bins over the min/max of all of that run's
                                shown steps (TensorBoard's algorithm, tensorboard-format.md s. 6)
  {"type": "distributions", "id", "tag", "runs": [str], "x_axis": str}
                                per run: the nine basis-point values of each sampled step
                                (TensorBoard's compressor)
  {"type": "blobs", "id", "tag", "runs": [str]}
                                images/audio/text tags: the sampled steps of each run, without
                                the bytes
  {"type": "blob", "id", "tag", "run": str, "step": int, "index": int}
                                one image of a step (``index`` within a batch) or one audio clip
  {"type": "text", "id", "tag", "run": str}
                                every sampled step's text of a text tag
Kernel -> page
  {"type": "histograms", "id", "tag", "x_axis",
   "series": [{"run", "steps": int64[S], "x": float64[S], "edges": float64[31],
               "counts": float64[S, 30]}]}
  {"type": "distributions", "id", "tag", "x_axis",
   "series": [{"run", "steps": int64[S], "x": float64[S], "values": float64[S, 9]}]}
                                columns of ``values``: basis points 0, 668, 1587, 3085, 5000,
                                6915, 8413, 9332, 10000 (min ... median ... max)
  {"type": "blobs", "id", "tag", "plugin",
   "runs": [{"run", "steps": [int], "wall_times": [float], "counts": [int],
             "labels": [str] | null, "sample_rates": [float] | null}]}
                                ``counts``: images in each step's batch, or audio clips (TF2 can
                                write several a step; ``blob``'s ``index`` picks one)
  {"type": "blob", "id", "tag", "run", "step", "index", "mime": str | null, "size": int,
   "width": int | null, "height": int | null, "status": "ok" | "too_large" | "unsupported"}
                                + buffers [bytes] only when status is "ok". ``mime`` comes from
                                the bytes' magic numbers, never from the file's claims: images
                                PNG, JPEG, GIF, WebP, BMP; audio WAV, OGG, MP3, FLAC. Anything
                                else (SVG, HTML, garbage) is "unsupported" and no bytes are sent.
  {"type": "text", "id", "tag", "run",
   "items": [{"step", "wall_time", "kind": "markdown" | "table", "markdown": str | null,
              "rows": [[str]] | null, "size": int, "status": "ok" | "too_large"}]}
                                rank 0 -> markdown source (the page renders and sanitises it);
                                rank 1 and 2 -> table rows of text (rank > 2: the first 2-D slice);
                                bytes that are not UTF-8 are decoded with replacement characters

PR curves and custom scalars (version 1 additions)
--------------------------------------------------
``dashboard`` also takes "pr_curves" | "custom_scalars".

Page -> kernel
  {"type": "pr_curves", "id", "tag", "runs": [str], "steps": {run: int} | null}
                                one PR card: each run's curve of a ``pr_curves`` tag at the step
                                ``steps`` names for it (that step, else the nearest, the earlier
                                on a tie), its last step when ``steps`` is null or omits it
  {"type": "custom_scalars", "id", "runs": [str]}
                                the ``custom_scalars__config__`` layouts of every run, merged as
                                TensorBoard merges them, each chart resolved to the scalar tags of
                                ``runs``; a chart's points are then asked with ``series``, one
                                request per tag
Kernel -> page
  {"type": "pr_curves", "id", "tag", "steps",
   "series": [{"run", "steps": int64[S], "step": int | null, "wall_time": float | null,
               "thresholds", "precision", "recall", "true_positives", "false_positives",
               "true_negatives", "false_negatives": float64[T]}],
   "problems": [str]}
                                ``steps``: the run's readable sampled steps (for the slider);
                                ``step``: the one drawn (null, and empty arrays, when none is
                                readable); thresholds are ``linspace(0, 1, T)`` of the tensor's
                                width with the tail where TP + FP is 0 cut (TensorBoard's). A
                                step whose tensor is not a numeric ``[6, T]`` is one of
                                ``problems`` (text naming run, tag and step), not an error
  {"type": "custom_scalars", "id", "layout_runs": [str], "problems": [str],
   "categories": [{"title": str, "closed": bool,
                   "charts": [{"title": str, "kind": "multiline" | "margin" | "",
                               "regexes": [str], "margin": [{"value", "lower", "upper"}],
                               "tags": {run: [tag]},
                               "series": {run: [[value, lower | null, upper | null]]},
                               "errors": [str]}]}]}
                                ``tags`` (multiline): each run's scalar tags one of ``regexes``
                                matches at its start (Python ``re.match``); ``series`` (margin):
                                the series whose value tag the run has, a missing bound null;
                                ``errors``: what is wrong with that chart alone (an invalid or
                                empty regex, no series); ``layout_runs``: the runs that wrote a
                                layout. Titles, regexes and tags are text, never markup.
``pr_curves`` requests are pushed (by tag and runs, as ``histograms``); a new layout is a
``changed`` of tag ``custom_scalars__config__``, after which the page asks again.
HParams and mesh (version 1 additions)
-------------------------------------
``dashboard`` also takes "hparams" | "mesh": each is one card filling the area (layout.js,
``whole``), laid out while any run has a tag of the plugin, whatever ``runs`` selects.
``hparams_join``     "" (default) | "parent": the hparams table also joins the last value of each
                     scalar of the run above each trial (torch's ``add_hparams`` writes a trial
                     into a sub-run; its training curves stay in the run above)
Selecting trials (table rows, or ``Board.select_trials``) writes ``runs``: an exact-match regex
per trial's run and per parent run the logdir has (regex metacharacters escaped with a backslash, so
that Python's ``re`` and JS read it alike); selecting none writes [".*"].

Page -> kernel
  {"type": "hparams", "id", "join": "" | "parent"}
                                the whole table, every trial whatever ``runs`` selects
  {"type": "meshes", "id"}      the mesh names (a mesh has a tag per component, named
                                differently by each writer) and the runs holding each
  {"type": "mesh", "id", "tag": name, "runs": [str], "steps": {run: step} | null,
   "sample": int (default 0)}   one mesh's chosen step in each run: ``steps[run]`` or the
                                nearest step the run has, the last step when not given
Kernel -> page
  {"type": "hparams", "id", "join", "experiment": {"name", "description", "user", "time_created"},
   "columns": [{"key", "kind": "run" | "status" | "start_time" | "hparam" | "metric", "type",
                ...hparam: "name", "display_name", "description", "domain": [v] | null,
                "interval": [lo, hi] | null; metric: "tag", "group", "source": "session" |
                "parent", "display_name"}],
   "trials": [{"run", "parent": str | null, "values": [one per column]}], "problems": [str]}
                                values are numbers, text, bools or null (a metric without a
                                point); the page shows them as text, never markup
  {"type": "meshes", "id", "meshes": [{"name", "runs": [str]}]}
  {"type": "mesh", "id", "tag", "runs": [{"run", "steps": int64[S], "step": int | null,
   "wall_time", "samples": int, "sample": int, "vertices": float32[N, 3] | null,
   "faces": int64[F, 3] | null, "colors": uint8[N, 3] | null, "config": {...} | null,
   "problems": [str]}]}        ``faces`` null: a point cloud. ``config`` is the writer's
                                three.js JSON (camera, lights, material), as written

Pushed replies (version 1 addition)
-----------------------------------
The page's requests are answered on the kernel's main thread, so while a cell runs (a training
loop) they wait, and re-asking after ``changed`` cannot keep a chart live. So the kernel
remembers the latest ``series``, ``histograms`` and ``distributions`` request it answered for each
card: per tag and kind for ``series`` (whole range, or zoomed: the latest ``range``), per tag and
``runs`` for the others; at most 256 (``pushed.MAX_REMEMBERED``; the least recently asked go
first; each dashboard module says which of its request types are remembered, and by what
key: ``PUSHED`` in dashboards/). After each ``changed`` it sends, from the poll thread, a fresh
reply to every remembered request one of whose runs changed that tag (or was removed):
  the request's usual reply, with the request's ``id``, plus
  "push": true, "runs": [str]   (the ``runs`` the request asked for)
The page applies a pushed reply to a card whose current request (pending, or the last one whose
reply it applied) has that ``id``, or whose current request asks the same (type, tag, runs, x axis,
range; any width): a twin card in the pinned section, or another view of the same widget. It keeps
the card's zoom and hover, and does not settle the pending request (its own reply still comes).
The page still re-asks after ``changed``; when the kernel is idle that reply follows the push.
Pushing stops when the widget is closed.

Step selection and the data table (version 1 addition; scalar cards)
--------------------------------------------------------------------
TensorBoard 2.x's step marker and the table of every run under each scalar card.
``step_selection``   bool, default True: the dotted marker and the table under scalar cards
``selected_step``    int | null, default null (each card's largest step); set by dragging a
                     marker when ``link_step`` is on
``range_selection``  bool, default False: two markers and a band; the table summarises the range
``selected_range``   [lo, hi] steps | null (each card's first to last step); the kernel sorts it
``link_step``        bool, default True: every card shows the board's selection; off, a dragged
                     card keeps its own in ``card_steps``
``card_steps``       {tag: {"step": int | null, "range": [lo, hi] | null}}, written by the page
``tooltip_sort``     "default" | "ascending" | "descending" | "nearest": the hover rows' order
``tooltip_rows``     int >= 0, default 0 (no limit): most hover rows shown

Page -> kernel
  {"type": "step_table", "id", "tag", "runs": [str], "step": int | null,
   "range": [lo, hi] | null, "ranged": bool, "smoothing": float}
                                the card's table: at ``step`` (null: the largest step of the
                                runs), or with ``ranged`` over ``range`` (null: all steps).
                                ``runs`` are the card's shown runs; ``smoothing`` the weight the
                                page draws with (the kernel smooths the full series with it)
Kernel -> page
  {"type": "step_table", "id", "tag", "mode": "step" | "range", "step": int | null,
   "range": [lo, hi] | null, "smoothing": float,
   "columns": {"run": [str], <name>: array}}
                                one entry per run holding points of ``tag``; at a step: ``step``
                                int64 (each run's closest point, TensorBoard's rule:
                                dashboards/step_table.py), ``value``, ``smoothed``, ``relative``
                                (s since the run's first event), ``wall`` float64. Over a range:
                                ``start_step``, ``end_step``, ``step_at_min``, ``step_at_max``,
                                ``points`` int64 (-1: no point); ``start``, ``end``, ``change``,
                                ``percent_change``, ``min``, ``max`` (smoothed), ``raw_change``,
                                ``mean`` (raw), ``start_relative``, ``end_relative``,
                                ``start_wall``, ``end_wall`` float64 (NaN: no point in range).
                                Remembered and pushed per tag, like ``series``
Projector (version 1 addition; dashboards/projector.py, projector/)
--------------------------------------------------------------------
``dashboard`` also takes "projector": one card filling the area (js layout.js ``fills``).
``projector_run``        run holding the embedding; "" = the first run that has one ("." is the
                         logdir itself, a named logdir's root is its name)
``projector_embedding``  tensor name (e.g. torch's "feats:00000"); "" = the run's first
``projector_method``     "pca" (default) | "tsne" | "umap" | "custom"
``projector_dims``       2 | 3 (default 3; 2D is plotly scattergl, 3D the page's WebGL renderer)
``projector_params``     the method's parameters, defaults filled in by the kernel (service.py):
                         pca {components: [int 0..9] * dims | null, spherize: bool | null (null:
                         on when D >= 50, TensorBoard's rule)}; tsne {perplexity 2..100,
                         learning_rate: number | "auto", iterations, seed}; umap {neighbors 5..50,
                         min_dist 0..0.99, seed}; custom {left, right, up, down: regex | substring,
                         regex: bool, column: str}; all take spherize
``projector_color_by``   metadata column ("" none): <= 50 distinct texts -> category palette and
                         legend, else (and numbers) TensorBoard's #ffffdd -> #1f2d86 gradient
``projector_label_by``   metadata column for labels ("" = first non-numeric column)
``projector_search``     regex (Python's, case-insensitive) over the label column; the kernel sets
                         ``projector_selection`` to the matching rows
``projector_selection``  list of row indices: set by search, clicks and lassos in the page, and
                         from Python; the page highlights and labels them (text, never markup)

Page -> kernel
  {"type": "projector_code", "id"}
                                the view's script (built apart from the bundle: js/build.mjs LAZY),
                                asked once per page, run as a classic script
  {"type": "projector_index", "id"}
  {"type": "projector_metadata", "id", "run", "embedding"}
  {"type": "projector_points", "id", "run", "embedding", "method", "dims", "params": {},
   "rerun": bool (optional: start a stopped t-SNE/UMAP again)}
  {"type": "projector_neighbors", "id", "run", "embedding", "index": int, "k": int,
   "metric": "cosine" | "euclidean"}
  {"type": "projector_stop", "id", "run", "embedding", "method", "dims", "params"}
Kernel -> page
  {"type": "projector_code", "id", "size"} + buffers [script bytes]
  {"type": "projector_index", "id", "runs": [{"run", "embeddings": [{"name", "source"}],
   "problems": [str]}]}          runs with no embedding and no problem are left out
  {"type": "projector_metadata", "id", "run", "embedding", "shape": [N, D],
   "columns": [{"name", "kind": "number", "data": float64[N] (NaN missing)}
             | {"name", "kind": "category", "values": [str], "codes": int64[N] (-1 missing),
                "categorical": bool (<= 50 values)}],
   "label_column": str | null, "sprite": {"width", "height", "single_image_dim"} | null,
   "problems": [str]}           e.g. a metadata file with the wrong row count: no columns, the
                                embedding still shows
  {"type": "projector_points", "id", "run", "embedding", "method", "dims",
   "state": "done" | "running" | "stopped" | "error", "progress": [done, total], "message": str,
   "positions": float32[N, dims], "variance": float64[<= 10]}
                                positions (and PCA's variance shares) only when "done"; t-SNE/UMAP
                                run on a kernel thread: the page asks again while "running"
  {"type": "projector_neighbors", "id", "index", "metric", "indices": int64[k],
   "distances": float64[k]}     exact, in the original space, nearest first
  {"type": "projector_stop", "id", "stopped": 0 | 1}
Graphs (version 1 addition; traits first)
-----------------------------------------
``dashboard`` also takes "graphs": the graph explorer, one card filling the area.
``graph_run``        str, default "": the run whose graph is shown ("" or a run without graphs:
                     the page picks the first run that has one and writes it back)
``graph_tag``        str, default "": which of its graphs: "" is the run's op graph (graph_def,
                     else meta_graph_def); else a tag of graph_run_metadata(_graph),
                     graph_keras_model or graph_tagged_run_metadata (a profile)
``graph_expanded``   list of ids of open scopes (and grouped series); the page writes back what
                     the user opens and closes (closing a scope closes what is open inside)
``graph_selected``   str, default "": the node in the info panel; a click on the page sets it
``graph_search``     str, a regex over node names (checked to compile); the page lists matches
``graph_color_by``   "none" | "structure" (default) | "device" | "op" | "compute_time" | "memory"

Page -> kernel
  {"type": "graph_list", "id"}  the runs having graphs
  {"type": "graph", "id", "run": str, "tag": str, "what": "levels" | "search" | "info" | "trace",
   ...}                         one explorer request on the hierarchy of that graph (built once per
                                run and tag, rebuilt when a reload reads a new graph); the other
                                fields are those of tbnb/reader/plugins/graph/view.py's requests:
                                levels: "expanded": [ids], "series": {id: bool}, "include":
                                {id: bool}, "auto_extract": bool; search: "pattern", "limit";
                                info: "name"; trace: "name", "expanded"
  {"type": "graph_explorer", "id"}
                                the explorer's script (its drawing and the dagre layout worker),
                                not part of the bundle; asked once per page
Kernel -> page
  {"type": "graph_list", "id", "runs": [{"run", "tags": [str]}]}   tags: "" (op graph) first
  {"type": "graph", "id", "run", "tag", "what", ...}
                                view.py's reply (levels: node and edge columns as arrays, only
                                the open levels), search.py's, info.py's or trace.py's
  {"type": "graph_explorer", "id"} + buffers [the script's bytes]

x values: "step" -> the step; "relative" -> seconds since the run's first event;
"wall" -> epoch seconds (the page shows dates); "log_step" -> the step (a log axis);
"relative_step" -> the step minus the series' first; a tag -> that tag's value at the step.
"""

from __future__ import annotations

import json
from pathlib import Path

VERSION = 1

#: The constants both sides of the comm use, in one file: this module reads it and the page's
#: build imports it (js/src/constants.js), so the two can never disagree.
_SHARED = json.loads((Path(__file__).with_name("constants.json")).read_text(encoding="utf-8"))

DASHBOARDS: tuple[str, ...] = tuple(_SHARED["dashboards"])
CARD_TYPES: tuple[str, ...] = tuple(_SHARED["card_types"])
#: The card types the time series dashboard shows unless told otherwise: TensorBoard's three
#: (PR cards are there on request, as TensorBoard's time series has none).
DEFAULT_CARD_TYPES: tuple[str, ...] = tuple(_SHARED["default_card_types"])
HISTOGRAM_MODES: tuple[str, ...] = tuple(_SHARED["histogram_modes"])
#: Basis points of TensorBoard's distribution compressor.
BASIS_POINTS: tuple[int, ...] = tuple(_SHARED["basis_points"])
#: TensorBoard's rebinning of histograms for display.
HISTOGRAM_BINS: int = _SHARED["histogram_bins"]
DEFAULT_MAX_BLOB_BYTES = 4 << 20
X_AXES: tuple[str, ...] = tuple(_SHARED["x_axes"])

#: TensorBoard's run colour palette, assigned in order of first appearance.
PALETTE: tuple[str, ...] = tuple(_SHARED["palette"])

#: TensorBoard's defaults.
DEFAULT_SMOOTHING: float = _SHARED["default_smoothing"]
DEFAULT_RELOAD_INTERVAL = 2.0
DEFAULT_CARD_WIDTH: int = _SHARED["default_card_width"]
