"""The values of literal tokens, shared by programs and inputs (`Terms`, `number`, `step`, `unescape`): an
integer must fit clingo's 32 bits (its digits are counted before it is converted: `bounded_int`), a step lies in
0..`bounds.MAX_STEP`, a string's escapes are `\\"`, `\\\\` and `\\n`; a literal clingo cannot hold is a `BadLiteral`
at its span (`span_of`)."""

from __future__ import annotations

import clingo
from lark import Token, Transformer

from ..bounds import MAX_STEP
from .ast import NOWHERE, Constant, Span, Variable

INT_RANGE = (-(2**31), 2**31 - 1)
# clingo's keyword, which a `.ded` program cannot use as a name either (its lexer has the token NOT).
KEYWORD = "not"
# The most digits an integer in INT_RANGE has (leading zeros aside): a longer one is out of range uncounted.
INT_DIGITS = len(str(2**31))



def span_of(meta_or_token) -> Span:
    """The source span of a token or of a tree's `meta` (an empty tree has none)."""
    m = meta_or_token
    if isinstance(m, Token):
        return Span(m.line, m.column, m.end_line, m.end_column)
    if getattr(m, "empty", False):
        return Span(0, 0, 0, 0)
    return Span(m.line, m.column, m.end_line, m.end_column)


class BadLiteral(ValueError):
    """A literal clingo cannot hold (a string with an unknown escape, an integer out of range); `span` is where."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


def unescape(token: Token) -> str:
    """The value of a string literal: `\\"` is a quote, `\\\\` a backslash, `\\n` a newline."""
    out, body, i = [], token[1:-1], 0
    while i < len(body):
        if body[i] == "\\":
            nxt = body[i + 1]
            if nxt not in '"\\n':
                span = span_of(token) if isinstance(token, Token) else NOWHERE
                raise BadLiteral(
                    f"unknown escape '\\{nxt}' in the string {token}: write \\\" for a quote, "
                    "\\\\ for a backslash, \\n for a newline",
                    span,
                )
            out.append({"n": "\n"}.get(nxt, nxt))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def shown_literal(token: str) -> str:
    """A literal as a message quotes it: a long one by its ends and its length."""
    return token if len(token) <= 40 else f"{token[:12]}…{token[-12:]} ({len(token)} characters)"


def bounded_int(token: str, low: int, high: int) -> int | None:
    """The integer `token` (decimal digits, an optional '-') if it lies in low..high, else None.

    Its digits are counted before it is converted: Python converts no more than 4,300 digits.
    """
    digits = token.lstrip("-").lstrip("0")
    if len(digits) > INT_DIGITS:
        return None
    value = int(digits or "0") * (-1 if token.startswith("-") else 1)
    return value if low <= value <= high else None


def number(token: Token) -> clingo.Symbol:
    """An integer literal; clingo's integers have 32 bits."""
    value = bounded_int(token, *INT_RANGE)
    if value is None:
        shown = shown_literal(str(token))
        raise BadLiteral(
            f"integer {shown} is out of range: clingo's integers lie in {INT_RANGE[0]}..{INT_RANGE[1]} "
            f'(write it as a string, "{shown}", if it is a name)',
            span_of(token),
        )
    return clingo.Number(value)


def step(token: Token) -> int:
    """The step k of an event `@k`: it lies in 0..`MAX_STEP`, the largest horizon."""
    value = bounded_int(token[1:], 0, MAX_STEP)
    if value is None:
        raise BadLiteral(
            f"the step of the event '{shown_literal(str(token))}' is out of range: a step lies in 0..{MAX_STEP}, "
            "the largest horizon",
            span_of(token),
        )
    return value


class Terms(Transformer):
    """Terms shared by programs and inputs: a variable, a name, an integer, a string."""

    def variable(self, items):
        (tok,) = items
        return Variable(str(tok), span_of(tok))

    def identifier(self, items):
        (tok,) = items
        return Constant(clingo.Function(str(tok)), span_of(tok))

    def integer(self, items):
        (tok,) = items
        return Constant(number(tok), span_of(tok))

    def string(self, items):
        (tok,) = items
        return Constant(clingo.String(unescape(tok)), span_of(tok))
