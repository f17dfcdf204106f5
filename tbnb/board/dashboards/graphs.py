"""The graphs dashboard: a run's graphs as a collapsible hierarchy, only the open levels sent
(protocol.md, "Graphs").

The hierarchy of a graph is built once and kept per source, run and tag: every request of the
page (open levels, search, node info, trace inputs) is answered from it. It is rebuilt when the
graph the reader gives for that run and tag is no longer the one it was built from (a reload
read a new graph). The page's first request, the collapsed top level, is answered by a partial
hierarchy of the top level alone (a fraction of the work) when the whole one is not built yet:
choosing the dashboard builds both ahead on a thread, the top level first and the whole one once
that has been answered (or after WHOLE_AFTER_S), so that the two never share the interpreter.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Mapping
from typing import Any

import traitlets
from traitlets import Bool, Dict, Enum, Unicode

from ...reader.plugins.graph import Graph, GraphError, Hierarchy, answer, build_hierarchy
from ..codec import encode
from ..request import Fields, Handler, PushKey, Reply, RequestError, Settings
from ..sources import MultiLogdir
from ..traits import StrList, check_regex
from .graph_access import graph_stamp, has_run_graph, list_graphs, read_graph, same_graph
from .graph_assets import explorer_script

log = logging.getLogger(__name__)

COLOR_BY = ("none", "structure", "device", "op", "compute_time", "memory")
WHAT = ("levels", "search", "info", "trace")
#: How long building the whole hierarchy ahead waits for the page's first drawing to be answered:
#: built beside the reply, it would share the interpreter with it and slow the first drawing.
WHOLE_AFTER_S = 2.0
#: Hierarchies kept per source: the explorer shows one graph at a time; a few are kept for
#: switching between runs and tags without rebuilding.
MAX_KEPT = 4


class _Entry:
    """One graph's hierarchies: the top-level one (answers the first drawing while the whole one
    is built) and the whole one; each built once, under its own lock."""

    def __init__(self, stamp: Any, graph: Graph) -> None:
        self.stamp = stamp
        self.graph = graph
        self.top: Hierarchy | None = None
        self.full: Hierarchy | None = None
        self.top_lock = threading.Lock()
        self.full_lock = threading.Lock()
        #: Set once a reply drawn from this graph has been encoded (the page has its first drawing).
        self.answered = threading.Event()

    def top_level(self) -> Hierarchy:
        """A hierarchy that answers the collapsed top level: the whole one if built, else the
        top-level one (built now if it is not yet)."""
        top, full = self.top, self.full  # in this order: whole() sets full before it drops top
        if full is not None or top is not None:
            return full or top  # type: ignore[return-value]
        with self.top_lock:
            top, full = self.top, self.full
            if full is not None:
                return full
            if top is None:
                self.top = top = build_hierarchy(self.graph, top_level=True)
            return top

    def whole(self) -> Hierarchy:
        """The whole hierarchy (built now, or waited for while another thread builds it)."""
        if self.full is None:
            with self.full_lock:
                if self.full is None:
                    full = build_hierarchy(self.graph)
                    full.ids_index()  # made here, ahead, not by the first request naming an item
                    self.full = full
                    self.top = None
        return self.full


class _Kept:
    """The graphs read for one source, most recently used last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: dict[tuple[str, str], _Entry] = {}


_kept: weakref.WeakKeyDictionary[Any, _Kept] = weakref.WeakKeyDictionary()
_kept_lock = threading.Lock()


def _entry(source: MultiLogdir, run: str, tag: str) -> _Entry:
    """The kept entry of the graph of ``run`` and ``tag``, its graph read again when the reader's
    stamp moved (its whole hierarchy kept if the graph read is the same); RequestError when there
    is no such graph or it cannot be read. Kept per logdir (a single logdir's under the Logdir
    itself, however it is wrapped)."""
    with _kept_lock:
        kept = _kept.setdefault(source.single or source, _Kept())
    with kept.lock:
        try:
            stamp = graph_stamp(source, run, tag)
        except KeyError as err:
            raise RequestError(str(err.args[0]) if err.args else f"run {run!r} has no graph {tag!r}") from None
        key = (run, tag)
        cached = kept.items.pop(key, None)
        if cached is not None and cached.stamp == stamp:
            kept.items[key] = cached
            return cached
        try:
            graph = read_graph(source, run, tag)
        except (GraphError, KeyError) as err:
            raise RequestError(f"run {run!r}, graph {tag or '(op graph)'!r}: {err}") from None
        if cached is not None and same_graph(cached.graph, graph):
            cached.stamp = stamp  # the same graph: what is built (or being built) is kept
            entry = cached
        else:
            entry = _Entry(stamp, graph)
        kept.items[key] = entry
        while len(kept.items) > MAX_KEPT:
            kept.items.pop(next(iter(kept.items)))
        return entry


def hierarchy(source: MultiLogdir, run: str, tag: str) -> Hierarchy:
    """The whole hierarchy of the graph of ``run`` and ``tag``: built when first asked for, again
    when the reader's graph changed; RequestError when there is no such graph or it cannot be read."""
    return _entry(source, run, tag).whole()


def top_level_hierarchy(source: MultiLogdir, run: str, tag: str) -> Hierarchy:
    """A hierarchy answering the collapsed top level of that graph without waiting for the
    whole one to be built (build_hierarchy's ``top_level``)."""
    return _entry(source, run, tag).top_level()


