"""The reader's plugin views (``tbnb.reader.plugins``) over a board's source.

The plugin views read through ``LogdirLike`` (runs, tags, metadata, tensors, scalars). A board
reads a ``MultiLogdir``, whose run names may carry a logdir's name as prefix; this adapter gives
it the one method the views need beyond the board's read API, ``metadata``, by finding the logdir
behind a merged run name with the naming rule ``MultiLogdir`` documents (a named logdir's runs are
``name/run``, its root run ``.`` is ``name``; an unnamed logdir keeps its run names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..sources import MultiLogdir

if TYPE_CHECKING:
    from ...reader.proto import summary_pb2


class PluginSource:
    """``LogdirLike`` over a MultiLogdir: every method but ``metadata`` is the source's own."""

    def __init__(self, source: MultiLogdir) -> None:
        self.source = source

    def runs(self) -> list[str]:
        return self.source.runs()

    def tags(self, run: str) -> dict[str, str]:
        return self.source.tags(run)

    def tensors(self, run: str, tag: str) -> Any:
        return self.source.tensors(run, tag)

    def scalars(self, run: str, tag: str) -> Any:
        return self.source.scalars(run, tag)

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None:
        """The tag's first metadata in the logdir holding ``run`` (None if it has none)."""
        own = getattr(self.source, "metadata", None)
        if callable(own):
            return own(run, tag)
        unnamed = []
        for name, lg in self.source.entries:
            if name is None:
                unnamed.append(lg)
            elif run == name:
                return lg.metadata(".", tag)
            elif run.startswith(name + "/"):
                return lg.metadata(run[len(name) + 1:], tag)
        for lg in unnamed:
            if run in lg.runs():
                return lg.metadata(run, tag)
        raise KeyError(f"no run {run!r}")
