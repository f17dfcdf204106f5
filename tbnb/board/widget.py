"""The Board: the dashboard widget. Settings are synced traits; data travels as messages.

protocol.py is the contract with the page. Requests are answered on the kernel's main thread;
the poller (poll.py) reloads on its own thread and sends ``changed`` messages, so shared state
(run colours, the status) is updated under ``_state_lock``. A running cell keeps the main thread
from answering the page, so the poller also answers again each card's latest data request when
its data changed ("Pushed replies" in protocol.py); those requests are kept under
``_remembered_lock``.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable

import anywidget
import traitlets
from traitlets import Bool, Dict, Enum, Float, Int, TraitError, Unicode, observe, validate

from . import assets
from .codec import encode
from .plugins_view import blob_listing, blob_reply_fields, distribution_entries, histogram_entries, text_items
from .poll import Poller
from .protocol import (
    CARD_TYPES,
    DASHBOARDS,
    DEFAULT_CARD_WIDTH,
    DEFAULT_MAX_BLOB_BYTES,
    DEFAULT_RELOAD_INTERVAL,
    DEFAULT_SMOOTHING,
    HISTOGRAM_MODES,
    PALETTE,
    X_AXES,
)
from .sources import MultiLogdir
from .view import (
    PUSHED_TYPES,
    Fields,
    RequestError,
    changed_reply,
    download_text,
    index_reply,
    push_due,
    push_key,
    series_entries,
    totals,
    view_frame,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..reader.logdir import Logdir, ReloadResult

log = logging.getLogger(__name__)

_COLOR = re.compile(r"#[0-9a-fA-F]{6}")
#: Python trait name -> name on the wire, where they differ (``view`` is ``Board.view``'s DataFrame).
_WIRE_NAMES = {"view_state": "view"}
_PY_NAMES = {wire: py for py, wire in _WIRE_NAMES.items()}
#: Traits a user may pass to ``Board(...)`` / ``tbnb.show(...)``.
SETTINGS = ("dashboard", "smoothing", "x_axis", "log_y", "ignore_outliers", "runs", "hidden_runs",
            "run_colors", "tag_filter", "pinned", "card_width", "card_types", "histogram_mode",
            "image_brightness", "image_contrast", "image_actual_size", "max_blob_bytes")
Reply = tuple[dict[str, Any], list[Any]]
#: Most data requests remembered for pushed replies (the least recently asked are dropped first).
MAX_REMEMBERED = 256

#: Whether a Board of this process has sent plotly.js unasked (see ``Board._push_plotly``).
_plotly_pushed = False


class _StrList(traitlets.List):
    """A list of strings that also accepts one string (``board.pinned = "loss"``)."""

    def __init__(self, default_value: list[str] | None = None) -> None:
        super().__init__(trait=Unicode(), default_value=default_value or [])

    def validate(self, obj: Any, value: Any) -> Any:
        return super().validate(obj, [value] if isinstance(value, str) else value)


class _ChoiceList(_StrList):
    """A list of distinct values from ``choices`` (a repeated value is kept once, first place)."""

    def __init__(self, choices: tuple[str, ...], default_value: list[str] | None = None) -> None:
        super().__init__(default_value)
        self.choices = choices

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        bad = [v for v in value if v not in self.choices]
        if bad:
            raise TraitError(f"{self.name}: {bad} not among {list(self.choices)}")
        return list(dict.fromkeys(value))


class _RegexList(_StrList):
    """A list of regular expressions, each checked to compile (the page runs them too)."""

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as err:
                raise TraitError(f"{self.name}: invalid regular expression {pattern!r}: {err}") from None
        return value


def _execution_count() -> int | None:
    """The running cell's number in IPython (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


