"""The derived-series expression language: what it computes, what it refuses, and that no text
(hostile or random) can make it do anything but compute or raise ExpressionError quickly."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tbnb.reader.plugins.diagnostics.expression import (
    FUNCTIONS,
    MAX_DEPTH,
    MAX_LENGTH,
    ExpressionError,
    parse,
)

A = np.array([1.0, 2.0, -3.0, 0.5])
B = np.array([4.0, -1.0, 2.0, 0.0])


def ev(text: str, **values: np.ndarray) -> np.ndarray:
    expr = parse(text)
    env = {"a": A, "b": B, **values}
    return expr.evaluate({tag: env[tag] for tag in expr.tags})


@pytest.mark.parametrize(("text", "expected"), [
    ("{a} + {b}", A + B),
    ("{a} - {b} * 2", A - B * 2),
    ("({a} - {b}) * 2", (A - B) * 2),
    ("{b} / {a} / 2", B / A / 2),
    ("-{a}**2", -(A ** 2)),              # ** binds tighter than a unary minus on its left
    ("2**-{a}", 2.0 ** -A),              # ... and takes one on its right
    ("2**3**{a}", 2.0 ** (3.0 ** A)),    # right-associative
    ("--{a}", A),
    ("+{a}", A),
    ("1e-3 * {a} + .5 + 2.", 1e-3 * A + 0.5 + 2.0),
    ("abs({a})", np.abs(A)),
    ("sqrt(abs({a}))", np.sqrt(np.abs(A))),
    ("exp({a})", np.exp(A)),
    ("log10(abs({a}) + 1)", np.log10(np.abs(A) + 1)),
    ("min({a}, {b})", np.minimum(A, B)),
    ("max({a}, 0)", np.maximum(A, 0.0)),
    ("3", np.full(4, 3.0)),              # a constant broadcasts to the tags' length (here: none, 1)
])
def test_values(text: str, expected: np.ndarray) -> None:
    got = ev(text)
    if not parse(text).tags:
        expected = expected[:1]
    # the same float64 operations in the same order: equal bit for bit
    np.testing.assert_array_equal(got, expected)


def test_tags_keep_any_character_but_the_closing_brace() -> None:
    expr = parse("{loss/val-1.x} - { spaced tag } + {loss/val-1.x}")
    assert expr.tags == ("loss/val-1.x", " spaced tag ")
    got = expr.evaluate({"loss/val-1.x": A, " spaced tag ": B})
    np.testing.assert_array_equal(got, A - B + A)


def test_non_finite_points_never_raise() -> None:
    with np.errstate(all="raise"):  # the evaluation silences numpy itself
        got = ev("{a} / {b} + log({a})")
    assert np.isinf(got[3]) and np.isnan(got[2])  # 0.5/0 and log(-3)
    assert np.isfinite(got[:2]).all()


def test_huge_exponents_are_float_and_fast() -> None:
    start = time.perf_counter()
    got = ev("10**10**10**10 + {a}**1e300 - (-10)**10**10")
    assert time.perf_counter() - start < 0.5  # float64: O(1), never a big integer
    assert got.dtype == np.float64 and not np.isfinite(got).all()


@pytest.mark.parametrize(("text", "position", "words"), [
    ("{a} +", 5, "end of expression"),
    ("{a} + * {b}", 6, "'*'"),
    ("({a} + {b}", 10, "expected ')'"),
    ("{a} + {b})", 9, "unexpected ')'"),
    ("{a", 0, "without its closing"),
    ("{}", 0, "empty tag"),
    ("a}", 1, "without an opening '{'"),
    ("{a} {b}", 4, "unexpected tag {b}"),
    ("loss", 0, "tags go in braces, e.g. {loss}"),
    ("1e999", 0, "not finite"),
    ("min({a})", 7, "min() takes 2 arguments"),
    ("log({a}, {b})", 7, "log() takes 1 argument"),
    ("abs {a}", 4, "parentheses"),
    ("{a} % 2", 4, "unexpected character '%'"),
    ("{a} // 2", 5, "'/'"),
    ("{a} ^ 2", 4, "'^'"),
])
def test_errors_name_their_position(text: str, position: int, words: str) -> None:
    with pytest.raises(ExpressionError) as err:
        parse(text)
    assert err.value.position == position
    assert words in str(err.value)
    # the message shows the text with a caret under the position
    text_line, caret_line = str(err.value).splitlines()[-2:]
    assert caret_line.index("^") - 2 == position and text_line[2:] == text


@pytest.mark.parametrize("text", [
    "{a}.__class__",
    "{a}.real",
    "__import__('os').system('true')",
    "eval('1')",
    "open({a})",
    "getattr({a}, 'x')",
    "(lambda: 1)()",
    "[x for x in ()]",
    "{a}[0]",
    "{a} if {b} else 1",
    "f'{a}'",
    "__builtins__",
    "{a}; import os",
    "{a} and {b}",
    "`{a}`",
])
def test_hostile_text_is_refused(text: str) -> None:
    with pytest.raises(ExpressionError):
        parse(text)


def test_only_listed_functions_are_callable() -> None:
    for name in ("print", "exec", "sum", "pow", "np", "numpy", "float", "type", "setattr", "vars"):
        with pytest.raises(ExpressionError, match="unknown function"):
            parse(f"{name}({{a}})")
    assert set(FUNCTIONS) == {"abs", "log", "log10", "exp", "sqrt", "min", "max"}


@pytest.mark.parametrize("text", [
    "(" * 10_000 + "1" + ")" * 10_000,
    "-" * (MAX_DEPTH + 1) + "{a}",
    "2**" * (MAX_DEPTH + 1) + "2",
    "abs(" * (MAX_DEPTH + 1) + "{a}" + ")" * (MAX_DEPTH + 1),
])
def test_deep_nesting_is_a_clear_error(text: str) -> None:
    text = text[:MAX_LENGTH]  # within the length bound: the depth bound must catch it
    with pytest.raises(ExpressionError, match="nested deeper than"):
        parse(text)


def test_nesting_up_to_the_bound_works() -> None:
    depth = MAX_DEPTH - 1
    assert ev("(" * depth + "{a}" + ")" * depth).tolist() == A.tolist()


def test_long_chains_are_evaluated_without_recursion() -> None:
    text = " + ".join(["{a}"] * (MAX_LENGTH // 6))
    assert len(text) <= MAX_LENGTH
    np.testing.assert_allclose(ev(text), A * (MAX_LENGTH // 6), rtol=1e-12)  # sum of equal floats


def test_very_long_text_is_refused_before_reading_it() -> None:
    start = time.perf_counter()
    with pytest.raises(ExpressionError, match="longer than"):
        parse("{a} + " * 1_000_000)
    assert time.perf_counter() - start < 0.1
    with pytest.raises(TypeError):
        parse(b"{a}")  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}()+-*/,.e0123456789 abcdglmnopqrstx_\n\x00é")), max_size=60))
def test_random_text_parses_or_raises_expression_error(text: str) -> None:
    try:
        expr = parse(text)
    except ExpressionError as err:
        assert 0 <= err.position <= len(text)
        return
    values = {tag: A for tag in expr.tags}
    assert expr.evaluate(values).shape == ((len(A),) if expr.tags else (1,))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_unicode_text_parses_or_raises_expression_error(text: str) -> None:
    try:
        parse(text)
    except ExpressionError:
        pass
