"""Views, recomputed: the reference every maintainer is checked against (psn2010 Definition 8).

The view of a DDlog program over a multiset E of base facts is its least model, each fact with its
*count*, the number of its derivations (psn2010 §2.1: multiset semantics; a base fact's count is its
multiplicity in E). A fact has infinitely many derivations exactly when one of its derivations uses
a fact twice along a branch, i.e. when, in the graph from each derived fact to the body facts of its
ground rule instances, it reaches a cycle; psn2010 §5 represents those by finitely many derivations
with a cycle (derivation sets S, infinite-count sets H), so a maintained view is compared with this
one as a set and, where counts are finite, as a multiset.

`recompute` evaluates the program as written (not its localization) bottom-up (semi-naive), keeping
each ground rule instance it finds, then counts the derivations of the facts that reach no cycle,
each once its body facts are counted (Kahn's topological order; the facts left over reach a cycle).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import clingo

from .ddlog import DDlogProgram, DRule, Fact, ordered
from .join import Table, bind, collector_paused, delta_plans, instantiate, interned, join


@dataclass(frozen=True)
class View:
    """A view: `counts[f]` the number of derivations of each fact f with finitely many, `infinite` the facts
    with infinitely many (not in `counts`)."""

    counts: Mapping[Fact, int]
    infinite: frozenset[Fact] = frozenset()
    multiset: bool = True
    """False for a view kept under set semantics (DRed): its counts are all 1 and mean nothing."""

    @property
    def facts(self) -> frozenset[Fact]:
        return frozenset(self.counts) | self.infinite

    def count(self, fact: Fact) -> int | None:
        """The count of `fact`: 0 if it is not in the view, None if it is infinite."""
        return None if fact in self.infinite else self.counts.get(fact, 0)

    def shown(self, program: DDlogProgram) -> "View":
        """The view on the program's own relations (without the auxiliary relations of localization)."""
        return View({f: c for f, c in self.counts.items() if f.relation not in program.auxiliary},
                    frozenset(f for f in self.infinite if f.relation not in program.auxiliary), self.multiset)

    def nodes(self, program: DDlogProgram) -> dict[str, dict[str, list[list]]]:
        """node → relation → sorted tuples (location column included), as a located JSON input names them."""
        out: dict[clingo.Symbol, dict[str, list]] = {}
        for f in ordered(self.shown(program).facts):
            out.setdefault(program.node(f), {}).setdefault(f.relation, []).append([_json(v) for v in f.args])
        return {str(n) if n.type is not clingo.SymbolType.String else n.string: rels for n, rels in sorted(out.items())}

    def as_json(self, program: DDlogProgram) -> dict:
        """`{"nodes": {node: {relation: [[...], ...]}}}`: what `--input` reads back."""
        return {"nodes": self.nodes(program)}


def _json(value: clingo.Symbol):
    if value.type is clingo.SymbolType.Number:
        return value.number
    if value.type is clingo.SymbolType.String:
        return value.string
    return str(value)


def least_model(rules: Iterable[DRule], base: Iterable[Fact], instances: dict | None = None,
                symbols: dict | None = None) -> Table:
    """The least model of `rules` over the facts `base`, as a table of facts (payload True), by semi-naive
    evaluation: each round fires every rule once per body position i whose atom matches a fact Δ new in
    the round before, the atoms before i reading the facts known before that round, those after i every
    fact known, so that each ground rule instance is found once. With `instances`, a dict, each instance
    is recorded there: head → list of body fact tuples. The values of `base` are `interned` in `symbols`."""
    rules = tuple(rules)
    table = Table()
    delta: dict[str, set] = {}
    symbols = {} if symbols is None else symbols
    for f in (interned(f, symbols) for f in base):
        if table.get(f) is None:
            table.set(f, True)
            delta.setdefault(f.relation, set()).add(f.args)
    plans = [(rule, i, rule.body[i], steps) for plans in delta_plans(rules).values() for rule, i, steps in plans]
    while delta:
        new: dict[Fact, None] = {}
        for rule, i, atom, steps in plans:
            for args in delta.get(atom.predicate, ()):
                binding = bind(atom, args)
                if binding is None:
                    continue

                def rows(step, key, i=i):
                    found = table.lookup(step.relation, step.positions, key)
                    old = delta.get(step.relation) if step.index < i else None
                    return {a: p for a, p in found.items() if a not in old} if old else found

                for bound, matched in join(steps, rows, binding):
                    head = instantiate(rule.head, bound)
                    if instances is not None:
                        body = (Fact(atom.predicate, args),) + tuple(Fact(rule.body[j].predicate, a) for j, a, _ in matched)
                        instances.setdefault(head, []).append(body)
                    if table.get(head) is None:
                        new[head] = None
        delta = {}
        for f in new:
            table.set(f, True)
            delta.setdefault(f.relation, set()).add(f.args)
    return table


