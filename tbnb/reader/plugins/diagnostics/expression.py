"""The derived-series expression language: ``{loss/val} - {loss/train}``, parsed, never evaluated.

The text may come from a page (a Voila viewer types it), so it is read by the small tokenizer and
recursive-descent parser below and compiled to a postfix program over float64 numpy arrays; no
Python object is ever looked up by a name the text gives, and ``eval`` is never called.

Grammar (Python's precedence; ``**`` binds tighter than a unary minus on its left and is
right-associative, so ``-{x}**2`` is ``-({x}**2)`` and ``2**3**2`` is ``2**9``)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("-" | "+") unary | power
    power  := atom ("**" unary)?
    atom   := NUMBER | "{" tag "}" | FUNCTION "(" expr ("," expr)* ")" | "(" expr ")"

- A tag is everything between ``{`` and the next ``}`` (tags hold ``/``, ``-``, ``.``, spaces);
  a tag holding ``}`` cannot be named. Leading and trailing spaces inside the braces are kept.
- Numbers: ``1``, ``2.5``, ``.5``, ``1e-3``; a literal must be finite (``1e999`` is refused).
- Functions (``FUNCTIONS``): ``abs log log10 exp sqrt`` of one argument; ``min max`` of two,
  point by point (``np.minimum``/``np.maximum``: a NaN in either gives NaN).
- Bounds: at most ``MAX_LENGTH`` characters and ``MAX_DEPTH`` levels of nesting (parentheses,
  unary signs, powers, function calls), each refused with a clear ``ExpressionError`` before any
  work, so no text can make the parser recurse without end. Evaluation is a loop over the postfix
  program on float64 arrays: ``10**10**10`` is ``inf`` at once (no big integers), a division by
  zero or the log of a negative number gives a non-finite point, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

#: Longest accepted text, and deepest accepted nesting.
MAX_LENGTH = 2000
MAX_DEPTH = 32

#: The functions an expression may call: name -> (number of arguments, numpy function).
FUNCTIONS: dict[str, tuple[int, Callable[..., np.ndarray]]] = {
    "abs": (1, np.abs),
    "log": (1, np.log),
    "log10": (1, np.log10),
    "exp": (1, np.exp),
    "sqrt": (1, np.sqrt),
    "min": (2, np.minimum),
    "max": (2, np.maximum),
}

_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "**": np.power,
}

_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ExpressionError(ValueError):
    """A text that is not a valid expression; ``position`` is the 0-based character it points at."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.position = position
        super().__init__(f"{message} at position {position}\n{_pointer(text, position)}")


