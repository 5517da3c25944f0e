"""How a back end of the evaluator holds a value: three representations of clingo's terms.

A value of a run is a constant of P or of H (a node, a name, an integer or a
string), or an integer that arithmetic or an aggregate computed (`T - 1`,
`count<M>`). The evaluator never looks inside a value; a back end needs four things
from its representation (`Values`): the value of a constant written in a rule,
equality, clingo's total order on terms (integers < names < strings), which is the
meaning of `<` in a comparison, and the integer a value stands for, if any, and back
(`integer`, `number`), for arithmetic and `sum<>`/`count<>`.

Arithmetic is clingo's (`arithmetic`): integers of 32 bits that wrap around, `/` and
`%` truncating toward zero as in C, and an operation with no value (a division by
zero, an operand that is not an integer) leaves the rule instance that needs it
without a valuation.

* `Symbols`: a value is the `clingo.Symbol` itself, as a model holds it (explain,
  the inspector, the tests).
* `Numbered`: a value is an int: an integer is itself and any other constant is
  `NAMES` plus its rank among the constants in clingo's order, so that `<` is
  Python's `<` and hashing is cheap (the explorer, which hashes millions of
  configurations). An integer stays an integer, so integer arithmetic stays
  Python's arithmetic.
* `Text`: a value is the string the user writes (`v1`, `42`, `"a b"`): the run
  engine's tables and its Spark columns (`array<string>`); `order` is clingo's
  order on such strings and `cell` reads a table cell as one.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Protocol

import clingo

from ..lang.facts import json_value


class Values(Protocol):
    """A representation of values: the value of a constant, clingo's order as a sort key, integers.

    `key` is None when the values' own `<` is already clingo's order.
    """

    key: Callable[[Any], Any] | None

    def constant(self, symbol: clingo.Symbol) -> Any:
        """The value of the constant `symbol` of a rule."""
        ...

    def integer(self, value: Any) -> int | None:
        """The integer `value` stands for; None if it is a name or a string."""
        ...

    def number(self, n: int) -> Any:
        """The value of the integer n (in clingo's range, see `wrap`)."""
        ...


BITS = 32
"""clingo's integers: 32 bits, two's complement; arithmetic wraps around (2147483647 + 1 = -2147483648)."""


def wrap(n: int) -> int:
    """n as clingo's 32-bit arithmetic leaves it."""
    return (n + 2 ** (BITS - 1)) % 2**BITS - 2 ** (BITS - 1)


def arithmetic(op: str, left: int | None, right: int) -> int | None:
    """`left op right` (`-right` when left is None) with clingo's semantics; None when undefined.

    `/` and `%` truncate toward zero as in C: 7 / -2 = -3, -7 % 2 = -1; a
    division by zero has no value (clingo: "info: operation undefined").
    """
    if left is None:
        return wrap(-right)
    if op == "+":
        return wrap(left + right)
    if op == "-":
        return wrap(left - right)
    if op == "*":
        return wrap(left * right)
    if right == 0:
        return None
    quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
    return wrap(quotient) if op == "/" else wrap(left - right * quotient)


class Symbols:
    """A value is the clingo.Symbol itself; clingo.Symbol's `<` is clingo's order."""

    key = None

    def constant(self, symbol: clingo.Symbol) -> clingo.Symbol:
        return symbol

    def integer(self, value: clingo.Symbol) -> int | None:
        return value.number if value.type == clingo.SymbolType.Number else None

    def number(self, n: int) -> clingo.Symbol:
        return clingo.Number(n)


NAMES = 2**31
"""The first number of a non-integer constant in `Numbered`: above every clingo integer (32 bits)."""


class Numbered:
    """A value is an int: an integer is itself, any other constant NAMES + its rank in clingo's order.

    Made from every constant that can occur (those of P and of H, and the
    nodes); the numbering is monotone, so `<` on the ints is clingo's order.
    """

    key = None

    def __init__(self, symbols: Iterable[clingo.Symbol]):
        names = sorted({s for s in symbols if s.type != clingo.SymbolType.Number})
        self.code: dict[clingo.Symbol, int] = {s: NAMES + i for i, s in enumerate(names)}
        self.names: tuple[clingo.Symbol, ...] = tuple(names)

    def constant(self, symbol: clingo.Symbol) -> int:
        return symbol.number if symbol.type == clingo.SymbolType.Number else self.code[symbol]

    def integer(self, value: int) -> int | None:
        return value if value < NAMES else None

    def number(self, n: int) -> int:
        return n

    def symbol(self, value: int) -> clingo.Symbol:
        """The clingo symbol a value stands for."""
        return self.names[value - NAMES] if value >= NAMES else clingo.Number(value)


NUMBER = re.compile(r"-?(0|[1-9][0-9]*)")
"""An integer as clingo writes it (no leading zeros, no plus sign)."""


def value(symbol: clingo.Symbol) -> str:
    """A clingo symbol as text: as the user writes it."""
    return str(symbol)


def cell(text: str) -> str:
    """A table cell as a Dedalus constant: an integer in clingo's range as it is, anything else as a
    JSON string value reads (`facts.json_value`: a name, or a string; "not" is a string)."""
    if NUMBER.fullmatch(text) and -(2**31) <= int(text) < 2**31:
        return text
    return str(json_value(text))


def order(v: str) -> tuple:
    """clingo's order on terms as text (integers < names < strings), the meaning of `<` in comparisons."""
    if v.startswith('"'):
        return (2, 0, re.sub(r"\\(.)", r"\1", v[1:-1]))
    if NUMBER.fullmatch(v):
        return (0, int(v), "")
    return (1, 0, v)


class Text:
    """A value is the string the user writes (`value`); `order` is the sort key of clingo's order."""

    key = staticmethod(order)

    def constant(self, symbol: clingo.Symbol) -> str:
        return value(symbol)

    def integer(self, value: str) -> int | None:
        return int(value) if NUMBER.fullmatch(value) else None

    def number(self, n: int) -> str:
        return str(n)


SYMBOLS = Symbols()
TEXT = Text()
