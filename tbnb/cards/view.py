"""What a card is drawn from: a source and the settings the board had when the card was made.

``CardView`` is a snapshot, so a card does not change when the board does (a report shows what
was on screen then). It is made from a Board's public state (``from_board``) or from plain
arguments (``from_logdir``, for ``tbnb.card`` without a board); the card makers read only it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..board.protocol import (
    DEFAULT_CARD_WIDTH,
    DEFAULT_MAX_BLOB_BYTES,
    DEFAULT_SMOOTHING,
    HISTOGRAM_MODES,
    X_AXES,
)
from ..board.sources import MultiLogdir
from ..board.view import shown_runs, tag_passes, zoom_of
from ..reader.logdir.logdir import Logdir
from .board_state import BoardState
from .colors import color_of, palette_colors

#: Height of a chart card in px (a legend below the plot takes part of it).
DEFAULT_HEIGHT = 340


@dataclass(frozen=True)
class CardView:
    """The source and the settings a card is drawn with (the board's, at the time)."""

    source: MultiLogdir
    runs: tuple[str, ...]  # the shown runs, in the source's order
    colors: Mapping[str, str]
    smoothing: float = DEFAULT_SMOOTHING
    x_axis: str = "step"
    zoom: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # tag -> x range on x_axis
    log_y: bool = False
    histogram_mode: str = "offset"
    width: int = DEFAULT_CARD_WIDTH
    height: int = DEFAULT_HEIGHT
    max_blob_bytes: int = DEFAULT_MAX_BLOB_BYTES
    tag_filter: str = ""

    def __post_init__(self) -> None:
        if self.x_axis not in X_AXES:
            raise ValueError(f"x_axis must be one of {list(X_AXES)}, got {self.x_axis!r}")
        if self.histogram_mode not in HISTOGRAM_MODES:
            raise ValueError(f"histogram_mode must be one of {list(HISTOGRAM_MODES)}, got {self.histogram_mode!r}")
        if not (isinstance(self.smoothing, (int, float)) and 0 <= self.smoothing < 1):
            raise ValueError(f"smoothing must be a number in [0, 1), got {self.smoothing!r}")
        if not (isinstance(self.width, int) and 100 <= self.width <= 4000):
            raise ValueError(f"width must be an int of px in [100, 4000], got {self.width!r}")
        if not (isinstance(self.height, int) and 100 <= self.height <= 4000):
            raise ValueError(f"height must be an int of px in [100, 4000], got {self.height!r}")

    def color(self, run: str) -> str:
        """The run's colour: the board's choice, else the palette by sorted run order."""
        return color_of(run, self.colors, palette_colors(self.source.runs()))

    def zoom_of(self, tag: str) -> tuple[float, float] | None:
        """The x range the card of ``tag`` is zoomed to, or None."""
        return self.zoom.get(tag)

    def tag_plugins(self, tag: str) -> dict[str, str]:
        """``{run: plugin}`` of the shown runs holding ``tag`` (a run removed meanwhile is skipped)."""
        found = {}
        for run in self.runs:
            try:
                plugin = self.source.tags(run).get(tag)
            except KeyError:
                continue
            if plugin:
                found[run] = plugin
        return found

    def visible_tags(self, plugins: Sequence[str]) -> list[str]:
        """Tags of ``plugins`` in the shown runs that pass the tag filter, sorted."""
        tags = set()
        for run in self.runs:
            try:
                tags.update(t for t, p in self.source.tags(run).items() if p in plugins)
            except KeyError:
                continue
        return sorted(t for t in tags if tag_passes(t, self.tag_filter))

    @classmethod
    def from_board(cls, board: BoardState, **overrides: Any) -> CardView:
        """The settings of ``board`` now, read through its public attributes only."""
        # A Board's ``source`` lists its virtual tags (``derived``) beside the logged ones.
        logdir = board.source if isinstance(getattr(board, "source", None), MultiLogdir) else board.logdir
        source = logdir if isinstance(logdir, MultiLogdir) else MultiLogdir([(None, logdir)])
        view_state = board.view_state or {}
        axis = board.x_axis
        zooms: dict[str, tuple[float, float]] = {}
        # A zoom is on the axis the page recorded it on; after an axis change it no longer applies.
        if view_state.get("x_axis", axis) == axis and isinstance(view_state.get("tags"), Mapping):
            for tag in view_state["tags"]:
                z = zoom_of(view_state, tag)
                if z is not None:
                    zooms[tag] = (min(z), max(z))
        settings: dict[str, Any] = {
            "source": source, "runs": tuple(shown_runs(source.runs(), board.runs, board.hidden_runs,
                                                   getattr(board, "hidden_patterns", ()))),
            "colors": dict(board.run_colors), "smoothing": float(board.smoothing), "x_axis": axis,
            "zoom": zooms, "log_y": bool(board.log_y), "histogram_mode": board.histogram_mode,
            "width": int(board.card_width), "max_blob_bytes": int(board.max_blob_bytes),
            "tag_filter": board.tag_filter,
        }
        settings.update(overrides)
        return cls(**settings)

    @classmethod
    def from_logdir(cls, logdir: str | os.PathLike[str] | Logdir | MultiLogdir, *,
                    runs: Sequence[str] = (".*",), hidden_runs: Sequence[str] = (),
                    run_colors: Mapping[str, str] | None = None,
                    zoom: Mapping[str, Sequence[float]] | None = None, **settings: Any) -> CardView:
        """A view of a logdir (a path, read now, or a ``tbnb.Logdir``) with the board's defaults."""
        if isinstance(logdir, MultiLogdir):
            source = logdir
        elif isinstance(logdir, Logdir):
            source = MultiLogdir([(None, logdir)])
        else:
            if not os.path.isdir(logdir):
                raise FileNotFoundError(f"no logdir at {os.fspath(logdir)!r}")
            source = MultiLogdir.open(logdir)
            source.reload()
        if isinstance(runs, str):
            runs = [runs]
        zooms = {}
        for tag, bounds in (zoom or {}).items():
            lo, hi = (float(b) for b in bounds)
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise ValueError(f"zoom of {tag!r} must be two finite numbers, got {bounds!r}")
            zooms[tag] = (min(lo, hi), max(lo, hi))
        return cls(source=source, runs=tuple(shown_runs(source.runs(), list(runs), hidden_runs)),
                   colors=dict(run_colors or {}), zoom=zooms, **settings)
