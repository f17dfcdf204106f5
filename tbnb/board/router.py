"""Message routing: each page request validated, answered by the core or by the dashboard
that declares its type (dashboards/__init__.py), and remembered for pushed replies when the
dashboard asks; every failure becomes an ``error`` reply, never an exception in the kernel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from . import dashboards
from .bounds import check_request
from .pushed import PushedReplies
from .request import Handler, PushKey, Reply, RequestError, Settings, quoted
from .sources import MultiLogdir

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any], list[Any]], None]

#: Longest ``message`` of an ``error`` reply, in characters.
MAX_ERROR_CHARS = 2_000


class Router:
    """Answers one board's page requests.

    ``core``: the board's own request types (``index``, ``plotly``), answered from the request
    alone because they need the board's state. ``settings``: read once per request, so that a
    handler sees one consistent set. ``modules``: the dashboard modules (default: the registry,
    read when the router is made). ``core_pushed``: push keys of core request types whose
    replies are pushed too (a custom card's).
    """

    def __init__(self, source: MultiLogdir, settings: Callable[[], Settings],
                 core: Mapping[str, Callable[[dict[str, Any]], Reply]], send: Send,
                 pushed: PushedReplies, modules: Sequence[ModuleType] | None = None,
                 core_pushed: Mapping[str, PushKey] | None = None) -> None:
        self._source = source
        self._settings = settings
        self._send = send
        self._pushed = pushed
        table = dashboards.handlers(modules)
        clash = sorted(set(core) & set(table))
        if clash:
            raise ValueError(f"dashboards may not answer the core request types {clash}")
        self._handlers: dict[str, Handler] = {**{kind: _core_handler(fn) for kind, fn in core.items()}, **table}
        self._push_keys = {**dashboards.push_keys(modules), **(core_pushed or {})}

    @property
    def request_types(self) -> list[str]:
        """Every request type answered, sorted."""
        return sorted(self._handlers)

    def on_msg(self, content: Any, buffers: list[Any]) -> None:
        """Answer one page request; every failure becomes an ``error`` reply, never an exception."""
        if isinstance(content, dict) and str(content.get("kind", "")).startswith("anywidget-command"):
            return  # anywidget's own RPC, answered by anywidget
        request_id = content.get("id") if isinstance(content, dict) else None
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            request_id = None
        try:
            reply, out = self.answer(content)
            key = self._push_keys.get(content["type"])
            if key is not None:
                self._pushed.remember(key(content), content)
        except RequestError as err:
            reply, out = _error(request_id, str(err)), []
        except Exception as err:
            log.exception("tbnb: request %s failed", quoted(content))  # cut short: a page may send megabytes
            reply, out = _error(request_id, f"{type(err).__name__}: {err}"), []
        self._send(reply, out)

    def answer(self, content: Any) -> Reply:
        """The reply to one request; RequestError when it cannot be answered."""
        if not isinstance(content, dict):
            raise RequestError(f"a request must be an object with a 'type', got {type(content).__name__}")
        check_request(content)  # bounds.py: sizes, counts, depth, numbers, before any handler
        kind = content.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise RequestError(f"unknown request type {quoted(kind)}; expected one of {self.request_types}")
        return handler(self._source, content, self._settings())

    def push(self, changed: Mapping[str, Any]) -> None:
        """Answer again the remembered requests whose data ``changed`` (pushed.py)."""
        self._pushed.push(changed, self.answer, self._send)


def _error(request_id: int | None, message: str) -> dict[str, Any]:
    """An ``error`` reply, its message cut to MAX_ERROR_CHARS (it may quote the request)."""
    if len(message) > MAX_ERROR_CHARS:
        message = message[:MAX_ERROR_CHARS] + "..."
    return {"type": "error", "id": request_id, "message": message}


def _core_handler(fn: Callable[[dict[str, Any]], Reply]) -> Handler:
    """A core answer as a handler (the core reads the board's state, not the arguments)."""
    def handler(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
        return fn(content)

    return handler
