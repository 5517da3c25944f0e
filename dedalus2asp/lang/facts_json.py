"""Reading an input in its JSON form: `{"nodes": {"a": {"r": [["v1", "v2"]]}}}` (tplp2016 §3.3).

A value is a constant (`json_value`), a key of "nodes" names a node
(`node_key`), a relation key `"r@k"` holds events at step k (tr2009
Example 3). A located input (see `located`) is written
`{"facts": {"r": [["a", "v1"]]}, "nodes": {"c": {}}}`: each tuple goes to the
node in its location column (`split_fact`, shared with the `.facts` form).

JSON is read with Python's decoder, bounded: nesting deeper than
`MAX_JSON_DEPTH` is refused before it decodes (the decoder recurses), an
integer out of clingo's range is not converted (`_LongInteger`) and is
reported at its line and column (`_place`: the decoder gives no positions, but
it reads the integers in the order of the text), and a key given twice in one
object is an error (`_Object`), where JSON would keep the last silently.
`facts.parse_json` is the entry point.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Callable, Iterator, Mapping

import clingo

from ..bounds import MAX_STEP
from .ast import NOWHERE, Fact, Span
from .diagnostics import Diagnostic, DiagnosticError, position, raise_if_errors
from .literals import INT_DIGITS, INT_RANGE, KEYWORD, bounded_int, shown_literal

_IDENTIFIER = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_RELATION_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:@(\d+))?")
# The keys of "nodes" that name a number: an integer's own decimal form, "1" but not "01", "+1" or "-0".
_NUMBER_KEY = re.compile(r"-?[1-9][0-9]*|0")
# What JSON nests: a string (skipped whole: its brackets are text) or a bracket.
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
# What JSON writes as an integer: a string (skipped whole: its digits are text) or a number without fraction or exponent.
_JSON_INTEGER = re.compile(r'"(?:[^"\\]|\\.)*"|(-?\d+)(?![.\deE])')
MAX_JSON_DEPTH = 64
"""How deep a JSON input may nest: its form needs 4 levels, and Python's decoder would recurse to its end."""
# A reader's way to report a problem of a JSON input: error(message), optionally with the offset in the text it is at.
JsonReport = Callable[..., None]


class _LongInteger:
    """A JSON integer out of clingo's range, not converted (Python converts no more than 4,300 digits);
    `at`, its offset in the text, once `_place` has found it."""

    def __init__(self, digits: str):
        self.digits = digits
        self.at: int | None = None


class _Integers:
    """The decoder's `parse_int`: integers in clingo's range converted, the others kept as `_LongInteger`, in
    the order the decoder meets them (the order of the text)."""

    def __init__(self):
        self.out_of_range: list[_LongInteger] = []

    def __call__(self, digits: str) -> int | _LongInteger:
        if len(digits.lstrip("-")) <= INT_DIGITS and bounded_int(digits, *INT_RANGE) is not None:
            return int(digits)
        self.out_of_range.append(_LongInteger(digits))
        return self.out_of_range[-1]


def _place(text: str, longs: list[_LongInteger]) -> None:
    """Set the offset of each integer out of range: the n-th such literal of the text (outside strings) is the
    n-th the decoder met."""
    if not longs:
        return
    literals = (m for m in _JSON_INTEGER.finditer(text) if m[1] is not None)
    offsets = [m.start() for m in literals if bounded_int(m[1], *INT_RANGE) is None]
    for long, at in zip(longs, offsets):
        long.at = at


class _Object(dict):
    """A JSON object, and the keys it names more than once (`repeated`): JSON keeps the last silently."""

    def __init__(self, pairs: list[tuple[str, object]]):
        super().__init__(pairs)
        seen: set[str] = set()
        self.repeated = tuple(dict.fromkeys(k for k, _ in pairs if k in seen or seen.add(k)))


def json_value(value) -> clingo.Symbol:
    """A JSON value as a constant: ints are numbers, lower-case identifiers are names, other strings strings.

    "not" is a string: an identifier `not` cannot exist in Dedalus (nor in clingo, whose keyword it is).
    """
    if isinstance(value, _LongInteger):
        raise ValueError(f"integer {shown_literal(value.digits)} is out of range: clingo's integers lie in "
                         f"{INT_RANGE[0]}..{INT_RANGE[1]}")
    if isinstance(value, bool) or not isinstance(value, (int, str)):  # a JSON list, object, float, true or null
        raise ValueError(f"a value must be a string or an integer, not {_short(value)}")
    if isinstance(value, int):
        if not INT_RANGE[0] <= value <= INT_RANGE[1]:
            raise ValueError(f"integer {value} is out of range: clingo's integers lie in {INT_RANGE[0]}..{INT_RANGE[1]}")
        return clingo.Number(value)
    return clingo.Function(value) if _IDENTIFIER.match(value) and value != KEYWORD else clingo.String(value)


