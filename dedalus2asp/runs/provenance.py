"""Positive provenance of a step: which received messages each fact, each carried fact and each message depends on.

The choice runs' graph (`choice`) must know, of every fact a node derives, on which messages it received it
positively depends: a message that arrives before its send may not support its own send (the stable models'
well-foundedness). The one rule evaluator (`evaluator`, through `transitions.System`) computes the step,
D = deduc_P(I), induc_P(D) and async_P(D) (tplp2016 §5.1.2); this module adds nothing to it but a
**support-tracking fixpoint over the step's ground rules**:

* the ground rules are the satisfying valuations of each rule's body on the step's final D (`evaluator.body`),
  each as its head fact and the facts its positive atoms read: negation is read against D, as the reduct of
  the stable models reads it against the model (a stratified step has D as its one model);
* a **family** is a set of minimal supports, each a set of *items* (the messages received and not yet known
  to be well-founded): a fact holds with the support σ when every item of σ is well-founded. A fact of I has
  the family its caller gives it (an input fact `TRUE`, the family {∅}); a ground rule gives its head the
  product of its body facts' families, and a head with several ground rules the union; the deductive rules
  are iterated to their least fixpoint (a positive cycle adds no support: its sets only grow).

An atom with a lone `_` reads any fact that matches it: its family is the union of theirs. Aggregates and body
atoms at fixed steps have no provenance here (`supported` says so: the graph refuses such programs).
"""

from __future__ import annotations

from typing import Hashable, Iterable, Mapping, NamedTuple

from ..lang.ast import Literal, Rule
from . import evaluator
from .body import Body, Read
from .local import Node
from .transitions import GroundFact

Family = frozenset
"""A family of minimal supports: a frozenset of frozensets of items (hashable values the caller chooses)."""

TRUE: Family = frozenset({frozenset()})
"""Supported by nothing: well-founded as it is."""

FALSE: Family = frozenset()
"""No support at all."""


def minimal(sets: Iterable[frozenset]) -> Family:
    """The minimal sets among `sets` (an antichain): a superset of a support adds nothing."""
    ordered = sorted(set(sets), key=len)
    kept: list[frozenset] = []
    for s in ordered:
        if not any(k <= s for k in kept):
            kept.append(s)
    return frozenset(kept)


def either(a: Family, b: Family) -> Family:
    """Supported by a support of `a` or one of `b`."""
    if a == b or b == FALSE or a == TRUE:
        return a
    if a == FALSE or b == TRUE:
        return b
    return minimal(a | b)


def both(a: Family, b: Family) -> Family:
    """Supported by a support of `a` together with one of `b`."""
    if a == TRUE or b == FALSE:
        return b
    if b == TRUE or a == FALSE:
        return a
    return minimal(s | t for s in a for t in b)


def substitute(family: Family, item: Hashable, by: Family) -> Family:
    """`family` with `item` replaced by the family `by` (it holds exactly when a support of `by` does)."""
    if not any(item in s for s in family):
        return family
    out = [s for s in family if item not in s]
    out += [(s - {item}) | t for s in family if item in s for t in by]
    return minimal(out)


def settle(family: Family, done: set) -> Family:
    """`family` with the well-founded items `done` taken out of its supports."""
    if family == TRUE or not done or not any(not done.isdisjoint(s) for s in family):
        return family
    return minimal(s - done for s in family)


def well_founded(families: dict, done: Iterable = ()) -> set:
    """The least fixpoint: the items `done`, and every item of `families` one of whose supports lies in it (the
    receptions or debts founded by messages that do not depend on them, round by round)."""
    done = set(done)
    changed = True
    while changed:
        changed = False
        for item, family in families.items():
            if item not in done and any(s <= done for s in family):
                done.add(item)
                changed = True
    return done


def rename(family: Family, change) -> Family:
    """`family` with every item x written change(x)."""
    if family == TRUE or family == FALSE:
        return family
    return frozenset(frozenset(map(change, s)) for s in family)


class Ground(NamedTuple):
    """The ground rules of one step: each as (head, reads), a read being the fact a positive body atom reads
    (with None at a lone `_`); sends also name the addressee value."""

    deductive: tuple[tuple[GroundFact, tuple[GroundFact, ...]], ...]
    inductive: tuple[tuple[GroundFact, tuple[GroundFact, ...]], ...]
    sends: tuple[tuple[object, GroundFact, tuple[GroundFact, ...]], ...]


def supported(program) -> str:
    """Why the provenance cannot follow `program` ('' when it can): an aggregate (its head depends on the whole group
    and on what is absent) or a body atom at a fixed step (read from the node's memory)."""
    for rule in program.rules:
        if rule.aggregates:
            return f"rule {rule.number} has an aggregate"
        if Body.of(rule).steps:
            return f"rule {rule.number} reads a fixed step"
    return ""


