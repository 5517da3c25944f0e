"""Views, recomputed: the reference every maintainer is checked against (psn2010 Definition 8).

The view of a DDlog program over a multiset E of base facts is its least model, each fact with its
*count*, the number of its derivations (psn2010 §2.1: multiset semantics; a base fact's count is its
multiplicity in E). A fact has infinitely many derivations exactly when one of its derivations uses
a fact twice along a branch, i.e. when, in the graph from each derived fact to the body facts of its
ground rule instances, it reaches a cycle; psn2010 §5 represents those by finitely many derivations
with a cycle (derivation sets S, infinite-count sets H), so a maintained view is compared with this
one as a set and, where counts are finite, as a multiset.

`recompute` evaluates the program as written (not its localization) bottom-up (semi-naive), then
counts the derivations of the facts that reach no cycle, each once its body facts are counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import clingo

from ..lang.analysis import strongly_connected
from .ddlog import DDlogProgram, DRule, Fact
from .join import Table, instantiate, join, plan


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
        for f in sorted(self.shown(program).facts, key=_order):
            out.setdefault(program.node(f), {}).setdefault(f.relation, []).append([_json(v) for v in f.args])
        return {str(n) if n.type is not clingo.SymbolType.String else n.string: rels for n, rels in sorted(out.items())}

    def as_json(self, program: DDlogProgram) -> dict:
        """`{"nodes": {node: {relation: [[...], ...]}}}`: what `--input` reads back."""
        return {"nodes": self.nodes(program)}


def _order(fact: Fact):
    return (fact.relation, fact.args)


def _json(value: clingo.Symbol):
    if value.type is clingo.SymbolType.Number:
        return value.number
    if value.type is clingo.SymbolType.String:
        return value.string
    return str(value)


def least_model(rules: Iterable[DRule], base: Iterable[Fact]) -> Table:
    """The least model of `rules` over the facts `base` (semi-naive), as a table of facts (payload True)."""
    rules = tuple(rules)
    table = Table()
    delta = set(base)
    for f in delta:
        table.set(f, True)
    plans = {(r.label, i): plan(r.body, [i] + [j for j in range(len(r.body)) if j != i], set())
             for r in rules for i in range(len(r.body))}
    while delta:
        by_relation: dict[str, list[Fact]] = {}
        for f in delta:
            by_relation.setdefault(f.relation, []).append(f)
        new: set[Fact] = set()
        for rule in rules:
            for i, atom in enumerate(rule.body):
                for f in by_relation.get(atom.predicate, ()):
                    steps = plans[(rule.label, i)]
                    start = {}
                    first = steps[0]
                    rows = {f.args: True}
                    for binding, _ in join(steps, lambda s, key: rows if s is first else table.lookup(s.relation, s.positions, key), start):
                        h = instantiate(rule.head, binding)
                        if table.get(h) is None:
                            new.add(h)
        for f in new:
            table.set(f, True)
        delta = new
    return table


def recompute(program: DDlogProgram, base: Counter) -> View:
    """The view of `program` over the multiset `base` of base facts (Counter fact → multiplicity)."""
    base = Counter({f: n for f, n in base.items() if n > 0})
    table = least_model(program.rules, base)
    instances: dict[Fact, list[tuple[Fact, ...]]] = {}
    for rule in program.rules:
        steps = plan(rule.body, range(len(rule.body)), set())
        for binding, matched in join(steps, lambda s, key: table.lookup(s.relation, s.positions, key), {}):
            body = tuple(Fact(rule.body[i].predicate, args) for i, args, _ in matched)
            instances.setdefault(instantiate(rule.head, binding), []).append(body)
    infinite = _infinite(instances)
    counts: dict[Fact, int] = {}
    for fact, _ in table.facts():
        if fact not in infinite:
            _count(fact, base, instances, counts)
    return View(counts, frozenset(infinite))


def _infinite(instances: Mapping[Fact, list[tuple[Fact, ...]]]) -> set[Fact]:
    """The facts that reach a cycle of the graph fact → body facts of its instances (`analysis.strongly_connected`:
    Tarjan, iteratively)."""
    edges = {h: {b for body in bodies for b in body} for h, bodies in instances.items()}
    cyclic: set[Fact] = {member for component in strongly_connected(list(edges), edges)
                         if len(component) > 1 or component[0] in edges.get(component[0], ())
                         for member in component}
    users: dict[Fact, set[Fact]] = {}
    for h, bs in edges.items():
        for b in bs:
            users.setdefault(b, set()).add(h)
    infinite, todo = set(cyclic), list(cyclic)
    while todo:
        for h in users.get(todo.pop(), ()):
            if h not in infinite:
                infinite.add(h)
                todo.append(h)
    return infinite


def _count(root: Fact, base: Counter, instances: Mapping[Fact, list[tuple[Fact, ...]]], counts: dict[Fact, int]) -> None:
    """counts[f] for `root` and the facts it depends on (none reaches a cycle): base multiplicity plus, per
    ground instance, the product of its body facts' counts."""
    work = [root]
    while work:
        fact = work[-1]
        if fact in counts:
            work.pop()
            continue
        missing = [b for body in instances.get(fact, ()) for b in body if b not in counts]
        if missing:
            work.extend(missing)
            continue
        work.pop()
        total = base.get(fact, 0)
        for body in instances.get(fact, ()):
            product = 1
            for b in body:
                product *= counts[b]
            total += product
        counts[fact] = total


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
    out = Difference(sorted(want - got, key=_order), sorted(got - want, key=_order))
    if not (maintained.multiset and expected.multiset):
        return out
    for f in sorted(got & want, key=_order):
        m, r = maintained.count(f), expected.count(f)
        if m != r:
            out.counts.append((f, m, r))
    return out


def changes(before: View, after: View) -> tuple[list[Fact], list[Fact]]:
    """The facts a burst inserted into the view and those it deleted (as sets), each sorted."""
    b, a = before.facts, after.facts
    return sorted(a - b, key=_order), sorted(b - a, key=_order)
