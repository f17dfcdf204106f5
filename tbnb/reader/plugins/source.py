"""What the plugin views read from, and how they report bad data.

The plugin modules are written against this small protocol rather than against ``Logdir`` itself,
so that they need nothing beyond the reader's public methods (and tests can hand them any object
with these methods). A plugin view never raises on bad data that a writer could have produced: it
returns a ``PluginProblem`` next to what it could read, so that one malformed summary costs one
card, not the dashboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

if TYPE_CHECKING:
    from tbnb.format.proto import summary_pb2


class HasStep(Protocol):
    step: int


S = TypeVar("S", bound=HasStep)


class LogdirLike(Protocol):
    """The public reading methods of ``tbnb.Logdir`` that the plugin views use."""

    def runs(self) -> list[str]: ...

    def tags(self, run: str) -> dict[str, str]: ...

    def metadata(self, run: str, tag: str) -> summary_pb2.SummaryMetadata | None: ...

    def tensors(self, run: str, tag: str) -> Any: ...

    def scalars(self, run: str, tag: str) -> Any: ...


@dataclass(frozen=True)
class PluginProblem:
    """One piece of plugin data that could not be used as written, and why.

    ``step`` is None when the problem is not about one step (a tag's metadata, a whole layout).
    """

    run: str
    tag: str
    step: int | None
    message: str

    def __str__(self) -> str:
        step = f", step {self.step}" if self.step is not None else ""
        where = f"run {self.run!r}, tag {self.tag!r}{step}"
        return f"{where}: {self.message}"


def tags_of_plugin(source: LogdirLike, run: str, plugin: str) -> list[str]:
    """The run's tags that belong to ``plugin``, in the reader's (sorted) order."""
    return [tag for tag, name in source.tags(run).items() if name == plugin]


def plugin_content(source: LogdirLike, run: str, tag: str) -> bytes | None:
    """The ``plugin_data.content`` bytes of the tag's first metadata, or None if it has none."""
    md = source.metadata(run, tag)
    if md is None or not md.HasField("plugin_data"):
        return None
    return bytes(md.plugin_data.content)


def choose_step(steps: np.ndarray, wanted: int | None) -> int | None:
    """The step a card shows: ``wanted`` if present, else the nearest one (the earlier on a tie);
    the last step when nothing is asked; None when there are no steps. ``steps`` is ascending."""
    if not len(steps):
        return None
    if wanted is None:
        return int(steps[-1])
    distance = np.abs(np.asarray(steps, dtype=np.float64) - float(wanted))
    return int(steps[int(np.argmin(distance))])


def pick_step(items: Sequence[S], wanted: int | None) -> tuple[np.ndarray, S | None]:
    """The steps of ``items`` (ascending, for a card's slider) and the item ``choose_step`` picks."""
    steps = np.array([item.step for item in items], dtype=np.int64)
    chosen = choose_step(steps, wanted)
    return steps, next((item for item in items if item.step == chosen), None)