class Provenance:
    """The supports of a step's facts, on top of the evaluator at one node (`local.Node`, its back end and plan)."""

    def __init__(self, node: Node, plan: evaluator.Plan):
        self.node, self.plan = node, plan
        self.deductive = tuple(rule for stratum in plan.strata for component in stratum for rule in component.rules)
        self._ground: dict[frozenset[GroundFact], Ground] = {}
        self._families: dict[tuple, tuple] = {}

    def ground(self, deduced: frozenset[GroundFact]) -> Ground:
        """The ground rules of the step whose D is `deduced` (memoized)."""
        found = self._ground.get(deduced)
        if found is None:
            facts = self.node.facts(deduced)
            found = self._ground[deduced] = Ground(
                tuple(pair for r in self.deductive for _, pair in self._instances(r, facts)),
                tuple(pair for r in self.plan.inductive for _, pair in self._instances(r, facts)),
                tuple((to, *pair) for r in self.plan.asynchronous for to, pair in self._instances(r, facts)),
            )
        return found

    def _instances(self, rule: Rule, facts) -> list[tuple[object, tuple[GroundFact, tuple[GroundFact, ...]]]]:
        """Each valuation of `rule` on `facts` as (its addressee value, or None, (head fact, the facts it reads))."""
        backend, compiled = self.node.backend, Body.of(rule)
        table = evaluator.body(backend, rule, facts)
        head = backend._args(table, compiled.head)
        arities = [b.atom.arity for b in rule.body if isinstance(b, Literal) and not b.negated]
        getters = [_reader(table.columns, read, arity, backend.values.constant)
                   for read, arity in zip(compiled.positive, arities)]
        to = table.columns.index(rule.addressee.name) if rule.addressee is not None else None
        return [(row[to] if to is not None else None, ((rule.head.predicate, head(row)), tuple(g(row) for g in getters)))
                for row in table.rows]

    def families(self, ground: Ground, deduced: frozenset[GroundFact], given: Mapping[GroundFact, Family]):
        """The families of D's facts, of the carried facts (induc_P(D)) and of the messages ((addressee value, fact)
        -> family), from the families `given` of I's facts (every fact of I, an input fact or event with `TRUE`)."""
        if all(given[f] == TRUE for f in given):  # nothing received early: everything well-founded as it is
            return (dict.fromkeys(deduced, TRUE), {head: TRUE for head, _ in ground.inductive},
                    {(to, head): TRUE for to, head, _ in ground.sends})
        key = (deduced, frozenset(given.items()))
        found = self._families.get(key)
        if found is None:
            found = self._families[key] = self._supports(ground, deduced, given)
        return found

    def _supports(self, ground: Ground, deduced: frozenset[GroundFact], given: Mapping[GroundFact, Family]):
        """`families`, computed: the deductive ground rules to their least fixpoint, then one step of the others."""
        known: dict[GroundFact, Family] = {f: given.get(f, FALSE) for f in deduced}
        index: dict[str, list[GroundFact]] = {}
        for f in deduced:
            index.setdefault(f[0], []).append(f)

        def family(read: GroundFact) -> Family:
            if None not in read[1]:
                return known.get(read, FALSE)
            out = FALSE  # a lone `_`: any fact that matches
            for f in index.get(read[0], ()):
                if all(a is None or a == b for a, b in zip(read[1], f[1])):
                    out = either(out, known[f])
            return out

        def body(reads) -> Family:
            out = TRUE
            for read in reads:
                out = both(out, family(read))
                if out == FALSE:
                    break
            return out

        changed = True
        while changed:
            changed = False
            for head, reads in ground.deductive:
                new = either(known[head], body(reads))
                if new != known[head]:
                    known[head], changed = new, True
        carried: dict[GroundFact, Family] = {}
        for head, reads in ground.inductive:
            carried[head] = either(carried.get(head, FALSE), body(reads))
        sent: dict[tuple, Family] = {}
        for to, head, reads in ground.sends:
            sent[to, head] = either(sent.get((to, head), FALSE), body(reads))
        return known, carried, sent


def _reader(columns: tuple[str, ...], read: Read, arity: int, constant):
    """The fact a positive atom of `arity` reads in a row of its body's table (None at a lone `_`)."""
    pattern = read.pattern
    at: list = [None] * arity
    for i, c in pattern.constants:
        at[i] = (True, constant(c))
    for name, i in pattern.columns:
        at[i] = (False, columns.index(name))
    for i, j in pattern.same:
        at[i] = at[j]

    def fact(row: tuple) -> GroundFact:
        return pattern.relation, tuple(None if a is None else (a[1] if a[0] else row[a[1]]) for a in at)

    return fact