class Board(anywidget.AnyWidget):
    """TensorBoard's dashboards for a logdir, live in the output cell.

    ``Board(logdir)`` or ``Board(logdir_spec="name1:path1,name2:path2")``; the other arguments
    are TensorBoard's flags; ``**settings`` sets any trait below. The logdir is read now and
    then every ``reload_interval`` seconds (0: only now, and on ``refresh()``).
    """

    _poller: Poller[Board] | None = None  # class default: close() may run on a half-built board
    #: The page's latest data request per card (``push_key``), answered again when data changes;
    #: None once the board is closed.
    _remembered: OrderedDict[tuple[Any, ...], dict[str, Any]] | None = None
    # Set from the built bundle at instantiation: a path here would be read when the class is
    # defined, and then importing tbnb would fail whenever the bundle is not built.
    _esm = Unicode("").tag(sync=True)
    _css = Unicode("").tag(sync=True)

    dashboard = Enum(DASHBOARDS, default_value="timeseries").tag(sync=True)
    smoothing = Float(DEFAULT_SMOOTHING).tag(sync=True)
    x_axis = Enum(X_AXES, default_value="step").tag(sync=True)
    log_y = Bool(False).tag(sync=True)
    ignore_outliers = Bool(True).tag(sync=True)
    runs = _RegexList([".*"]).tag(sync=True)
    hidden_runs = _StrList().tag(sync=True)
    run_colors = Dict(value_trait=Unicode(), key_trait=Unicode()).tag(sync=True)
    tag_filter = Unicode("").tag(sync=True)
    pinned = _StrList().tag(sync=True)
    card_width = Int(DEFAULT_CARD_WIDTH, min=100, max=4000).tag(sync=True)
    card_types = _ChoiceList(CARD_TYPES, list(CARD_TYPES)).tag(sync=True)
    histogram_mode = Enum(HISTOGRAM_MODES, default_value="offset").tag(sync=True)
    image_brightness = Int(1000, min=0, max=2000).tag(sync=True)
    image_contrast = Int(1000, min=0, max=5000).tag(sync=True)
    image_actual_size = Bool(False).tag(sync=True)
    max_blob_bytes = Int(DEFAULT_MAX_BLOB_BYTES, min=0).tag(sync=True)
    #: The page's zoom state, synced as ``view`` (protocol.py); ``Board.view`` is its DataFrame.
    view_state = Dict().tag(sync=True, echo_update=False)
    status = Dict().tag(sync=True)

    def __init__(self, logdir: str | os.PathLike[str] | None = None, *, logdir_spec: str | None = None,
                 reload_interval: float = DEFAULT_RELOAD_INTERVAL,
                 samples_per_plugin: str | Mapping[str, Any] | None = None,
                 purge_orphaned_data: bool = True, **settings: Any) -> None:
        esm = assets.read_bundle()  # first: no comm is opened for a board that cannot render
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise TypeError(f"Board() got unknown settings {unknown}; settings are {list(SETTINGS)}")
        if not (isinstance(reload_interval, (int, float)) and math.isfinite(reload_interval)
                and reload_interval >= 0):
            raise ValueError(f"reload_interval must be a number of seconds >= 0, got {reload_interval!r}")
        self._source = MultiLogdir.open(logdir, logdir_spec, samples_per_plugin=samples_per_plugin,
                                        purge_orphaned_data=purge_orphaned_data)
        self._reload_interval = float(reload_interval)
        self._state_lock = threading.RLock()
        self._tick_lock = threading.Lock()
        self._remembered_lock = threading.Lock()
        self._remembered = OrderedDict()
        self._colors_given = 0
        self._hidden_in: int | None = None
        super().__init__(_esm=esm, _css=assets.read_styles(), **settings)  # validates the settings
        self.on_msg(Board._on_msg)
        self._push_plotly()
        try:
            with self._tick_lock:
                first = self._source.reload()
                if self._reload_interval > 0:
                    self._poller = Poller(self, Board._poll_tick, self._reload_interval)
                    self._poller.start()
                # No "changed" for the first read: no view exists yet, it asks for the index.
                self._absorb(first, time.time(), notify=False)
        except BaseException:
            self.close()
            raise

    # -- validation ------------------------------------------------------------------------------

    @validate("smoothing")
    def _clamp_smoothing(self, proposal: dict[str, Any]) -> float:
        value = float(proposal["value"])
        if math.isnan(value):
            raise TraitError("smoothing must be a number in [0, 0.999], got NaN")
        return min(max(value, 0.0), 0.999)

    @validate("run_colors")
    def _check_colors(self, proposal: dict[str, Any]) -> dict[str, str]:
        colors = dict(proposal["value"])
        bad = {run: c for run, c in colors.items() if not _COLOR.fullmatch(c)}
        if bad:
            raise TraitError(f"run_colors must be '#rrggbb' strings; got {bad}")
        return {run: c.lower() for run, c in colors.items()}

    # -- the wire name of view_state ---------------------------------------------------------------

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        """ipywidgets' state with wire names (``view_state`` is ``view`` on the page)."""
        if isinstance(key, str):
            key = _PY_NAMES.get(key, key)
        elif key is not None:
            key = [_PY_NAMES.get(k, k) for k in key]
        state = super().get_state(key=key, drop_defaults=drop_defaults)
        return {_WIRE_NAMES.get(k, k): v for k, v in state.items()}

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """Apply the page's changes (wire names) under the lock the poller uses for run_colors."""
        with self._state_lock:
            super().set_state({_PY_NAMES.get(k, k): v for k, v in sync_data.items()})

    # -- public API ------------------------------------------------------------------------------

    @property
    def logdir(self) -> Logdir | MultiLogdir:
        """The ``tbnb.Logdir`` read (a MultiLogdir for a ``logdir_spec``)."""
        return self._source.single or self._source

    @property
    def reload_interval(self) -> float:
        """Seconds between polls (0: no polling)."""
        return self._reload_interval

    @property
    def polling(self) -> bool:
        """True while the background poll runs."""
        return self._poller is not None and self._poller.alive

    @property
    def view(self) -> pd.DataFrame:
        """The scalar points shown: run, tag, step, wall_time, value.

        Shown runs (``runs`` regexes, minus ``hidden_runs``), tags passing ``tag_filter``, and
        for each card the page reports zoomed, only the points in its x range.
        """
        return view_frame(self._source, patterns=self.runs, hidden=self.hidden_runs,
                          tag_filter=self.tag_filter, view_state=self.view_state, x_axis=self.x_axis)

    def refresh(self) -> None:
        """Reload now and push what changed, from this thread.

        For Colab, where messages sent by the poll thread are not rendered, and for a training
        loop that wants the board up to date at a point of its choosing.
        """
        self._poll_tick()

    def close(self) -> None:
        """Stop polling and close the widget (its views disappear from the page)."""
        self._stop()
        super().close()

    def _ipython_display_(self) -> None:
        """Display the widget, except right after ``show()`` displayed it in the same cell.

        ``tbnb.show(...)`` displays the board and returns it; as a cell's last line, IPython would
        then display the returned board a second time (two dashboards of one model).
        """
        from IPython.display import display

        if self._hidden_in is not None and self._hidden_in == _execution_count():
            self._hidden_in = None
            return
        self._hidden_in = None
        bundle = self._repr_mimebundle_() if callable(self._repr_mimebundle_) else None
        if bundle is None:  # a closed widget: ipywidgets removes its widget view
            display({"text/plain": repr(self)}, raw=True)
            return
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        display(data, metadata=metadata, raw=True)

    def __repr__(self) -> str:
        s = self.status or {}
        live = f"polling every {self._reload_interval:g}s" if self.polling else "not polling"
        return (f"<tbnb.Board {self._source.describe()!r}: {s.get('runs', 0)} runs, "
                f"{s.get('tags', 0)} tags, {live}>")

    # -- polling ---------------------------------------------------------------------------------

    def _poll_tick(self) -> None:
        """One reload: send ``changed`` if anything changed, update ``status`` if it differs."""
        with self._tick_lock:
            try:
                result = self._source.reload()
            except Exception as err:  # noqa: BLE001 - e.g. an OSError on a network filesystem: retry next tick
                log.warning("tbnb: reload of %s failed: %s", self._source.describe(), err)
                self._push_status(time.time(), f"reload failed: {err}")
                return
            self._absorb(result, time.time())

    def _absorb(self, result: ReloadResult, now: float, notify: bool = True) -> None:
        """Colour new runs, tell the page what changed, refresh the status."""
        if result.new_runs:
            self._color_runs(result.new_runs)
        if result and notify:
            changed = changed_reply(self._source, result)
            self._send_msg(changed, [])
            self._push_replies(changed)
        self._push_status(now if result else None)

    def _color_runs(self, runs: list[str]) -> None:
        """Give each new run the next palette colour, keeping colours already set."""
        with self._state_lock:
            colors = dict(self.run_colors)
            fresh = [r for r in sorted(runs) if r not in colors]
            if not fresh:
                return
            for run in fresh:
                colors[run] = PALETTE[self._colors_given % len(PALETTE)]
                self._colors_given += 1
            self.run_colors = colors

    def _push_status(self, changed_at: float | None, message: str | None = None) -> None:
        """Set ``status`` if any field differs; ``last_reload`` moves only when data changed."""
        with self._state_lock:
            old = dict(self.status)
            missing = self._source.missing()
            if message is None and missing:
                message = f"waiting for {', '.join(missing)} to be created"
            if (changed_at is None and old and message == old.get("message") and self.polling == old.get("polling")
                    and len(self._source.problems) == old.get("problems")):
                return  # an idle tick: skip counting every series
            status = {**totals(self._source), "polling": self.polling, "message": message,
                      "last_reload": changed_at if changed_at is not None else old.get("last_reload")}
            if status != old:
                self.status = status

    def _stop(self) -> None:
        """The widget is going away: no more pushed replies, no more polling."""
        if self._remembered is not None:
            with self._remembered_lock:
                self._remembered = None
        self._stop_polling()

    def _stop_polling(self) -> None:
        poller, self._poller = self._poller, None
        if poller is not None:
            poller.stop()
            self._push_status(None)

    @observe("comm")
    def _watch_comm_close(self, change: dict[str, Any]) -> None:
        """Stop polling when the page closes the comm (the widget is gone)."""
        comm = change["new"]
        if comm is None:
            self._stop()
            return
        stop = _weak_call(self, Board._stop)
        comm.on_close(lambda _msg: stop())

    # -- pushed replies --------------------------------------------------------------------------

    def _remember(self, content: dict[str, Any]) -> None:
        """Keep a data request the page made (answered), to answer it again when its data changes."""
        key = push_key(content)
        with self._remembered_lock:
            if self._remembered is None:  # closed
                return
            self._remembered.pop(key, None)
            self._remembered[key] = dict(content)
            while len(self._remembered) > MAX_REMEMBERED:
                self._remembered.popitem(last=False)

    def _push_replies(self, changed: dict[str, Any]) -> None:
        """Answer again the remembered requests whose data ``changed``, with ``"push": true``.

        Called by the poll thread (or ``refresh()``): while a cell runs, the page's own new
        requests wait behind it on the main thread, and these replies are what keeps it live.
        """
        with self._remembered_lock:
            if not self._remembered:
                return
            due = [(key, content) for key, content in self._remembered.items() if push_due(content, changed)]
        for key, content in due:
            if self._remembered is None:  # closed meanwhile
                return
            try:
                reply, buffers = self._answer(content)
            except RequestError:  # e.g. the tag's last run was removed: nothing to show any more
                with self._remembered_lock:
                    if self._remembered is not None and self._remembered.get(key) is content:
                        del self._remembered[key]
                continue
            except Exception:
                log.exception("tbnb: pushing a reply to %r failed", content)
                continue
            self._send_msg({**reply, "push": True, "runs": list(content["runs"])}, buffers)

    # -- messages --------------------------------------------------------------------------------

    def _send_msg(self, content: dict[str, Any], buffers: list[Any]) -> None:
        try:
            self.send(content, buffers)
        except Exception:  # a closed or broken comm must not break the caller (a tick, a handler)
            log.exception("tbnb: could not send a %r message", content.get("type"))

    def _on_msg(self, content: Any, buffers: list[Any]) -> None:
        """Answer one page request; every failure becomes an ``error`` reply, never an exception."""
        if isinstance(content, dict) and str(content.get("kind", "")).startswith("anywidget-command"):
            return  # anywidget's own RPC, answered by anywidget
        request_id = content.get("id") if isinstance(content, dict) else None
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            request_id = None
        try:
            reply, out = self._answer(content)
            if content["type"] in PUSHED_TYPES:
                self._remember(content)
        except RequestError as err:
            reply, out = {"type": "error", "id": request_id, "message": str(err)}, []
        except Exception as err:
            log.exception("tbnb: request %r failed", content)
            reply, out = {"type": "error", "id": request_id, "message": f"{type(err).__name__}: {err}"}, []
        self._send_msg(reply, out)

    def _answer(self, content: Any) -> Reply:
        if not isinstance(content, dict):
            raise RequestError(f"a request must be an object with a 'type', got {type(content).__name__}")
        kind = content.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise RequestError(f"unknown request type {kind!r}; expected one of {sorted(_HANDLERS)}")
        return handler(self, content)

    def _push_plotly(self) -> None:
        """Send plotly.js once per kernel, unasked, before the first read of the logdir.

        A page asks for plotly.js only once its view renders, which is after the cell that
        made the Board finishes; running the 4.8 MB script then takes seconds before any
        chart can be drawn. Sent now, the page (anywidget delivers it to the model's
        ``initialize`` even before a view exists) runs it while the kernel reads the logdir.
        Once per process: later Boards, and a reloaded page, ask as before.
        """
        global _plotly_pushed
        if _plotly_pushed or self.comm is None or not getattr(self.comm, "kernel", None):
            return
        try:
            content, buffers = self._reply_plotly({})
        except RequestError:
            return  # the page's own request will report it
        _plotly_pushed = True
        self.send(content, buffers)

    def _reply_plotly(self, content: dict[str, Any]) -> Reply:
        try:
            data, version = assets.plotly_js()
        except RuntimeError as err:
            raise RequestError(str(err)) from None
        return {"type": "plotly", "version": version}, [data]

    def _reply_index(self, content: dict[str, Any]) -> Reply:
        # Under the tick lock: a run found by a reload in progress is listed with its colour.
        with self._tick_lock, self._state_lock:
            return index_reply(self._source, dict(self.run_colors)), []

    def _reply_series(self, content: dict[str, Any]) -> Reply:
        req = Fields(content)
        request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
        axis = req.choice("x_axis", X_AXES, default=self.x_axis)
        bounds, width = req.bounds("range"), req.width("width")
        entries = series_entries(self._source, tag, runs, axis, bounds, width)
        return encode({"type": "series", "id": request_id, "tag": tag, "x_axis": axis,
                       "range": content.get("range"), "series": entries})

    def _reply_download(self, content: dict[str, Any]) -> Reply:
        req = Fields(content)
        request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
        fmt = content["type"]
        text = download_text(self._source, tag, runs, fmt)
        return {"type": "download", "id": request_id, "tag": tag, "format": fmt, "text": text}, []

    def _reply_histograms(self, content: dict[str, Any]) -> Reply:
        req = Fields(content)
        request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
        axis = req.choice("x_axis", X_AXES, default=self.x_axis)
        make = histogram_entries if content["type"] == "histograms" else distribution_entries
        return encode({"type": content["type"], "id": request_id, "tag": tag, "x_axis": axis,
                       "series": make(self._source, tag, runs, axis)})

    def _reply_blobs(self, content: dict[str, Any]) -> Reply:
        req = Fields(content)
        request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
        plugin, entries = blob_listing(self._source, tag, runs)
        return encode({"type": "blobs", "id": request_id, "tag": tag, "plugin": plugin, "runs": entries})

    def _reply_blob(self, content: dict[str, Any]) -> Reply:
        req = Fields(content)
        request_id, tag, run, step = req.integer("id"), req.string("tag"), req.string("run"), req.integer("step")
        index = req.integer("index") if "index" in content else 0
        fields, buffers = blob_reply_fields(self._source, tag, run, step, index, self.max_blob_bytes)
        return encode({"type": "blob", "id": request_id, **fields})[0], list(buffers)  # raw bytes, no descriptor

    def _reply_text(self, content: dict[str, Any]) -> Reply:
        req = Fields(content)
        request_id, tag, run = req.integer("id"), req.string("tag"), req.string("run")
        items = text_items(self._source, tag, run, self.max_blob_bytes)
        return encode({"type": "text", "id": request_id, "tag": tag, "run": run, "items": items})


