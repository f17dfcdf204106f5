"""The bounds of a page request, in one table (protocol.md, "Bounds"), checked by the router
before any handler sees the request.

Why: whoever views the page (a Voila viewer, a shared notebook) can send any message, and the
kernel answers it on its main thread. A request's size must not decide how much the kernel
allocates or how long it works: a ``width`` of 10^12 pixels, ``k`` of 10^9 neighbours, a step
past int64, a list of ten million runs or a string of a gigabyte would each take memory or time
in proportion, and a nesting ten thousand deep would overflow a recursive reader. Over a bound,
the page gets an ``error`` reply naming the bound, and nothing is allocated for the request.

The structural bounds hold for every request type, a new one included; ``FIELDS`` adds the
numeric fields whose value sizes what a handler computes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..reader.user_regex import MAX_PATTERN_CHARS
from .request import RequestError

#: Deepest nesting of lists and objects (the request itself is depth 1; the deepest a page
#: sends, ``groups.by`` of a series request, is 3).
MAX_DEPTH = 8
#: Longest string, in characters: a regex (reader/user_regex.py) or a run name.
MAX_STRING = MAX_PATTERN_CHARS
#: Most entries in one list or object (the runs of a sweep, a graph's open scopes).
MAX_ENTRIES = 100_000
#: Most values in a whole request, nested ones counted.
MAX_VALUES = 1_000_000
#: Integers: the kernel's steps and indices are int64.
INT_MIN, INT_MAX = -(2 ** 63), 2 ** 63 - 1

#: (request type, field) -> the closed range of its number, where the number sizes the work:
#: checked when the field is a number (its type is the handler's to check). Indices into data
#: (a row, an image of a step, a mesh sample) size nothing: their handlers check them against the data.
FIELDS: dict[tuple[str, str], tuple[float, float]] = {
    ("series", "width"): (0, 100_000),             # pixels; the kernel draws at most 10,000
    ("graph", "limit"): (0, 10_000),               # search matches listed
    ("projector_neighbors", "k"): (1, 10_000),     # neighbours
}


def _refuse(what: str) -> RequestError:
    return RequestError(f"request over its bounds: {what} (protocol.md, Bounds)")


def check_request(content: Mapping[str, Any]) -> None:
    """RequestError if ``content`` holds anything over the bounds above, or anything but JSON
    values (dicts with string keys, lists, strings, numbers, booleans, null).

    Iterative, so a request nested deeper than Python's recursion limit is refused, not crashed
    on; it stops at the first value over a bound, so its cost is bounded by MAX_VALUES.
    """
    stack: list[tuple[Any, int]] = [(content, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise _refuse(f"more than {MAX_VALUES:,} values")
        if value is None or isinstance(value, (bool, float)):
            continue
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise _refuse(f"a string of {len(value):,} characters (at most {MAX_STRING:,})")
        elif isinstance(value, int):
            if not INT_MIN <= value <= INT_MAX:
                raise _refuse("an integer outside int64")
        elif isinstance(value, (list, tuple, dict)):
            if depth > MAX_DEPTH:
                raise _refuse(f"lists or objects nested deeper than {MAX_DEPTH}")
            if len(value) > MAX_ENTRIES:
                raise _refuse(f"a list or object of {len(value):,} entries (at most {MAX_ENTRIES:,})")
            if isinstance(value, dict):
                for key in value:
                    if not isinstance(key, str):
                        raise _refuse(f"an object key of type {type(key).__name__}")
                    stack.append((key, depth + 1))
                stack.extend((v, depth + 1) for v in value.values())
            else:
                stack.extend((v, depth + 1) for v in value)
        else:
            raise _refuse(f"a value of type {type(value).__name__}")
    kind = content.get("type")
    for (request_type, name), (lo, hi) in FIELDS.items():
        if request_type != kind or name not in content:
            continue
        number = content[name]
        if isinstance(number, (int, float)) and not isinstance(number, bool) and not (
                math.isfinite(number) and lo <= number <= hi):
            raise _refuse(f"{name!r} is {number!r}, outside [{lo:g}, {hi:g}]")
