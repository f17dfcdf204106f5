"""User regexes compiled with RE2 (tbnb/reader/user_regex.py): what Python users write keeps
working where RE2 supports it, what RE2 cannot run is a clear error, and the page's narrowed
hidden patterns ``(?!(?:E)$)(?:P)`` read as P except E give the answers Python's lookahead gives."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tbnb.reader.user_regex import (
    MAX_PATTERN_CHARS,
    PatternError,
    compile_excepting,
    compile_regex,
    escape,
    split_narrowed,
)


def narrowed(pattern: str, exception: str) -> str:
    """What js/src/runs.js writes when a run a hidden pattern catches is ticked."""
    return f"(?!(?:{exception})$)(?:{pattern})"


def test_python_habits_that_re2_keeps() -> None:
    assert compile_regex("(?i)LOSS").search("train/loss")
    assert compile_regex("LOSS", ignore_case=True).search("train/Loss")
    assert not compile_regex("LOSS").search("train/loss")
    assert compile_regex("(?P<group>.*)/seed_\\d+").fullmatch("cfg/seed_3").group("group") == "cfg"
    assert compile_regex("(?P<group>x)").groupindex == {"group": 1}
    assert compile_regex("é+").fullmatch("éé") and compile_regex("(?i)ÉCOLE").fullmatch("école")
    assert compile_regex(r"\pL+").fullmatch("héllo")  # \w is ASCII in RE2: \pL for any script
    assert not compile_regex(r"\w+").fullmatch("héllo")
    assert compile_regex("a.*?b").search("axxbyyb").group(0) == "axxb"
    assert compile_regex("train/.*").match("train/loss") and not compile_regex("loss").match("train/loss")


@pytest.mark.parametrize("name", ["run.1", "a+b (copy) [2]", "x|y$^", "lr=1e-3,bs={64}", "ünï/cödé\\t", "a\nb"])
def test_escaped_names_match_themselves_alone(name: str) -> None:
    for escaped in (escape(name), re.escape(name)):
        assert compile_regex(escaped).fullmatch(name)
        assert not compile_regex(escaped).fullmatch(name + "x")


@pytest.mark.parametrize("pattern", [r"(a)\1", "(?P<g>a)(?P=g)", "(?=a)a", "(?!a)b", "(?<=a)b", "(?<!a)b",
                                     "a{1001}", "(?x) a", "(", "[a", "a**", r"a\Z"])
def test_unsupported_or_invalid_patterns_are_clear_errors(pattern: str) -> None:
    with pytest.raises(PatternError, match=r"invalid regular expression .*RE2"):
        compile_regex(pattern)


def test_limits_and_types() -> None:
    with pytest.raises(PatternError, match="characters: at most"):
        compile_regex("a" * (MAX_PATTERN_CHARS + 1))
    with pytest.raises(PatternError, match="must be a string"):
        compile_regex(["a"])  # type: ignore[arg-type]
    with pytest.raises(PatternError, match="must be a string"):
        compile_excepting(None)  # type: ignore[arg-type]
    long_pattern = "|".join(f"run_{i}" for i in range(5000))
    assert compile_regex(long_pattern).fullmatch("run_4999")
    hostile = "x" * 50_000 + "(" * 10
    with pytest.raises(PatternError) as err:
        compile_regex(hostile)
    assert len(str(err.value)) < 600  # a hostile pattern is cut short in the message


def test_linear_time_on_catastrophic_patterns() -> None:
    text = "a" * 100_000 + "!"
    start = time.perf_counter()
    for pattern in ("(a+)+$", "(a|aa)+$", "(.*a){20}$", "(a*)*b"):
        assert compile_regex(pattern).search(text) is None
        assert not compile_excepting(narrowed(pattern, "b")).fullmatch(text)
    assert time.perf_counter() - start < 1.0


def test_narrowed_form_is_split_and_nested() -> None:
    assert split_narrowed(narrowed(".*", "b")) == (".*", ["b"])
    twice = narrowed(narrowed("x.*", r"x\)\[\(|y"), "b|c")
    assert split_narrowed(twice) == ("x.*", ["b|c", r"x\)\[\(|y"])
    with_class = narrowed("[)(]x", "[)]y|(z)")
    assert split_narrowed(with_class) == ("[)(]x", ["[)]y|(z)"])
    for not_narrowed in ("(?!(?:a)$)(?:b)c", "(?!(?:a)$)b", "(?!(?:a)(?:b)", "plain"):
        assert split_narrowed(not_narrowed) == (not_narrowed, [])
    assert not compile_excepting(narrowed("run_.*", "run_1|run_2")).fullmatch("run_1")
    assert compile_excepting(narrowed("run_.*", "run_1|run_2")).fullmatch("run_3")


SAFE_NAMES = st.text(alphabet="ab_1.", min_size=0, max_size=6)
SAFE_PATTERNS = st.lists(st.sampled_from(["a", "b", "_", "1", "\\.", ".", ".*", "a+", "[ab]", "(a|b)", "b?"]),
                         min_size=1, max_size=4).map("".join)


@settings(max_examples=300, deadline=None)
@given(pattern=SAFE_PATTERNS, exceptions=st.lists(SAFE_PATTERNS, min_size=1, max_size=3), names=st.lists(SAFE_NAMES, max_size=8))
def test_narrowed_patterns_answer_as_pythons_lookahead(pattern: str, exceptions: list[str], names: list[str]) -> None:
    """The page narrows a pattern once per ticked run (nested): RE2's reading of the result as
    a pattern with exceptions hides exactly the runs Python's lookahead would."""
    text = pattern
    for e in exceptions:
        text = narrowed(text, e)
    ours = compile_excepting(text)
    python = re.compile(text)
    for name in names:
        assert ours.fullmatch(name) == (python.fullmatch(name) is not None), (text, name)
