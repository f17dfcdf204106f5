"""The contract between the router and the dashboards: a request's typed fields, the error a
page request can be refused with, the board settings a handler may use, and the handler type.

Every dashboard module (dashboards/) imports its names from here and nothing from the widget,
so that a dashboard is a set of pure functions of the source and the request.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sources import MultiLogdir

#: A reply: the message's content and its binary buffers.
Reply = tuple[dict[str, Any], list[Any]]


#: A field's value as quoted in an error: cut short (a page may send megabytes).
_quoted = reprlib.Repr()
_quoted.maxstring = _quoted.maxother = 200
_quoted.maxlist = _quoted.maxdict = 10
_quoted.maxlevel = 3


def quoted(value: Any) -> str:
    """``repr(value)`` cut short (at most about 300 characters), for an error message."""
    text = _quoted.repr(value)
    return text if len(text) <= 300 else text[:300] + "..."


class RequestError(ValueError):
    """A page request the kernel cannot answer; the page gets it as an ``error`` reply."""


class Fields:
    """Typed access to a request's fields; a missing or mistyped field is a RequestError."""

    def __init__(self, content: dict[str, Any]) -> None:
        self.content = content

    def _get(self, name: str) -> Any:
        if name not in self.content:
            raise RequestError(f"{self.content.get('type')!r} request needs {name!r}")
        return self.content[name]

    def integer(self, name: str) -> int:
        value = self._get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RequestError(f"{name!r} must be an integer, got {quoted(value)}")
        return value

    def string(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise RequestError(f"{name!r} must be a string, got {quoted(value)}")
        return value

    def strings(self, name: str) -> list[str]:
        """A list of strings, each kept once (first place): a page repeating one run 100,000
        times would otherwise make a reply of 100,000 copies of its data."""
        value = self._get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RequestError(f"{name!r} must be a list of strings, got {quoted(value)}")
        return list(dict.fromkeys(value))

    def choice(self, name: str, options: tuple[str, ...], default: str) -> str:
        value = self.content.get(name, default)
        if value not in options:
            raise RequestError(f"{name!r} must be one of {list(options)}, got {quoted(value)}")
        return value

    def bounds(self, name: str) -> list[float] | None:
        value = self.content.get(name)
        if value is None:
            return None
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                           for v in value)):
            raise RequestError(f"{name!r} must be null or [x0, x1] with finite numbers, got {quoted(value)}")
        return [float(v) for v in value]

    def width(self, name: str) -> int:
        """Pixels: any positive number (a measured width is fractional), rounded up."""
        value = self._get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
            raise RequestError(f"{name!r} must be a positive number of pixels, got {quoted(value)}")
        return math.ceil(value)


@dataclass(frozen=True)
class Settings:
    """The board settings a handler may need, read once per request and passed explicitly
    (a handler never sees the widget): the default x axis and the largest blob sent."""

    x_axis: str
    max_blob_bytes: int


#: A dashboard's answer to one request type: ``handler(source, request, settings) -> (reply, buffers)``.
Handler = Callable[["MultiLogdir", dict[str, Any], Settings], Reply]
#: Which remembered request a newer one replaces (see pushed.py): ``key(request) -> tuple``.
PushKey = Callable[[Mapping[str, Any]], tuple[Any, ...]]
