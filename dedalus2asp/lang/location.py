"""Where a located atom is: the location columns of a located program (tr2009 §6.2) and its global relations.

tr2009 §6.2 ("horizontal partitioning") gives every relation one *location
column*, marked `#` in some occurrence, else the first (`location_columns`); an
atom's location term is its argument there (`location_of`). A deductive rule
with an unmarked head that reads several nodes is Molly's assertion, a *global*
rule, and its head's relation is held by no node (`global_relations`). Both
`located` (the rewrite into the location-transparent IR) and `molly` (Molly's
one database) read programs through these.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from .ast import Atom, Literal, Marked, Rule, RuleKind, Term, Variable


def unmarked_term(term) -> Term:
    return term.term if isinstance(term, Marked) else term


def unmarked_atom(atom: Atom) -> Atom:
    return replace(atom, args=tuple(unmarked_term(a) for a in atom.args))


def simply_persists(rule: Rule) -> bool:
    """`r(A, B)@next :- r(A, B).`, tr2009's persist[r]: the head's arguments are distinct variables (a `#` mark
    aside), and the body is the head."""
    head = unmarked_atom(rule.head)
    names = [a.name for a in head.args if isinstance(a, Variable) and not a.anonymous]
    return (rule.kind is RuleKind.INDUCTIVE and len(rule.body) == 1 and isinstance(rule.body[0], Literal)
            and not rule.body[0].negated and rule.body[0].step is None and len(set(names)) == head.arity
            and unmarked_atom(rule.body[0].atom) == head)


def location_columns(statements: Iterable[Rule], error) -> dict[str, int]:
    """relation → its location column: the argument marked `#` (consistently), else the first."""
    columns: dict[str, tuple[int, Atom]] = {}
    for rule in statements:
        for atom in rule.atoms:
            marked = [i for i, a in enumerate(atom.args) if isinstance(a, Marked)]
            if len(marked) > 1:
                error(
                    "location",
                    f"'{atom}' marks {len(marked)} arguments with '#': a relation has one location specifier",
                    atom.args[marked[1]].span,
                )
            elif marked:
                seen = columns.setdefault(atom.predicate, (marked[0], atom))
                if seen[0] != marked[0]:
                    error(
                        "location",
                        f"'{atom.predicate}' has its location specifier in argument {marked[0] + 1} here but in "
                        f"argument {seen[0] + 1} in '{seen[1]}' (line {seen[1].span.line}): a relation has one "
                        "location column",
                        atom.args[marked[0]].span,
                    )
    return {p: i for p, (i, _) in columns.items()}


def location_of(atom: Atom, columns: Mapping[str, int]) -> Term | None:
    k = columns.get(atom.predicate, 0)
    return unmarked_term(atom.args[k]) if atom.arity > k else None


def global_relations(rules: list[Rule], marked: Mapping[str, int], located: frozenset[str] = frozenset()) -> frozenset[str]:
    """The relations held by no node: the heads of the *global* rules (`RuleKind.GLOBAL`).

    A deductive rule is global when the location of its head's relation is never marked `#` and
    (a) its body atoms are not all at the same location (`post(X) :- decision(A1, X, _), decision(A2, X,
    _), A1 != A2;`, as Molly's assertions read several nodes), or (b) its head is not at that location,
    or has no location column (`pre(X, P) :- log(P, X)`: Molly evaluates such rules centrally), or
    (c) it reads a global relation, or (d) another rule for its head's relation is global. Inductive and
    asynchronous rules are never global (a global relation is held by no node, so it can be neither kept
    nor sent); a rule whose head is marked `#` is located, and mixing locations there is an error
    (tr2009 §6.2). The relations `located` (the heads of Molly's lock-step rules, `molly.lockstep_relations`)
    are held at the node their location column names, whatever their rules read.
    """
    found: set[str] = set()
    candidates = [r for r in rules if r.kind is RuleKind.DEDUCTIVE and r.body
                  and any(isinstance(b, Literal) for b in r.body) and r.head.predicate not in marked
                  and r.head.predicate not in located]
    changed = True
    while changed:
        changed = False
        for rule in candidates:
            if rule.head.predicate not in found and _reads_several_nodes(rule, marked, found):
                found.add(rule.head.predicate)
                changed = True
    return frozenset(found)


def _reads_several_nodes(rule: Rule, marked: Mapping[str, int], found: set[str]) -> bool:
    """(a)–(d) of `global_relations` for one rule, given the global relations `found` so far."""
    atoms = [unmarked_atom(b.atom) for b in rule.body if isinstance(b, Literal)]
    if rule.head.predicate in found or any(a.predicate in found for a in atoms):
        return True
    places = {location_of(a, marked) for a in atoms} - {None}
    head_at = location_of(unmarked_atom(rule.head), marked)
    anonymous = any(isinstance(p, Variable) and p.anonymous for p in places)
    return len(places) > 1 or anonymous or head_at is None or (len(places) == 1 and head_at not in places)
