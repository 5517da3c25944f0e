"""Values as keys in clingo's order: the cells of the Spark engine's tables (`spark`).

Every cell (the node included) is a string `key` whose byte order is clingo's order on terms
(integers < names < strings, `values.order`): an integer n is "0" followed by n + 2^40 in 13 digits,
a name "1" and the name, a string "2", its content, NUL, and its text as written. So `<`, min and max
are plain string comparisons, equality is string equality, and a join compares strings; arithmetic
reads an integer back as a long (`number`). `encode` and `decode` work on one value in the driver;
`encode_column`, `decode_column`, `number`, `wrap` and `number_key` are the same as Spark column
expressions (`F`: `pyspark.sql.functions`, passed in, so that reading this module starts no JVM).
"""

from __future__ import annotations

import re

from .values import NUMBER

OFFSET = 2**40
"""Added to an integer before it is written in `DIGITS` digits: every key of an integer is as long as any other."""
DIGITS = 13

def encode(text: str) -> str:
    """The key of a value written as text (`values.value`): its byte order is clingo's order (`values.order`)."""
    if text.startswith('"'):
        inner = text[1:-1]
        return "2" + re.sub(r"\\(.)", r"\1", inner) + "\x00" + inner
    if NUMBER.fullmatch(text):
        return "0" + str(int(text) + OFFSET).zfill(DIGITS)
    return "1" + text


def decode(key: str) -> str:
    """The text of a value from its key (`encode`'s inverse)."""
    kind, rest = key[0], key[1:]
    if kind == "0":
        return str(int(rest) - OFFSET)
    if kind == "1":
        return rest
    return '"' + rest[rest.index("\x00") + 1:] + '"'


def encode_column(F, c):
    """`encode` as a column expression."""
    inner = c.substr(F.lit(2), F.length(c) - 2)
    string = F.concat(F.lit("2"), F.regexp_replace(inner, r"\\(.)", "$1"), F.lit("\x00"), inner)
    number = number_key(F, c.cast("long"))
    return F.when(c.startswith('"'), string).when(c.rlike(r"^-?(0|[1-9][0-9]*)$"), number).otherwise(F.concat(F.lit("1"), c))


def decode_column(F, k):
    """`decode` as a column expression."""
    rest = k.substr(F.lit(2), F.length(k))
    number = (rest.cast("long") - F.lit(OFFSET)).cast("string")
    text = F.concat(F.lit('"'), k.substr(F.instr(k, "\x00") + 1, F.length(k)), F.lit('"'))
    return F.when(k.startswith("0"), number).when(k.startswith("1"), rest).otherwise(text)


def number(F, k):
    """The integer of a key as a long; null for a name or a string (an undefined operand)."""
    return F.when(k.startswith("0"), k.substr(F.lit(2), F.lit(DIGITS)).cast("long") - F.lit(OFFSET))


def wrap(F, n):
    """A long as clingo's 32-bit arithmetic leaves it (`values.wrap`)."""
    return F.pmod(n + F.lit(2**31), F.lit(2**32)) - F.lit(2**31)


def number_key(F, n):
    """The key of a long; null stays null (an undefined value: the row is dropped)."""
    return F.concat(F.lit("0"), F.lpad((n + F.lit(OFFSET)).cast("string"), DIGITS, "0"))
