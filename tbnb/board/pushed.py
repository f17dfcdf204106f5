"""Pushed replies (protocol.md): the page's latest data request per card, answered again from
the poll thread when its data changes.

The page's requests are answered on the kernel's main thread, so while a cell runs they wait
and re-asking after ``changed`` cannot keep a chart live; these replies do. The requests are
kept under a lock because the main thread remembers them while the poll thread pushes.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from .request import Reply, RequestError

log = logging.getLogger(__name__)

#: Most data requests remembered (the least recently asked are dropped first).
MAX_REMEMBERED = 256


def push_due(content: Mapping[str, Any], changed: Mapping[str, Any]) -> bool:
    """Whether the answer to a remembered request changed with a ``changed`` message: one of its
    runs has new data for its tag, or was removed. A request of no one tag (a custom card's)
    reads all its runs' data: any new data of its runs."""
    removed, tags = changed["removed_runs"], changed["tags"]
    if "tag" not in content:
        return any(run in removed or tags.get(run) for run in content["runs"])
    tag = content["tag"]
    return any(run in removed or tag in tags.get(run, ()) for run in content["runs"])


class PushedReplies:
    """The remembered requests of one board, by push key; closed when the widget goes away."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._remembered: OrderedDict[tuple[Any, ...], dict[str, Any]] | None = OrderedDict()

    @property
    def closed(self) -> bool:
        return self._remembered is None

    def requests(self) -> list[dict[str, Any]]:
        """The remembered requests, least recently asked first."""
        with self._lock:
            return list(self._remembered.values()) if self._remembered is not None else []

    def remember(self, key: tuple[Any, ...], content: dict[str, Any]) -> None:
        """Keep a data request the page made (answered), replacing the one of the same ``key``."""
        with self._lock:
            if self._remembered is None:  # closed
                return
            self._remembered.pop(key, None)
            self._remembered[key] = dict(content)
            while len(self._remembered) > MAX_REMEMBERED:
                self._remembered.popitem(last=False)

    def close(self) -> None:
        """No more remembering or pushing (the widget is going away)."""
        with self._lock:
            self._remembered = None

    def push(self, changed: Mapping[str, Any], answer: Callable[[dict[str, Any]], Reply],
             send: Callable[[dict[str, Any], list[Any]], None]) -> None:
        """Answer again the remembered requests whose data ``changed``, with ``"push": true``.

        A request that can no longer be answered (e.g. the tag's last run was removed) is
        forgotten; any other failure is logged and the request kept.
        """
        with self._lock:
            if not self._remembered:
                return
            due = [(key, content) for key, content in self._remembered.items() if push_due(content, changed)]
        for key, content in due:
            if self._remembered is None:  # closed meanwhile
                return
            try:
                reply, buffers = answer(content)
            except RequestError:  # nothing to show any more
                with self._lock:
                    if self._remembered is not None and self._remembered.get(key) is content:
                        del self._remembered[key]
                continue
            except Exception:
                log.exception("tbnb: pushing a reply to %r failed", content)
                continue
            send({**reply, "push": True, "runs": list(content["runs"])}, buffers)
