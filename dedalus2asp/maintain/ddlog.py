"""The programs `maintain` keeps views of: psn2010's DDlog (§2.2), its facts and rules.

A DDlog program is a set of positive Datalog rules whose every relation has one *location column*
(psn2010's `@`, tr2009 §6.2's `#`): `reachable(#S, D) :- link(#S, Z), reachable(#Z, D);`. A fact
`reachable(a, d)` is held by the node in that column, `a`. A rule's body may read several nodes;
rule localization (`localize`) rewrites it into rules whose body is at one node and whose head may be
at another (then the derived fact is a message).

Values are clingo symbols, as everywhere in dedalus2asp: they print as the user writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, NamedTuple

import clingo

from ..lang.ast import NOWHERE, Atom, Constant, Span, Variable


class Fact(NamedTuple):
    """A ground fact with every argument, its location column included: `link(a, b)` is held by node a."""

    relation: str
    args: tuple[clingo.Symbol, ...]

    def __str__(self) -> str:
        return f"{self.relation}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class DRule:
    """A DDlog rule `head :- body` (positive atoms, variables and constants only).

    `label` names it: `r2` is the program's second rule, `r2-1` and `r2-2` the rules localization
    writes for it (psn2010 §2.2 names them so); `span` is where the rule it comes from is written.
    """

    label: str
    head: Atom
    body: tuple[Atom, ...]
    span: Span = field(default=NOWHERE, compare=False)

    def variables(self) -> Iterator[str]:
        for atom in (self.head, *self.body):
            for a in atom.args:
                if isinstance(a, Variable):
                    yield a.name


@dataclass(frozen=True)
class DDlogProgram:
    """A DDlog program read for maintenance (`reading.read_program`).

    rules: the rules as written (after Dedalus persistence is read away): their view is the reference;
    localized: the same rules after rule localization: what PSN runs, body at one node per rule;
    columns: relation → its location column; arities: relation → arity;
    base: the base relations (psn2010 §2.1: no rule derives them), which updates insert and delete;
    auxiliary: the relations localization added, which a view does not show;
    facts: the base facts the program text itself gives (`link(#a, b);`), part of the base E.
    """

    rules: tuple[DRule, ...]
    localized: tuple[DRule, ...]
    columns: Mapping[str, int]
    arities: Mapping[str, int]
    base: frozenset[str]
    auxiliary: frozenset[str]
    facts: tuple[Fact, ...] = ()
    filename: str = "<program>"
    text: str = field(default="", repr=False)

    @property
    def derived(self) -> frozenset[str]:
        """The derived relations of the program as written (not the auxiliary ones)."""
        return frozenset(r.head.predicate for r in self.rules)

    @property
    def relations(self) -> tuple[str, ...]:
        """The relations a view shows, in order: base, then derived, each by first appearance."""
        seen = dict.fromkeys(a.predicate for r in self.rules for a in (*r.body, r.head))
        seen.update(dict.fromkeys(f.relation for f in self.facts))
        return tuple(p for p in seen if p not in self.auxiliary)

    def node(self, fact: Fact) -> clingo.Symbol:
        """The node that holds `fact`: the value in its relation's location column."""
        return fact.args[self.columns.get(fact.relation, 0)]

    def location(self, atom: Atom):
        """The location term of an atom of a rule (a `Variable` or a `Constant`)."""
        return atom.args[self.columns.get(atom.predicate, 0)]


def ordered(facts: Iterable[Fact]) -> list[Fact]:
    """`facts` sorted by relation, then arguments in clingo's order of symbols. A comparison of two clingo
    symbols is a call into clingo: the distinct values are sorted once, and the facts by their ranks."""
    facts = list(facts)
    rank = {v: i for i, v in enumerate(sorted({v for f in facts for v in f.args}))}
    return sorted(facts, key=lambda f: (f.relation, tuple([rank[v] for v in f.args])))


def atom_text(atom: Atom, columns: Mapping[str, int]) -> str:
    """An atom in tr2009's located notation: its location column marked `#`."""
    k = columns.get(atom.predicate, 0)
    return f"{atom.predicate}({', '.join(('#' if i == k else '') + str(a) for i, a in enumerate(atom.args))})"


def rule_text(rule: DRule, columns: Mapping[str, int]) -> str:
    """A rule in tr2009's located notation, ended by ';' as tr2009 writes it."""
    body = ", ".join(atom_text(a, columns) for a in rule.body)
    return f"{atom_text(rule.head, columns)} :- {body};" if body else f"{atom_text(rule.head, columns)};"


def ground(atom: Atom) -> Fact:
    """The fact of a ground atom (every argument a constant)."""
    return Fact(atom.predicate, tuple(a.value for a in atom.args if isinstance(a, Constant)))


def facts_of(relations: Mapping[str, Iterable[Iterable[clingo.Symbol]]]) -> list[Fact]:
    """Facts from relation → tuples."""
    return [Fact(r, tuple(t)) for r, ts in relations.items() for t in ts]