def recompute(program: DDlogProgram, base: Counter) -> View:
    """The view of `program` over the multiset `base` of base facts (Counter fact → multiplicity): the least
    model and its ground instances (`least_model`), then the counts (`counted`)."""
    base = Counter({f: n for f, n in base.items() if n > 0})
    instances: dict[Fact, list[tuple[Fact, ...]]] = {}
    with collector_paused():
        table = least_model(program.rules, base, instances)
        counts = counted(base, instances)
        return View(counts, frozenset(f for f, _ in table.facts() if f not in counts))


def counted(base: Mapping[Fact, int], instances: Mapping[Fact, list[tuple[Fact, ...]]]) -> dict[Fact, int]:
    """The count of every fact that reaches no cycle of the graph fact → body facts of its instances: its
    multiplicity in `base` plus, per instance, the product of its body facts' counts. Kahn's algorithm: a
    fact is counted once every body fact of its instances is; those never counted reach a cycle (their
    count is infinite)."""
    waiting = {h: sum(map(len, bodies)) for h, bodies in instances.items()}
    users: dict[Fact, list[Fact]] = {}
    for h, bodies in instances.items():
        for body in bodies:
            for b in body:
                users.setdefault(b, []).append(h)
    ready = [f for f in base if not waiting.get(f)] + [h for h, n in waiting.items() if not n and h not in base]
    counts: dict[Fact, int] = {}
    while ready:
        fact = ready.pop()
        total = base.get(fact, 0)
        for body in instances.get(fact, ()):
            product = 1
            for b in body:
                product *= counts[b]
            total += product
        counts[fact] = total
        for h in users.get(fact, ()):
            waiting[h] -= 1
            if not waiting[h]:
                ready.append(h)
    return counts


@dataclass
class Difference:
    """How a maintained view differs from the recomputed one (psn2010 Definition 8), empty when equal."""

    missing: list[Fact] = field(default_factory=list)
    extra: list[Fact] = field(default_factory=list)
    counts: list[tuple[Fact, int | None, int | None]] = field(default_factory=list)  # fact, maintained, recomputed

    def __bool__(self) -> bool:
        return bool(self.missing or self.extra or self.counts)

    def lines(self) -> list[str]:
        def shown(c):
            return "infinite" if c is None else str(c)
        return ([f"missing {f}" for f in self.missing] + [f"extra {f}" for f in self.extra]
                + [f"count of {f}: {shown(m)}, recomputed {shown(r)}" for f, m, r in self.counts])


def difference(maintained: View, expected: View) -> Difference:
    """Definition 8: the facts of one view and not the other, and the facts whose counts differ where the
    recomputed count is finite (or where one says infinite and the other not); only the facts when either
    view is kept as a set."""
    got, want = maintained.facts, expected.facts
    out = Difference(ordered(want - got), ordered(got - want))
    if not (maintained.multiset and expected.multiset):
        return out
    for f in ordered(got & want):
        m, r = maintained.count(f), expected.count(f)
        if m != r:
            out.counts.append((f, m, r))
    return out


def changes(before: View, after: View) -> tuple[list[Fact], list[Fact]]:
    """The facts a burst inserted into the view and those it deleted (as sets), each sorted."""
    b, a = before.facts, after.facts
    return ordered(a - b), ordered(b - a)