_HANDLERS: dict[str, Callable[[Board, dict[str, Any]], Reply]] = {
    "plotly": Board._reply_plotly,
    "index": Board._reply_index,
    "series": Board._reply_series,
    "csv": Board._reply_download,
    "json": Board._reply_download,
    "histograms": Board._reply_histograms,
    "distributions": Board._reply_histograms,
    "blobs": Board._reply_blobs,
    "blob": Board._reply_blob,
    "text": Board._reply_text,
}


def _weak_call(obj: Any, method: Callable[[Any], object]) -> Callable[[], None]:
    """``method(obj)`` if obj is still alive; holds obj weakly (a comm callback must not keep it)."""
    ref = weakref.ref(obj)

    def call() -> None:
        target = ref()
        if target is not None:
            method(target)

    return call


def _cell_id() -> str | None:
    """The front end's id of the running cell (JupyterLab and Notebook 7 send it with each
    execution, ipykernel keeps the request); None outside a kernel or when not sent."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    kernel = getattr(get_ipython(), "kernel", None)
    try:
        parent = kernel.get_parent("shell") if kernel is not None else None
    except (AttributeError, TypeError):  # an older or foreign kernel: no cell ids then
        return None
    cell = (parent or {}).get("metadata", {}).get("cellId")
    return cell if isinstance(cell, str) and cell else None


#: Boards shown by each cell (by cell id): the execution that showed them and weak references.
_SHOWN: dict[str, tuple[int | None, list[weakref.ref[Board]]]] = {}


def _close_earlier_boards(cell: str, execution: int | None) -> None:
    """Close the Boards a previous execution of ``cell`` showed: re-running the cell replaced
    their output, so nothing can see them any more, yet each would go on polling its logdir
    and holding its data."""
    earlier, refs = _SHOWN.get(cell, (execution, []))
    if earlier == execution:
        return
    for ref in refs:
        board = ref()
        if board is not None:
            board.close()
    _SHOWN.pop(cell, None)


def show(logdir: str | os.PathLike[str] | None = None, **kwargs: Any) -> Board:
    """Create a Board (same arguments), display it, and return it.

    ``board = tbnb.show("runs/")`` keeps a handle for settings, ``board.view`` and ``close()``;
    as a cell's last line it is displayed once, not twice. Running the cell again closes the
    Boards it showed the time before (where the front end says which cell runs).
    """
    from IPython.display import display

    cell, execution = _cell_id(), _execution_count()
    if cell is not None:
        _close_earlier_boards(cell, execution)
    board = Board(logdir, **kwargs)
    if cell is not None:
        _SHOWN.setdefault(cell, (execution, []))[1].append(weakref.ref(board))
    display(board)
    board._hidden_in = execution
    return board
