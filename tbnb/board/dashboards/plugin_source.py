"""The board's source as the reader's plugin views expect it (``LogdirLike``): MultiLogdir's
read API plus ``metadata``, which the plugin views read (e.g. a PR curve's declared number of
thresholds) and MultiLogdir does not offer.

A run name is resolved to its logdir with MultiLogdir's naming rule (a named logdir prefixes its
runs with ``name/``, its root run ``.`` is ``name``), through its public ``entries``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..sources import MultiLogdir

if TYPE_CHECKING:
    from ...reader.proto import summary_pb2


class PluginSource:
    """A MultiLogdir seen through the ``LogdirLike`` protocol of tbnb/reader/plugins/source.py."""

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
        """The tag's first SummaryMetadata; None when the run's logdir cannot be told or has none."""
        for name, lg in self.source.entries:
            if name is not None and run == name:
                inner = "."
            elif name is not None and run.startswith(name + "/"):
                inner = run[len(name) + 1:]
            elif name is None and run in lg.runs():
                inner = run
            else:
                continue
            try:
                return lg.metadata(inner, tag)
            except KeyError:
                return None
        return None
