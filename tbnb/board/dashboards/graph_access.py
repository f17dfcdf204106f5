"""Where the graphs dashboard gets a run's graphs from the reader.

A *stamp* names the graph the reader holds now for a run and tag, cheaply: the Graph the
Logdir gives (``Logdir.graph(run, tag)``), or, from a Logdir that gives only the op graph's
bytes (``Logdir.graph(run)``), the serialized payload. A new stamp means a new graph to read.
"""

from __future__ import annotations

from typing import Any

from ...reader.plugins.graph import GRAPH_PLUGINS, Graph, graph_of_tag, graph_tags, run_graph
from ...reader.plugins.graph.sources import PLUGIN_TAGGED_RUN_METADATA, payload_bytes
from ..sources import MultiLogdir

#: The plugin under which the reader lists a run's op graph (its one tag is not a user's tag).
RUN_GRAPH_PLUGIN = "graphs"


def has_run_graph(tags: dict[str, str]) -> bool:
    """Whether a run's ``{tag: plugin}`` lists an op graph (graph_def or meta_graph_def)."""
    return RUN_GRAPH_PLUGIN in tags.values()


def list_graphs(source: MultiLogdir) -> list[dict[str, Any]]:
    """``[{"run", "tags"}]``: the runs having at least one graph, with their graph tags
    (``""`` first: the op graph), in run order. A run removed meanwhile is skipped."""
    out = []
    for run in source.runs():
        try:
            tags = source.tags(run)
        except KeyError:
            continue
        found = graph_tags(tags, has_run_graph(tags))
        if found:
            out.append({"run": run, "tags": found})
    return out


def _logdir(source: MultiLogdir, run: str) -> Any:
    """The object to ask for ``run``'s graphs: the source itself when it reads graphs, else its
    single logdir; KeyError when neither can."""
    if callable(getattr(source, "graph", None)):
        return source
    single = source.single
    if single is None:
        raise KeyError(f"run {run!r}: graphs are shown for a single logdir")
    return single


def graph_stamp(source: MultiLogdir, run: str, tag: str) -> Any:
    """What names the graph of ``run`` and ``tag`` now (see the module docstring); KeyError
    when the run or the graph does not exist."""
    tags = source.tags(run)
    if tag and tags.get(tag) not in GRAPH_PLUGINS:
        raise KeyError(f"run {run!r} has no graph tag {tag!r}")
    if not tag and not has_run_graph(tags):
        raise KeyError(f"run {run!r} has no op graph")
    lg = _logdir(source, run)
    try:
        given = lg.graph(run, tag)
    except TypeError:  # a Logdir that gives only the op graph's bytes
        given = None if tag else lg.graph(run)
        if tag:
            return _tag_payload(source, lg, run, tag, tags[tag])
    if given is None:
        raise KeyError(f"run {run!r} has no graph {tag!r}")
    return given


def _tag_payload(source: MultiLogdir, lg: Any, run: str, tag: str, plugin: str) -> tuple[bytes, bytes | None]:
    if plugin == PLUGIN_TAGGED_RUN_METADATA:
        return lg.run_metadata(run, tag), lg.graph(run)
    return payload_bytes(source.tensors(run, tag).values[-1]), None


def read_graph(source: MultiLogdir, run: str, tag: str, stamp: Any) -> Graph:
    """The Graph a stamp names (GraphError when its bytes cannot be read)."""
    if isinstance(stamp, Graph):
        return stamp
    if not tag:
        graph = run_graph(stamp)
        if graph is None:
            raise KeyError(f"run {run!r} has no op graph")
        return graph
    payload, base_bytes = stamp
    base = run_graph(base_bytes) if base_bytes is not None else None
    return graph_of_tag(source.tags(run)[tag], payload, base=base)