def _pointer(text: str, position: int, width: int = 60) -> str:
    """The text around ``position`` with a caret under it; control characters shown as ``?`` (one
    character each, so the caret stays aligned) and long text cut to a window."""
    start = max(0, min(position - width // 2, len(text) - width))
    shown = "".join(c if c.isprintable() else "?" for c in text[start:start + width])
    return f"  {shown}\n  {' ' * (position - start)}^"


@dataclass(frozen=True)
class Token:
    kind: str  # "number", "tag", "name", "op", "end"
    text: str
    position: int


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an "end" token; ExpressionError on a bad character."""
    if not isinstance(text, str):
        raise TypeError(f"an expression is a str, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters", text, MAX_LENGTH)
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise ExpressionError("'{' without its closing '}'", text, i)
            if end == i + 1:
                raise ExpressionError("empty tag name '{}'", text, i)
            tokens.append(Token("tag", text[i + 1:end], i))
            i = end + 1
        elif c == "}":
            raise ExpressionError("'}' without an opening '{'", text, i)
        elif text.startswith("**", i):
            tokens.append(Token("op", "**", i))
            i += 2
        elif c in "+-*/(),":
            tokens.append(Token("op", c, i))
            i += 1
        elif (m := _NUMBER.match(text, i)) is not None:
            tokens.append(Token("number", m.group(), i))
            i = m.end()
        elif (m := _NAME.match(text, i)) is not None:
            tokens.append(Token("name", m.group(), i))
            i = m.end()
        else:
            shown = c if c.isprintable() else f"U+{ord(c):04X}"
            raise ExpressionError(f"unexpected character {shown!r}", text, i)
    tokens.append(Token("end", "", len(text)))
    return tokens


# A postfix program: ("tag", name) | ("const", float) | ("neg",) | ("bin", op) | ("call", name)
Instruction = tuple


@dataclass(frozen=True)
class Expression:
    """A parsed expression: its text, the tags it names (first-use order) and its program."""

    text: str
    tags: tuple[str, ...]
    program: tuple[Instruction, ...]

    def evaluate(self, values: dict[str, np.ndarray]) -> np.ndarray:
        """The expression over aligned float64 arrays of equal length, one per tag in ``tags``.

        Non-finite results (division by zero, log of a negative number, overflow) are kept as
        inf/NaN points; numpy's warnings about them are silenced, nothing raises.
        """
        lengths = {len(values[tag]) for tag in self.tags}
        if len(lengths) > 1:
            raise ValueError(f"the arrays of an expression's tags must have one length, not {sorted(lengths)}")
        n = lengths.pop() if lengths else 1
        stack: list[np.ndarray] = []
        with np.errstate(all="ignore"):
            for ins in self.program:
                if ins[0] == "tag":
                    stack.append(np.asarray(values[ins[1]], dtype=np.float64))
                elif ins[0] == "const":
                    stack.append(np.float64(ins[1]))
                elif ins[0] == "neg":
                    stack.append(np.negative(stack.pop()))
                elif ins[0] == "bin":
                    right = stack.pop()
                    stack.append(_BINARY[ins[1]](stack.pop(), right))
                else:
                    arity, fn = FUNCTIONS[ins[1]]
                    args = [stack.pop() for _ in range(arity)][::-1]
                    stack.append(fn(*args))
        (result,) = stack
        return np.broadcast_to(np.asarray(result, dtype=np.float64), (n,)).copy()


def parse(text: str) -> Expression:
    """Parse ``text`` (see the module doc); ExpressionError naming the position of what is wrong."""
    parser = _Parser(text, tokenize(text))
    parser.expression(0)
    token = parser.peek()
    if token.kind != "end":
        raise ExpressionError(f"unexpected {_describe(token)}", text, token.position)
    tags = tuple(dict.fromkeys(ins[1] for ins in parser.program if ins[0] == "tag"))
    return Expression(text, tags, tuple(parser.program))


def _describe(token: Token) -> str:
    if token.kind == "end":
        return "end of expression"
    if token.kind == "tag":
        return f"tag {{{token.text}}}"
    return f"{token.text!r}"


class _Parser:
    """Recursive descent over the tokens, appending to a postfix program; ``depth`` counts the
    nesting so that no text can recurse past ``MAX_DEPTH``."""

    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.program: list[Instruction] = []

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def error(self, message: str, token: Token) -> ExpressionError:
        return ExpressionError(message, self.text, token.position)

    def nest(self, depth: int, token: Token) -> int:
        if depth >= MAX_DEPTH:
            raise self.error(f"expression nested deeper than {MAX_DEPTH} levels", token)
        return depth + 1

    def expression(self, depth: int) -> None:
        self.term(depth)
        while self.peek().text in ("+", "-") and self.peek().kind == "op":
            op = self.take().text
            self.term(depth)
            self.program.append(("bin", op))

    def term(self, depth: int) -> None:
        self.unary(depth)
        while self.peek().text in ("*", "/") and self.peek().kind == "op":
            op = self.take().text
            self.unary(depth)
            self.program.append(("bin", op))

    def unary(self, depth: int) -> None:
        token = self.peek()
        if token.kind == "op" and token.text in ("+", "-"):
            self.take()
            self.unary(self.nest(depth, token))
            if token.text == "-":
                self.program.append(("neg",))
            return
        self.power(depth)

    def power(self, depth: int) -> None:
        self.atom(depth)
        token = self.peek()
        if token.kind == "op" and token.text == "**":
            self.take()
            self.unary(self.nest(depth, token))
            self.program.append(("bin", "**"))

    def atom(self, depth: int) -> None:
        token = self.take()
        if token.kind == "number":
            value = float(token.text)
            if not np.isfinite(value):
                raise self.error(f"number {token.text[:20]!r} is not finite", token)
            self.program.append(("const", value))
        elif token.kind == "tag":
            self.program.append(("tag", token.text))
        elif token.kind == "name":
            self.call(token, depth)
        elif token.kind == "op" and token.text == "(":
            self.expression(self.nest(depth, token))
            self.expect(")", token)
        else:
            raise self.error(f"expected a number, a {{tag}}, a function or '(' but found {_describe(token)}", token)

    def call(self, name: Token, depth: int) -> None:
        if name.text not in FUNCTIONS:
            if self.peek().kind == "op" and self.peek().text == "(":
                raise self.error(f"unknown function {name.text!r}; functions: {', '.join(FUNCTIONS)}", name)
            raise self.error(f"unknown name {name.text!r}: tags go in braces, e.g. {{{name.text}}}", name)
        arity = FUNCTIONS[name.text][0]
        opening = self.peek()
        if opening.kind != "op" or opening.text != "(":
            raise self.error(f"function {name.text!r} needs its arguments in parentheses", opening)
        self.take()
        inner = self.nest(depth, name)
        for k in range(arity):
            if k:
                self.expect(",", name, f"{name.text}() takes {arity} arguments")
            self.expression(inner)
        self.expect(")", opening, f"{name.text}() takes {arity} argument{'s' if arity > 1 else ''}")
        self.program.append(("call", name.text))

    def expect(self, text: str, opened: Token, hint: str = "") -> None:
        token = self.peek()
        if token.kind != "op" or token.text != text:
            what = f"expected {text!r} (for the {opened.text!r} at position {opened.position})"
            raise self.error(f"{what} but found {_describe(token)}{'; ' + hint if hint else ''}", token)
        self.take()