def node_key(key: str) -> clingo.Symbol:
    """The node a key of "nodes" names: an integer written as itself ("1", "-2") is that number, any
    other key is a value (`json_value`): "a" is the name a, "01" the string "01".

    JSON keys are strings, so the number 1 is named by the key "1"; any other spelling ("01", "1.0",
    "+1") is the string it spells, as the same JSON string is as a value, so distinct keys are distinct
    nodes and a located input's value "01" is the node of the key "01".
    """
    if not _NUMBER_KEY.fullmatch(key):
        return json_value(key)
    value = bounded_int(key, *INT_RANGE)
    return json_value(_LongInteger(key) if value is None else value)


def _too_deep(text: str) -> int | None:
    """The offset of the first bracket of `text` that opens a level deeper than `MAX_JSON_DEPTH`, if any."""
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        bracket = match[0]
        if bracket == "[" or bracket == "{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return match.start()
        elif bracket == "]" or bracket == "}":
            depth -= 1
    return None


def read_json(text: str, filename: str, columns: Mapping[str, int] | None) -> dict[clingo.Symbol, list[Fact]]:
    """The facts of every node of the JSON form `{"nodes": {"a": {"r": [["v1", "v2"]]}}}` of an input
    (`facts.parse_json` checks them as an instance).

    A value is a constant: an integer is a number, a lower-case identifier
    other than "not" a name, any other string a string; a node's key is read
    alike (`node_key`). A relation key `"r@k"` holds events at
    step k (tr2009 Example 3). With `columns` the input is located (see
    `parse_facts`) and is written `{"facts": {"r": [["a", "v1"]]}}`: each
    tuple goes to the node in its location column; `"nodes": {"c": {}}` may
    name nodes with no facts. Every problem of the structure is reported
    (JSON has no positions past the decoder, so they name the node and the
    relation instead). A key given twice in one object is an error (JSON
    would keep the last), and so is nesting deeper than `MAX_JSON_DEPTH`.
    """
    diagnostics: list[Diagnostic] = []

    def error(message: str, at: int | None = None) -> None:
        line, col = position(text, at) if at is not None else (0, 0)
        span = Span(line, col, line, col + 1) if line else NOWHERE
        diagnostics.append(Diagnostic("json", message, span, filename, text))

    deep = _too_deep(text)
    if deep is not None:
        error(f"invalid JSON: it nests deeper than {MAX_JSON_DEPTH} levels (an input needs 4)", deep)
        raise DiagnosticError(diagnostics)
    integers = _Integers()
    try:
        data = json.loads(text, object_pairs_hook=_Object, parse_int=integers)
    except json.JSONDecodeError as exc:
        error(f"invalid JSON: {exc.msg}", exc.pos)
        raise DiagnosticError(diagnostics) from None
    _place(text, integers.out_of_range)
    problem = _shape_problem(data, columns)
    if problem is not None:
        error(problem)
    raise_if_errors(diagnostics)
    for key in data.repeated:
        error(f"{key!r} is given twice at the top level: a JSON object names each key once")
    nodes = data.get("nodes", {})
    for node in getattr(nodes, "repeated", ()):
        error(f"node {node!r} is given twice in \"nodes\": a JSON object names each key once, and JSON would "
              "keep the last one's facts only (merge the two)")
    facts: dict[clingo.Symbol, list[Fact]] = {}
    for node, relations in nodes.items():
        read = _node_facts(node, relations, columns, error)
        if read is not None:
            facts.setdefault(read[0], []).extend(read[1])
    if columns is not None:
        for node, fact in _located_facts(data.get("facts", {}), columns, error):
            facts.setdefault(node, []).append(fact)
    raise_if_errors(diagnostics)
    return facts


