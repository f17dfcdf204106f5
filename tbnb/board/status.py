"""The Board's ``status`` trait: counts, whether it polls, and the one message worth showing
(a logdir still to be created, runs whose files vanished), recomputed after each reload."""

from __future__ import annotations

from typing import Any

from .core import totals
from .sources import MultiLogdir


def next_status(source: MultiLogdir, old: dict[str, Any], *, polling: bool, removed: list[str],
                changed_at: float | None, message: str | None = None) -> dict[str, Any] | None:
    """The status after a reload (``changed_at``: when data changed, None if nothing did), or
    None when it would equal ``old``. An idle tick that changes nothing does not count every
    series again."""
    missing = source.missing()
    if message is None and missing:
        message = f"waiting for {', '.join(missing)} to be created"
    if message is None and removed:
        message = f"removed from the logdir, their data dropped: {', '.join(removed)}"
    if (changed_at is None and old and message == old.get("message") and polling == old.get("polling")
            and len(source.problems) == old.get("problems")):
        return None
    status = {**totals(source), "polling": polling, "message": message,
              "last_reload": changed_at if changed_at is not None else old.get("last_reload")}
    return status if status != old else None