def kept_hierarchy(source: MultiLogdir, run: str, tag: str) -> Hierarchy | None:
    """The whole hierarchy kept for ``run`` and ``tag`` (None if none is built), whether or not
    the graph changed since: what a request would find without building."""
    with _kept_lock:
        kept = _kept.get(source.single or source)
    if kept is None:
        return None
    with kept.lock:
        found = kept.items.get((run, tag))
    return found.full if found else None


def _top_level_only(content: Mapping[str, Any], what: str) -> bool:
    """Whether a request asks for the collapsed top level and nothing else (no scope open, no
    user's choice of series or extraction): what a top-level hierarchy answers."""
    return what == "levels" and not any(content.get(k) for k in ("expanded", "series", "include"))


def answer_graph(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``graph``: one explorer request (levels, search, info, trace) on one run's graph."""
    req = Fields(content)
    request_id, run, tag = req.integer("id"), req.string("run"), req.string("tag")
    what = req.choice("what", WHAT, default="levels")
    for name in ("expanded",):
        if name in content:
            req.strings(name)
    for name in ("series", "include"):
        value = content.get(name)
        if value is not None and not (isinstance(value, Mapping) and all(isinstance(k, str) for k in value)):
            raise RequestError(f"{name!r} must be an object of id -> bool, got {value!r}")
    entry = _entry(source, run, tag)
    h = entry.top_level() if _top_level_only(content, what) else entry.whole()
    try:
        reply = answer(h, {**content, "what": what})
    except (ValueError, TypeError) as err:
        raise RequestError(f"graph request: {err}") from None
    out = encode({**reply, "type": "graph", "id": request_id, "run": run, "tag": tag})
    entry.answered.set()
    return out


def answer_graph_list(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``graph_list``: the runs that have graphs, and their graph tags (``""`` = op graph)."""
    request_id = Fields(content).integer("id")
    return {"type": "graph_list", "id": request_id, "runs": list_graphs(source)}, []


def answer_explorer_script(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """``graph_explorer``: the explorer's script (its drawing, and the layout worker with dagre)."""
    request_id = Fields(content).integer("id")
    try:
        data = explorer_script()
    except RuntimeError as err:
        raise RequestError(str(err)) from None
    return {"type": "graph_explorer", "id": request_id}, [data]


def _warm(source: MultiLogdir, run: str, tag: str) -> None:
    """Build (and keep) the hierarchy the page will ask for first: ``run`` and ``tag``, or the
    first graph listed; the whole hierarchy once the top level has been answered. Nothing to build, or a graph that cannot be read, is left to the page's
    request to report."""
    try:
        if not run:
            listed = list_graphs(source)
            if not listed:
                return
            run, tag = listed[0]["run"], listed[0]["tags"][0]
        entry = _entry(source, run, tag)
        entry.top_level()  # the first drawing
        entry.answered.wait(WHOLE_AFTER_S)  # answered before the rest is built
        entry.whole()
    except Exception as err:  # noqa: BLE001 - the page's own request reports it
        log.debug("tbnb: graph of run %r not built ahead: %s", run, err)


class Traits(traitlets.HasTraits):
    """The graph explorer's settings, synced with the page and settable from Python."""

    #: The run whose graph is shown ("" until one is chosen: the page picks the first).
    graph_run = Unicode("").tag(sync=True)
    #: Which of its graphs: "" is the run's op graph; else a Keras model or run-metadata tag.
    graph_tag = Unicode("").tag(sync=True)
    #: Scopes (and grouped series) open in the view, by id; the page writes it back.
    graph_expanded = StrList().tag(sync=True)
    #: The node shown in the info panel ("" none); clicking a node on the page sets it.
    graph_selected = Unicode("").tag(sync=True)
    #: The user's choice of series, by id: True grouped into one node, False ungrouped (a series
    #: not named here is grouped when it has at least five members); the info panel's button.
    graph_series = Dict(value_trait=Bool(), key_trait=Unicode()).tag(sync=True)
    #: The user's choice of auxiliary nodes, by id: False removed from the main graph (set beside
    #: it), True added to it whatever its degree; the info panel's button.
    graph_include = Dict(value_trait=Bool(), key_trait=Unicode()).tag(sync=True)
    #: A regular expression over node names; the page lists the matches.
    graph_search = Unicode("").tag(sync=True)
    #: What the node colours say.
    graph_color_by = Enum(COLOR_BY, default_value="structure").tag(sync=True)

    @traitlets.observe("dashboard")
    def _warm_graph(self, change: dict[str, Any]) -> None:
        """Build the hierarchy of the graph about to be shown on a thread of its own, as soon as
        the graphs dashboard is chosen: the kernel then answers the page's first requests (the
        explorer's script, the list of graphs) while it builds, instead of after."""
        if change["new"] != "graphs":
            return
        logdir = getattr(self, "logdir", None)
        if logdir is None:
            return
        source = logdir if isinstance(logdir, MultiLogdir) else MultiLogdir([(None, logdir)])
        run, tag = self.graph_run, self.graph_tag
        threading.Thread(target=_warm, args=(source, run, tag), name="tbnb-graph-warm", daemon=True).start()

    @traitlets.validate("graph_search")
    def _check_graph_search(self, proposal: dict[str, Any]) -> str:
        return check_regex("graph_search", proposal["value"])


REQUESTS: dict[str, Handler] = {"graph": answer_graph, "graph_list": answer_graph_list,
                                "graph_explorer": answer_explorer_script}
PUSHED: dict[str, PushKey] = {}

__all__ = ["COLOR_BY", "PUSHED", "REQUESTS", "Traits", "has_run_graph", "hierarchy", "kept_hierarchy",
           "top_level_hierarchy"]
