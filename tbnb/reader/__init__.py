"""Reading TensorBoard logdirs: a pipeline of layers, one subpackage each.

``files`` → ``records`` → ``events`` → ``runs`` → ``plugins`` → ``logdir``: each layer imports
only the layers before it (``tests/test_architecture.py`` checks it), all of them the wire
format in ``tbnb.format``, and ``user_regex`` (RE2, the one compiler of user and page regexes)
is shared by every layer and by the Board.

``Logdir``, ``LogdirError`` and ``load`` are imported on first use, so that importing one layer
(``tbnb.reader.records.records`` in a forked worker, say) does not import all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .logdir.logdir import Logdir, LogdirError, load

__all__ = ["Logdir", "LogdirError", "load"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from .logdir import logdir

        return getattr(logdir, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