def _shape_problem(data, columns: Mapping[str, int] | None) -> str | None:
    """What is wrong with the outer structure of a JSON input, if anything."""
    shape = '{"nodes": {"<node>": {"<relation>": [[<value>, ...], ...]}}}'
    if columns is not None:
        shape = '{"facts": {"<relation>": [[<node>, <value>, ...], ...]}, "nodes": {"<node without facts>": {}}}'
    if not isinstance(data, dict):
        return f"expected an object {shape}"
    if columns is None:
        if "facts" in data:
            return ('"facts" holds the facts of a located input, but the program is location-transparent: '
                    f"write {shape} (or write the program in a located dialect)")
        if not isinstance(data.get("nodes"), dict):
            return f"expected an object {shape}"
        if not data["nodes"]:
            return f'the input names no node: "nodes" is empty; write {shape}'
        return None
    if not (isinstance(data.get("facts", {}), dict) and isinstance(data.get("nodes", {}), dict)):
        return f"expected an object {shape}"
    if not data.get("facts") and not data.get("nodes"):
        return f"the input names no node: it has no fact and no node; write {shape}"
    return None


def _tuples(where: str, relations, error: JsonReport) -> Iterator[tuple[str, str, int | None, tuple]]:
    """(where, relation, step, values) of every well-formed tuple of an object {relation[@k]: tuples}."""
    if not isinstance(relations, dict):
        error(f"{where}: expected an object mapping relation names to lists of tuples, not {_short(relations)}")
        return
    for key in getattr(relations, "repeated", ()):
        error(f"{where}, relation {key!r}: given twice: a JSON object names each key once, and JSON would keep "
              "the last one's tuples only (merge the two lists)")
    for key, tuples in relations.items():
        match = _RELATION_KEY.fullmatch(key)
        if match is None:
            error(f"{where}: {shown_literal(key)!r} is not a relation name (letters, digits and '_')")
            continue
        at = None if match[2] is None else bounded_int(match[2], 0, MAX_STEP)
        if match[2] is not None and at is None:
            error(f"{where}, relation {shown_literal(key)!r}: the step of its events is out of range: "
                  f"a step lies in 0..{MAX_STEP}, the largest horizon")
            continue
        if not isinstance(tuples, list) or not all(isinstance(t, list) for t in tuples):
            error(
                f"{where}, relation {key!r}: expected a list of tuples, each a list of values, "
                f'e.g. [["v1", "v2"], ["v2", 3]], not {_short(tuples)}'
            )
            continue
        for i, t in enumerate(tuples):
            try:
                yield where, match[1], at, tuple(json_value(v) for v in t)
            except ValueError as exc:
                bad = next((v for v in t if isinstance(v, _LongInteger)), None)
                error(f"{where}, relation {key!r}, tuple {i + 1}: {exc}", bad.at if bad else None)


def _node_facts(node: str, relations, columns: Mapping[str, int] | None, error: JsonReport) -> tuple[clingo.Symbol, list[Fact]] | None:
    """The node named by a key of "nodes" and its facts; of a located input, each must be located there."""
    try:
        key = node_key(node)
    except ValueError as exc:
        error(f"node {shown_literal(node)!r}: {exc}")
        return None
    local = []
    for where, rel, step, values in _tuples(f"node {node!r}", relations, error):
        if columns is None:
            local.append(Fact(rel, values, step=step))
            continue
        placed = split_fact(Fact(rel, values, step=step), columns.get(rel, 0))
        if placed is None or placed[0] != key:
            error(f"{where}, relation {rel!r}: {list(values)} is not located at {node!r}: in a located input "
                  'a fact goes to the node in its location column (write it under "facts")')
        else:
            local.append(placed[1])
    return key, local


def _located_facts(relations, columns: Mapping[str, int], error: JsonReport) -> Iterator[tuple[clingo.Symbol, Fact]]:
    """The tuples of "facts" of a located input, each as (its node, the fact without its location column)."""
    for where, rel, step, values in _tuples('"facts"', relations, error):
        placed = split_fact(Fact(rel, values, step=step), columns.get(rel, 0))
        if placed is None:
            error(f"{where}, relation {rel!r}: {list(values)} has no location column: its first value names the node")
        else:
            yield placed


def _short(value) -> str:
    text = json.dumps(value, default=lambda v: v.digits)  # a `_LongInteger` is written as a string
    return text if len(text) <= 40 else text[:37] + "..."


def split_fact(fact: Fact, column: int) -> tuple[clingo.Symbol, Fact] | None:
    """A located input fact as (its node, the fact without its location column); None if it has no such column."""
    if len(fact.args) <= column:
        return None
    return fact.args[column], replace(fact, args=fact.args[:column] + fact.args[column + 1 :])
