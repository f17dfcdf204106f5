"""Regular expressions that users and the page give (run filters, hidden runs, the tag filter,
run groups, graph and projector searches, custom-scalar charts), matched in time linear in the
text with RE2 (the ``google-re2`` package).

Why not Python's ``re``: it backtracks, so a pattern a dozen characters long such as ``(a+)+$``
holds the interpreter for seconds on a 29-character run name and for hours on a slightly longer
one. A Board takes patterns from whoever views the page (a Voila viewer, a shared notebook), and
the kernel matches them on its one main thread: a hostile or merely unlucky pattern would stall
every Board of the kernel. RE2 matches in time linear in the text whatever the pattern, and
refuses at compile time what it cannot do so.

Accepted syntax: RE2's (https://github.com/google/re2/wiki/Syntax), that is Python's ``re`` less:

* backreferences (``\\1``, ``(?P=name)``), lookahead and lookbehind (``(?=...)``, ``(?!...)``,
  ``(?<=...)``, ``(?<!...)``), conditionals, atomic groups and possessive quantifiers, the
  verbose flag ``(?x)``, ``\\Z`` (write ``\\z`` or ``$``), repetition counts over 1000;
* ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII only (Python's are Unicode): write ``\\pL`` or
  ``\\p{Greek}`` for letters of any script, ``\\pN`` for digits;
* ``$`` without ``(?m)`` matches at the very end only (Python's also before a final newline).

As in Python: ``(?i)`` and the other inline flags ``(?m)``, ``(?s)``, ``(?U)``, named groups
``(?P<name>...)`` (and ``(?<name>...)``), non-greedy quantifiers, classes, Unicode text.
``re.escape``'d text is accepted. A pattern RE2 refuses raises ``PatternError`` (a
``ValueError``) with RE2's reason; nothing is ever run with the backtracking engine.

One exception form is read rather than refused: the page's run selector narrows a hidden
pattern ``P`` so that it stops matching the runs ``E`` by writing ``(?!(?:E)$)(?:P)`` (js
runs.js), possibly nested. ``compile_excepting`` reads that text as ``P`` with the exceptions
``[E, ...]``: a name is matched when ``P`` fully matches it and no exception does, the same
answer as the lookahead, in linear time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import re2

#: Longest pattern compiled (characters): RE2's time is linear in the text, its memory and
#: compile time grow with the pattern. A run selector narrowing a pattern adds one run name
#: per click, far from this.
MAX_PATTERN_CHARS = 100_000
#: Memory RE2 may use for one compiled pattern (bytes); over it RE2 refuses the pattern.
MAX_PATTERN_MEMORY = 64 << 20

_NARROWED_HEAD = "(?!(?:"
_NARROWED_MIDDLE = ")$)(?:"


class PatternError(ValueError):
    """A pattern RE2 refuses (or too long): the message names the pattern and the reason."""


class Regex(Protocol):
    """What a compiled pattern offers (RE2's compiled object; the subset used here)."""

    groupindex: dict[str, int]

    def search(self, text: str) -> Any: ...
    def match(self, text: str) -> Any: ...
    def fullmatch(self, text: str) -> Any: ...


def _options(ignore_case: bool) -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the reason travels in PatternError, not on stderr
    options.max_mem = MAX_PATTERN_MEMORY
    options.case_sensitive = not ignore_case
    return options


def _short(text: str) -> str:
    """Text for a message, cut short when long (a pattern may be a page's hostile text)."""
    return text if len(text) <= 200 else text[:200] + "..."


def _checked(pattern: Any) -> str:
    """``pattern`` if it is a string of at most MAX_PATTERN_CHARS; else PatternError."""
    if not isinstance(pattern, str):
        raise PatternError(f"a regular expression must be a string, got {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"regular expression of {len(pattern)} characters: at most {MAX_PATTERN_CHARS}")
    return pattern


def compile_regex(pattern: str, ignore_case: bool = False) -> Regex:
    """``pattern`` compiled with RE2 (module docstring: the syntax); PatternError if refused.

    Compiled patterns are cached: the run filters are matched again with every page request.
    """
    return _compiled(_checked(pattern), bool(ignore_case))


@lru_cache(maxsize=1024)
def _compiled(pattern: str, ignore_case: bool) -> Regex:
    try:
        return re2.compile(pattern, _options(ignore_case))
    except re2.error as err:
        reason = err.args[0] if err.args else err
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        raise PatternError(f"invalid regular expression {_short(pattern)!r}: {_short(str(reason))} "
                           "(the syntax is RE2's: Python's without lookaround or backreferences)") from None


def _group_end(text: str, start: int) -> int:
    """The index of the ``)`` closing the group opened at ``text[start]`` (``(``), or -1.

    Skips escaped characters and character classes, where a parenthesis is literal.
    """
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            if i < n and text[i] == "^":
                i += 1
            if i < n and text[i] == "]":
                i += 1  # a "]" first in a class is literal
            while i < n and text[i] != "]":
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def split_narrowed(pattern: str) -> tuple[str, list[str]]:
    """``(P, [E, ...])`` of a pattern in the page's narrowed form ``(?!(?:E)$)(?:P)`` (nested:
    outermost exception first); ``(pattern, [])`` for any other pattern."""
    exceptions: list[str] = []
    while pattern.startswith(_NARROWED_HEAD):
        inner_open = len(_NARROWED_HEAD) - 3  # the "(" of "(?:" inside the lookahead
        end = _group_end(pattern, inner_open)
        if end < 0 or not pattern.startswith(_NARROWED_MIDDLE, end):
            break
        body_open = end + len(_NARROWED_MIDDLE) - 3
        if _group_end(pattern, body_open) != len(pattern) - 1:
            break
        exceptions.append(pattern[inner_open + 3:end])
        pattern = pattern[body_open + 3:-1]
    return pattern, exceptions


@dataclass(frozen=True)
class Excepting:
    """A pattern and the exceptions it does not match (``compile_excepting``)."""

    pattern: Regex
    exceptions: tuple[Regex, ...]

    def fullmatch(self, text: str) -> bool:
        """Whether the pattern fully matches ``text`` and no exception does."""
        return (self.pattern.fullmatch(text) is not None
                and not any(e.fullmatch(text) is not None for e in self.exceptions))


def compile_excepting(pattern: str) -> Excepting:
    """A full-match pattern that may be in the page's narrowed form (module docstring), compiled
    with RE2; PatternError if any part is refused."""
    return _excepting(_checked(pattern))


@lru_cache(maxsize=1024)
def _excepting(pattern: str) -> Excepting:
    body, exceptions = split_narrowed(pattern)
    return Excepting(compile_regex(body), tuple(compile_regex(e) for e in exceptions))


def escape(text: str) -> str:
    """``text`` as a pattern matching it literally (RE2's escape: every non-word character)."""
    return re2.escape(text)
