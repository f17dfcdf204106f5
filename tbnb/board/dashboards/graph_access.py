"""Where the graphs dashboard gets a run's graphs from the reader, and how it tells that one changed.

Reading a graph parses it (``Logdir.graph(run, tag)`` returns a new Graph each time), so the
kept hierarchy is checked against a *stamp*: what the reader says about the run without reading
the graph (its tags and their point counts; for a single logdir, its event files' sizes and
times). Only when the stamp moved is the graph read again, and only when it differs from the one
kept (its GraphDef bytes) is the hierarchy rebuilt.
"""

from __future__ import annotations

from typing import Any

from ...reader.plugins.graph import GRAPH_PLUGINS, Graph, GraphError
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
            found = source.graphs(run)
        except KeyError:
            continue
        if found:
            out.append({"run": run, "tags": found})
    return out


def graph_stamp(source: MultiLogdir, run: str, tag: str) -> tuple[Any, ...]:
    """What names the state of ``run``'s graph ``tag`` now, cheaply (see the module docstring);
    KeyError when the run or the graph does not exist."""
    tags = source.tags(run)
    if tag and tags.get(tag) not in GRAPH_PLUGINS:
        raise KeyError(f"run {run!r} has no graph tag {tag!r}")
    if not tag and not has_run_graph(tags):
        raise KeyError(f"run {run!r} has no op graph")
    counts = tuple((t, p, source.point_count(run, t)) for t, p in sorted(tags.items()))
    files: tuple[Any, ...] = ()
    single = source.single
    if single is not None and not single.storage.remote:  # (a URL logdir: the counts say enough)
        directory = single.run_directory(run)
        stats = []
        for path in directory.iterdir():
            try:
                st = path.stat()
            except OSError:
                continue
            if path.is_file():
                stats.append((path.name, st.st_size, st.st_mtime_ns))
        files = tuple(sorted(stats))
    return counts, files


def read_graph(source: MultiLogdir, run: str, tag: str) -> Graph:
    """The run's graph ``tag`` as the reader gives it now; GraphError when it cannot be read."""
    graph = source.graph(run, tag)
    if graph is None:
        raise GraphError("the reader could not read it (see the logdir's problems)")
    return graph


def same_graph(a: Graph, b: Graph) -> bool:
    """Whether two reads give the same graph: equal GraphDef bytes (a graph without them,
    e.g. a Keras model, is taken as changed)."""
    da, db = getattr(a, "graph_def", None), getattr(b, "graph_def", None)
    return da is not None and db is not None and bytes(da) == bytes(db)
