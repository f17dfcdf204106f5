"""The Board's trait types beyond traitlets' own: lists of strings that also take one string,
lists of choices, and lists of regular expressions checked to compile with RE2 (the page and
Python both write them; the kernel matches them in linear time: reader/user_regex.py)."""

from __future__ import annotations

from typing import Any

import traitlets
from traitlets import TraitError, Unicode

from ..reader.user_regex import PatternError, compile_excepting, compile_regex


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
    """A list of regular expressions, each checked to compile with RE2 (reader/user_regex.py:
    the syntax); with ``excepting``, also in the page's narrowed form ``(?!(?:E)$)(?:P)``
    (``hidden_patterns``: P except E)."""

    def __init__(self, default_value: list[str] | None = None, excepting: bool = False) -> None:
        super().__init__(default_value)
        self.excepting = excepting

    def validate(self, obj: Any, value: Any) -> Any:
        value = super().validate(obj, value)
        check = compile_excepting if self.excepting else compile_regex
        for pattern in value:
            try:
                check(pattern)
            except PatternError as err:
                raise TraitError(f"{self.name}: {err}") from None
        return value


def check_regex(name: str, pattern: str, ignore_case: bool = False) -> str:
    """``pattern`` if RE2 compiles it, else a TraitError naming the trait (a single-pattern
    trait's validator: ``graph_search``, ``projector_search``)."""
    try:
        compile_regex(pattern, ignore_case)
    except PatternError as err:
        raise TraitError(f"{name}: {err}") from None
    return pattern
