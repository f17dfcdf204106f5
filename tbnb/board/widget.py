"""The Board: the dashboard widget. Settings are synced traits; data travels as messages.

protocol.md is the contract with the page. The Board holds the traits, the lifecycle (first
read, polling, closing) and the public API; page requests go through its router (router.py) to
the core and the dashboards (dashboards/), and pushed replies are kept in pushed.py. Requests
are answered on the kernel's main thread; the feed of its logdir (feed.py, shared with the
other Boards on it) reloads on its own thread and hands each Board what changed, which sends
``changed`` messages, so shared state (run colours, the status) is updated under ``_state_lock``.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anywidget
from traitlets import Bool, Dict, Enum, Float, Int, TraitError, Unicode, observe, validate

from ..cards.board import CardMethods
from . import assets, shared
from .core import changed_reply, index_reply, plotly_reply, plotly_request_bundle
from .custom_cards import CustomCardMethods
from .custom_cards import push_key as custom_push_key
from .dashboards import MODULES, dashboard_names, hidden_plugin_names, plugin_trait_mixins, trait_mixins
from .dashboards.scalar_axes import XAxis
from .derived import DerivedTraits
from .display_once import DisplayOnce
from .iou_scalars import IouScalars
from .poll import weak_call
from .preload import push_plotly_once
from .protocol import (
    CARD_TYPES,
    DEFAULT_CARD_TYPES,
    DEFAULT_CARD_WIDTH,
    DEFAULT_MAX_BLOB_BYTES,
    DEFAULT_RELOAD_INTERVAL,
    DEFAULT_SMOOTHING,
    HISTOGRAM_MODES,
)
from .pushed import PushedReplies
from .request import Reply, Settings
from .resync import everything_changed
from .router import Router
from .run_colors import checked_colors, with_new_runs
from .run_visibility import RunVisibility
from .sources import MultiLogdir
from .traits import ChoiceList, RegexList, StrList
from .view import view_frame

if TYPE_CHECKING:
    import pandas as pd

    from ..reader.logdir.logdir import Logdir, ReloadResult

log = logging.getLogger(__name__)

#: Python trait name -> name on the wire, where they differ (``view`` is ``Board.view``'s DataFrame).
_WIRE_NAMES = {"view_state": "view"}
_PY_NAMES = {wire: py for py, wire in _WIRE_NAMES.items()}
#: Traits a user may pass to ``Board(...)`` / ``tbnb.show(...)``.
#: The dashboards' own settings (their ``Traits`` mixins) are added to these below the class.
BASE_SETTINGS = ("dashboard", "smoothing", "x_axis", "log_y", "ignore_outliers", "runs", "hidden_runs",
                 "run_colors", "tag_filter", "pinned", "card_width", "card_types", "histogram_mode",
                 "image_brightness", "image_contrast", "image_actual_size", "max_blob_bytes")


class Board(*trait_mixins(MODULES), DerivedTraits, RunVisibility, CustomCardMethods, CardMethods, DisplayOnce,
            anywidget.AnyWidget, *plugin_trait_mixins()):  # type: ignore[misc]
    """TensorBoard's dashboards for a logdir, live in the output cell.

    ``Board(logdir)`` or ``Board(logdir_spec="name1:path1,name2:path2")``; the other arguments
    are TensorBoard's flags (``storage_options`` for a URL logdir such as ``s3://...``);
    ``**settings`` sets any trait below. The logdir is read now and
    then every ``reload_interval`` seconds (0: only now, and on ``refresh()``); with
    ``load=False``, from ``start()`` on (display first, then start: the page sets up meanwhile).
    """

    _pushed: PushedReplies | None = None
    # Set from the built bundle at instantiation: a path here would be read when the class is
    # defined, and then importing tbnb would fail whenever the bundle is not built.
    _esm = Unicode("").tag(sync=True)
    _css = Unicode("").tag(sync=True)

    dashboard = Enum(dashboard_names(), default_value="timeseries").tag(sync=True)
    smoothing = Float(DEFAULT_SMOOTHING).tag(sync=True)
    x_axis = XAxis().tag(sync=True)
    log_y = Bool(False).tag(sync=True)
    ignore_outliers = Bool(True).tag(sync=True)
    runs = RegexList([".*"]).tag(sync=True)
    hidden_runs = StrList().tag(sync=True)
    run_colors = Dict(value_trait=Unicode(), key_trait=Unicode()).tag(sync=True)
    tag_filter = Unicode("").tag(sync=True)
    pinned = StrList().tag(sync=True)
    card_width = Int(DEFAULT_CARD_WIDTH, min=100, max=4000).tag(sync=True)
    card_types = ChoiceList(CARD_TYPES, list(DEFAULT_CARD_TYPES)).tag(sync=True)
    histogram_mode = Enum(HISTOGRAM_MODES, default_value="offset").tag(sync=True)
    image_brightness = Int(1000, min=0, max=2000).tag(sync=True)
    image_contrast = Int(1000, min=0, max=5000).tag(sync=True)
    image_actual_size = Bool(False).tag(sync=True)
    max_blob_bytes = Int(DEFAULT_MAX_BLOB_BYTES, min=0).tag(sync=True)
    #: The page's zoom state, synced as ``view`` (protocol.md); ``Board.view`` is its DataFrame.
    view_state = Dict().tag(sync=True, echo_update=False)
    status = Dict().tag(sync=True)

    def __init__(self, logdir: str | os.PathLike[str] | None = None, *, logdir_spec: str | None = None,
                 reload_interval: float = DEFAULT_RELOAD_INTERVAL,
                 samples_per_plugin: str | Mapping[str, Any] | None = None,
                 purge_orphaned_data: bool = True, storage_options: Mapping[str, Any] | None = None,
                 load: bool = True, **settings: Any) -> None:
        esm = assets.read_bundle()  # first: no comm is opened for a board that cannot render
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise TypeError(f"Board() got unknown settings {unknown}; settings are {list(SETTINGS)}")
        if not (isinstance(reload_interval, (int, float)) and math.isfinite(reload_interval)
                and reload_interval >= 0):
            raise ValueError(f"reload_interval must be a number of seconds >= 0, got {reload_interval!r}")
        # Boards on the same logdir with the same flags share one reader and its polling (a feed,
        # released with the last of them; it holds this Board weakly).
        self._source = shared.acquire(self, logdir, logdir_spec, samples_per_plugin=samples_per_plugin,
                                      purge_orphaned_data=purge_orphaned_data, storage_options=storage_options)
        self._source.virtual.set_provider("iou", IouScalars())  # TAG/iou/<class>, TAG/miou of segmentations
        self._reload_interval = float(reload_interval)
        self._state_lock = threading.RLock()
        self._tick_lock = threading.Lock()
        self._colors_given = 0
        self._pushed = PushedReplies()
        core = {"plotly": self._answer_plotly, "index": self._answer_index, "custom_card": self.answer_custom_card}
        self._router = Router(self._source, self._settings, core, self._send_msg, self._pushed,
                              core_pushed={"custom_card": custom_push_key})
        super().__init__(_esm=esm, _css=assets.read_styles(), **settings)  # validates the settings
        self.on_msg(Board._route)
        push_plotly_once(self)  # before the first read: the page runs plotly.js meanwhile (preload.py)
        self._started = False
        self._early_index = not load  # shown before it reads: push the index of a first pass
        if load:
            self.start()

    def start(self) -> None:
        """Read the logdir for the first time and start polling it (once; the constructor does
        it unless given ``load=False``).

        ``show`` and ``%tbnb`` make their Board with ``load=False``, display it, and then start
        it in the same cell: the page evaluates the Board's script and lays out its frame while
        the kernel reads, and its first requests, queued until the cell ends, find everything read.
        On a big logdir such a Board is sent the index of each file's first bytes meanwhile, so
        the page lays out its cards and queues its requests for them during the read (first_read.py).
        """
        if self._started:
            return
        self._started = True
        try:
            with self._tick_lock:  # the feed's polls wait for the first read to be taken in
                first = self._source.start(Board._hear, self._reload_interval,
                                           self._show_preview if self._early_index else None)
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
        try:
            return checked_colors(dict(proposal["value"]))
        except ValueError as err:
            raise TraitError(str(err)) from None

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
        """True while the background poll runs (the feed's, shared with other Boards on the logdir)."""
        source = getattr(self, "_source", None)
        return isinstance(source, shared.SharedSource) and source.polling

    @property
    def view(self) -> pd.DataFrame:
        """The scalar points shown: run, tag, step, wall_time, value (and best, best_step with
        ``best`` set: each run's best point of the tag over all its points).

        Shown runs (``runs`` regexes, minus ``hidden_runs`` and ``hidden_patterns``), tags passing
        ``tag_filter``, and for each card the page reports zoomed, only the points in its x range.
        """
        return view_frame(self._source, patterns=self.runs, hidden=self.hidden_runs,
                          tag_filter=self.tag_filter, view_state=self.view_state, x_axis=self.x_axis,
                          best=self.best, hidden_patterns=self.hidden_patterns)

    def refresh(self) -> None:
        """Reload now, then send the page the board's whole current state again, from this thread.

        For front ends that miss messages (Colab renders nothing the poll thread sends; VS Code
        may render a view late) and for a training loop that wants the board up to date at a
        point of its choosing: besides announcing what the reload found, it re-sends every
        trait, the run/tag index, and a fresh reply to each data request the page made
        (resync.py), so a page that missed earlier updates draws the current data.
        """
        self._poll_tick(push=False)  # the pushes below answer every remembered request anyway
        if self.comm is None or self._pushed is None or self._pushed.closed:
            return
        with self._state_lock:
            self.send_state()
        self._send_msg(*self._answer_index({}))
        self._router.push(everything_changed(self._source))

    def close(self) -> None:
        """Stop polling and close the widget (its views disappear from the page)."""
        self._stop()
        super().close()

    def __repr__(self) -> str:
        s = self.status or {}
        live = f"polling every {self._reload_interval:g}s" if self.polling else "not polling"
        return (f"<tbnb.Board {self._source.describe()!r}: {s.get('runs', 0)} runs, "
                f"{s.get('tags', 0)} tags, {live}>")

    # -- polling ---------------------------------------------------------------------------------

    def _poll_tick(self, push: bool = True) -> None:
        """Reload now, for this Board (``refresh()``; the others hear of it at the feed's next poll):
        send ``changed`` (and pushed replies unless ``push`` is false), update ``status``."""
        with self._tick_lock:
            try:
                result = self._source.reload()
            except Exception as err:  # noqa: BLE001 - e.g. an OSError on a network filesystem: retry next tick
                log.warning("tbnb: reload of %s failed: %s", self._source.describe(), err)
                # What the reader took in before failing is news still (feed.py: _missed).
                self._absorb(self._source.take_unseen(), time.time(), push=push, message=f"reload failed: {err}")
                return
            self._absorb(result, time.time(), push=push)

    def _hear(self, news: ReloadResult, when: float, message: str | None) -> bool:
        """A poll of the feed (its thread): take its news; False when this Board is gone.

        A comm closed by the front end without a word (marimo closes a re-run cell's comm and
        tells no one) ends the Board here: it leaves the feed and stops hearing.
        """
        comm = self.comm
        if comm is None or getattr(comm, "_closed", False):
            self._stop()
            return False
        if self._pushed is None or self._pushed.closed:
            return False
        with self._tick_lock:
            self._absorb(self._source.heard(news), when, message=message)
        return True

    def _absorb(self, result: ReloadResult, now: float, notify: bool = True, push: bool = True,
                message: str | None = None) -> None:
        """Colour new runs, tell the page what changed, refresh the status."""
        if result.new_runs:
            self._color_runs(result.new_runs)
        if result and notify:
            changed = changed_reply(self._source, result)
            self._send_msg(changed, [])
            if push:
                self._router.push(changed)
        self._push_status(now if result else None, message)

    def _color_runs(self, runs: list[str]) -> None:
        """Give each new run the next palette colour, keeping colours already set."""
        with self._state_lock:
            colors, self._colors_given = with_new_runs(self.run_colors, runs, self._colors_given)
            if colors is not None:
                self.run_colors = colors

    def _push_status(self, changed_at: float | None, message: str | None = None,
                     polling: bool | None = None) -> None:
        """Set ``status`` if any field differs; ``last_reload`` moves only when data changed."""
        with self._state_lock:
            status = self._source.status(dict(self.status), changed_at, message, polling=polling)
            if status is not None:
                self.status = status

    def _stop(self) -> None:
        """The widget is going away: no more pushed replies; it leaves its logdir's feed (whose
        polling ends with its last Board)."""
        if self._pushed is not None:
            self._pushed.close()
        source = getattr(self, "_source", None)  # None on a board whose __init__ failed early
        if isinstance(source, shared.SharedSource) and source.feed is not None:
            if source.polling:
                self._push_status(None, polling=False)
            source.release()

    @observe("comm")
    def _watch_comm_close(self, change: dict[str, Any]) -> None:
        """Stop polling when the page closes the comm (the widget is gone)."""
        comm = change["new"]
        if comm is None:
            self._stop()
            return
        stop = weak_call(self, Board._stop)
        comm.on_close(lambda _msg: stop())

    # -- messages --------------------------------------------------------------------------------

    def _send_msg(self, content: dict[str, Any], buffers: list[Any]) -> None:
        try:
            self.send(content, buffers)
        except Exception:  # a closed or broken comm must not break the caller (a tick, a handler)
            log.exception("tbnb: could not send a %r message", content.get("type"))

    def _route(self, content: Any, buffers: list[Any]) -> None:
        """ipywidgets' ``msg:custom`` callback: the router answers (router.py)."""
        self._router.on_msg(content, buffers)

    def _settings(self) -> Settings:
        """The settings the dashboards' handlers read, taken from the traits per request."""
        return Settings(x_axis=self.x_axis, max_blob_bytes=self.max_blob_bytes)

    def _show_preview(self, preview: ReloadResult) -> None:
        """The first read's first pass (first_read.py): run colours, then the index, pushed."""
        self._absorb(preview, time.time(), notify=False)
        self._send_msg(self._index(), [])  # start() holds the tick lock _answer_index takes

    def _answer_plotly(self, content: dict[str, Any]) -> Reply:
        """``plotly``: a core request (core.py)."""
        return plotly_reply(plotly_request_bundle(content))

    def _answer_index(self, content: dict[str, Any]) -> Reply:
        """``index``: a core request, with the run colours only the board holds."""
        return self._index(), []

    def _index(self) -> dict[str, Any]:
        """The index message: the source's runs and tags, with the run colours only the board
        holds. A run this Board has not heard of yet (found by another Board's reload, or by one
        that failed part way) is coloured now: the page never lists a run without its colour."""
        with self._state_lock:
            reply = index_reply(self._source, dict(self.run_colors))
            missing = [run for run in reply["runs"] if not run["color"]]
            if missing:
                self._color_runs([run["name"] for run in missing])
                for run in missing:
                    run["color"] = self.run_colors[run["name"]]
            return reply


for _plugin, _names in hidden_plugin_names(Board):
    warnings.warn(f"tbnb: the installed dashboard {_plugin!r} defines {_names} in its Traits, which the Board "
                  "already has: the Board's are used", RuntimeWarning, stacklevel=1)

#: Traits a user may pass to ``Board(...)`` / ``tbnb.show(...)``: the Board's own, ``hidden_patterns``
#: and every dashboard's (its ``Traits`` mixin, registered in dashboards/__init__.py).
SETTINGS = BASE_SETTINGS + tuple(name for mixin in (RunVisibility, DerivedTraits, *trait_mixins())
                                 for name in mixin.class_trait_names(sync=True))
