"""The Board's trait types beyond traitlets' own: lists of strings that also take one string,
lists of choices, and lists of regular expressions checked to compile."""

from __future__ import annotations

import re
from typing import Any

import traitlets
from traitlets import TraitError, Unicode


class StrList(traitlets.List):
    """A list of strings that also accepts one string (``board.pinned = "loss"``)."""

    def __init__(self, default_value: list[str] | None = None) -> None:
        super().__init__(trait=Unicode(), default_value=default_value or [])

    def validate(self, obj: Any, value: Any) -> Any:
        return super().validate(obj, [value] if isinstance(value, str) else value)


class ChoiceList(StrList):
    """A list of distinct values from ``choices`` (a repeated value is kept once, first place)."""

    def __init__(self, choices: tuple[str, ...], default_value: list[str] | None = None) -> None:
        super().__init__(default_value)
        self.choices = choices

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        bad = [v for v in value if v not in self.choices]
        if bad:
            raise TraitError(f"{self.name}: {bad} not among {list(self.choices)}")
        return list(dict.fromkeys(value))


class RegexList(StrList):
    """A list of regular expressions, each checked to compile (the page runs them too)."""

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as err:
                raise TraitError(f"{self.name}: invalid regular expression {pattern!r}: {err}") from None
        return value
