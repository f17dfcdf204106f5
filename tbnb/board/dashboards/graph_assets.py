"""The graph explorer's script, handed to the page over the comm when it first shows a graph.

The script (the explorer's drawing and panels, and the layout library, dagre, with the nested
layout, run by the page in a worker so that laying out a large level never blocks it) is built
by the JS build next to the bundle (``js/build_graph_explorer.mjs``). It is not part of the
bundle: the bundle is saved with every widget, and most boards never show a graph.
"""

from __future__ import annotations

import functools

from ..assets import BUILD_HINT, BUNDLE

#: The explorer's script, written by the JS build beside the bundle.
EXPLORER_SCRIPT = BUNDLE.with_name("graph_explorer.js")


@functools.lru_cache(maxsize=1)
def _read(path: str, mtime_ns: int) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def explorer_script() -> bytes:
    """The explorer's script; RuntimeError if the JS build did not write it."""
    try:
        stat = EXPLORER_SCRIPT.stat()
    except FileNotFoundError:
        raise RuntimeError(f"the graph explorer's script is not built ({EXPLORER_SCRIPT.name} is missing): "
                           f"{BUILD_HINT}") from None
    return _read(str(EXPLORER_SCRIPT), stat.st_mtime_ns)
