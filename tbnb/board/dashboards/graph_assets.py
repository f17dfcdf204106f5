"""The graph explorer's layout script, handed to the page over the comm when it first needs it.

The script (the layout library, dagre, with the nested layout around it) is built by the JS
build next to the bundle (``js/build.mjs``). It is not part of the bundle: the bundle is saved
with every widget, and most boards never show a graph; the page asks for it once and runs it in
a worker, so that laying out a large level never blocks the page.
"""

from __future__ import annotations

import functools

from ..assets import BUILD_HINT, BUNDLE

#: The layout worker's script, written by the JS build beside the bundle.
LAYOUT_SCRIPT = BUNDLE.with_name("graph_layout.js")


@functools.lru_cache(maxsize=1)
def _read(mtime_ns: int) -> bytes:
    return LAYOUT_SCRIPT.read_bytes()


def layout_script() -> bytes:
    """The layout worker's script; RuntimeError if the JS build did not write it."""
    try:
        stat = LAYOUT_SCRIPT.stat()
    except FileNotFoundError:
        raise RuntimeError(f"the graph layout script is not built ({LAYOUT_SCRIPT.name} is missing): "
                           f"{BUILD_HINT}") from None
    return _read(stat.st_mtime_ns)
