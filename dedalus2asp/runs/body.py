"""A rule body compiled for the relational operators: what the evaluator joins, computes, compares and groups.

An atom reads a fact through its `Pattern`: constants to match, repeated variables to equate, and
a lone `_` that binds nothing. Issue #18's constructs are compiled into the same operators
(`Body.of`, once per rule). An arithmetic expression becomes a column computed per row (`extend`, with
clingo's integer semantics: a row where it has no value, as for a division by zero,
is left out): in a head argument, in a comparison side, and in a body atom, where

    p(Y) :- q(X), r(X + 1, Y).      reads r(#1, Y) and keeps the rows with #1 = X + 1.

An aggregate head `tally(C, count<M>) :- vote(C, M).` groups the body's rows by
the node and the other head arguments (`aggregate`): count the distinct values of
M, sum the distinct (term, valuation) pairs as clingo's `#sum{T,V1..Vn : body}`,
min/max in clingo's order; a group without a row yields no fact. The evaluator
(`evaluator`) runs these plans; the back ends (`backend.Backend`) run the operators.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import count
from typing import Any

from ..lang.ast import Aggregate, Arithmetic, Atom, Comparison, Constant, Literal, Rule, Term, Variable


@dataclass(frozen=True)
class Pattern:
    """How the atom R(u1..uk) reads a fact R(a1..ak): constants to match, equal positions, variables to bind.

    `constants` pairs a position with the constant's clingo symbol (the back
    end turns it into a value); `same` pairs a later occurrence of a variable
    with its first; `columns` gives each variable its first position. A lone
    `_` binds nothing.
    """

    relation: str
    constants: tuple[tuple[int, Any], ...]
    same: tuple[tuple[int, int], ...]
    columns: tuple[tuple[str, int], ...]

    @staticmethod
    def of(atom: Atom) -> "Pattern":
        constants, same, first = [], [], {}
        for i, term in enumerate(atom.args):
            if isinstance(term, Constant):
                constants.append((i, term.value))
            elif not isinstance(term, Variable):
                raise ValueError(f"{atom}: argument {i + 1} is {term}, not a variable or a constant (see Body.of)")
            elif not term.anonymous:
                if term.name in first:
                    same.append((i, first[term.name]))
                else:
                    first[term.name] = i
        return Pattern(atom.predicate, tuple(constants), tuple(same), tuple(first.items()))


FRESH = "#"
"""The prefix of the columns `Body.of` makes up (`#1`, `#2`): no variable can be named so."""


@dataclass(frozen=True)
class Read:
    """A body atom as the evaluator reads it: its `Pattern`, and the fixed step k of `p(ā)@k` (None: the rule's step)."""

    pattern: Pattern
    step: int | None = None


Aggregation = tuple[str, str, str]
"""(function, the column of its term, the column of its result) of one aggregate of a head."""


@dataclass(frozen=True)
class Body:
    """A rule compiled for the relational operators (issue #18's constructs as columns and filters).

    Every arithmetic argument of a body atom is read as a fresh column `#i`
    and compared with the expression's column; every other expression (of a
    comparison, a negated atom, the head, an aggregate's term) is a column of
    its own. Evaluation order: the joins of `positive`, `columns` (computed
    by `extend`), `comparisons`, the antijoins of `negative`; then, for an
    aggregate head, `aggregate` by `keys` (the node and the head's other
    arguments); `head` is the rule's head over the columns (no expression,
    no aggregate left).
    """

    rule: Rule
    positive: tuple[Read, ...]
    columns: tuple[tuple[str, Term], ...]
    comparisons: tuple[Comparison, ...]
    negative: tuple[Read, ...]
    head: Atom
    keys: tuple[str, ...]
    aggregations: tuple[Aggregation, ...]

    @property
    def steps(self) -> tuple[int, ...]:
        """The fixed steps its body atoms read."""
        return tuple(sorted({r.step for r in (*self.positive, *self.negative) if r.step is not None}))

    @staticmethod
    def of(rule: Rule) -> "Body":
        """Compile `rule` (memoized by identity: a rule of thousands of literals is hashed once, not per step)."""
        known = _BODIES.get(id(rule))
        if known is None or known[0] is not rule:
            known = _BODIES[id(rule)] = (rule, _compile(rule))
        return known[1]


_BODIES: dict[int, tuple[Rule, Body]] = {}


def _compile(rule: Rule) -> Body:
    """The `Body` of `rule`: `p(Y) :- q(X), r(X + 1, Y), X * 2 < 7.` reads r(#1, Y), computes #2 = X + 1 and
    #3 = X * 2, and keeps #1 = #2 and #3 < 7."""
    columns: list[tuple[str, Term]] = []
    comparisons: list[Comparison] = []
    read_as: list[tuple[Variable, Arithmetic]] = []
    fresh = count(1)

    def column(term: Term, always: bool = False) -> Term:
        """A variable for the expression `term` (a new column); other terms as they are, unless `always`."""
        if not isinstance(term, Arithmetic) and not (always and isinstance(term, Constant)):
            return term
        name = f"{FRESH}{next(fresh)}"
        columns.append((name, term))
        return Variable(name, term.span)

    def read(literal: Literal) -> Read:
        args = []
        for term in literal.atom.args:
            if isinstance(term, Arithmetic) and not literal.negated:  # read as a column, compared after the joins
                var = Variable(f"{FRESH}{next(fresh)}", term.span)
                read_as.append((var, term))
                args.append(var)
            else:
                args.append(column(term))
        return Read(Pattern.of(replace(literal.atom, args=tuple(args))), literal.step)

    literals = [b for b in rule.body if isinstance(b, Literal)]
    positive = tuple(read(b) for b in literals if not b.negated)
    for var, term in read_as:
        comparisons.append(Comparison("=", var, column(term), term.span))
    for c in rule.comparisons:
        comparisons.append(replace(c, left=column(c.left), right=column(c.right)))
    negative = tuple(read(b) for b in literals if b.negated)
    head_args, keys, aggregations = [], [], []
    for arg in rule.head.args:
        if isinstance(arg, Aggregate):
            term = column(arg.term, always=True)
            result = Variable(f"{FRESH}{next(fresh)}", arg.span)
            aggregations.append((arg.function, term.name, result.name))
            head_args.append(result)
        else:
            term = column(arg)
            head_args.append(term)
            if isinstance(term, Variable) and not term.anonymous:
                keys.append(term.name)
    if rule.addressee is not None:
        keys.append(rule.addressee.name)
    return Body(
        rule,
        positive,
        tuple(columns),
        tuple(comparisons),
        negative,
        replace(rule.head, args=tuple(head_args)),
        tuple(dict.fromkeys(keys)) if aggregations else (),
        tuple(aggregations),
    )
