"""What the reader reports instead of failing: damage and unreadable places, each with where it is."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """Something unreadable seen in a logdir; kept so that damage is visible, never fatal."""

    path: str
    offset: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path} @ {self.offset}: {self.reason}"
