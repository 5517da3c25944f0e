"""DRed (Gupta, Mumick, Subrahmanian, *Maintaining views incrementally*, SIGMOD 1993): delete, re-derive, insert.

Set semantics: a fact is in the view or not, with no count. A burst is maintained in three phases, each
run on the localized program so that its messages can be counted as PSN's are (an update derived at one
node for a fact held at another is a message):

1. **over-delete**: every fact with a derivation that uses a deleted base fact (or a fact so deleted) is
   deleted, semi-naively from the base facts the burst takes away — whether or not it has another
   derivation;
2. **re-derive**: each over-deleted derived fact that still has a derivation from what is left is put
   back;
3. **insert**: the re-derived facts and the base facts the burst adds are propagated semi-naively.

psn2010 §2.2 and §6 argue that the re-derivations make DRed expensive in messages in a distributed
setting; `benchmarks/maintain.py` counts them. DRed is synchronous (phases end before the next
begins), which the command does not show: it reports the phases' updates and messages per node.
"""

from __future__ import annotations

import time
from collections import Counter

from .ddlog import DDlogProgram, Fact
from .engine import BurstStats, fill_changes, symbol_name
from .join import bind, collector_paused, delta_plans, instantiate, interned, join, plan
from .updates import Base, Burst
from .view import View, least_model


class DRed:
    """`--algorithm dred`: the engine (see the module docstring)."""

    name = "dred"

    def start(self, program: DDlogProgram, base: Counter) -> None:
        self.program = program
        self.base = Base(base)
        self.symbols: dict = {}
        with collector_paused():
            self.V = least_model(program.localized, self.base.facts, symbols=self.symbols)
        self._delta = delta_plans(program.localized)
        self._by_head = {}
        for rule in program.localized:
            self._by_head.setdefault(rule.head.predicate, []).append(
                (rule, plan(rule.body, range(len(rule.body)), {a.name for a in rule.head.args if hasattr(a, "name")})))
        plans = [steps for ds in self._delta.values() for _, _, steps in ds]
        plans += [steps for bs in self._by_head.values() for _, steps in bs]
        for step in (step for steps in plans for step in steps if step.positions):
            self.V.index(step.relation, step.positions)  # built now, not by the first burst that joins on it

    def view(self) -> View:
        return View({f: 1 for f, _ in self.V.facts()}, multiset=False)

    def apply(self, burst: Burst) -> BurstStats:
        with collector_paused():
            return self._apply(burst)

    def _apply(self, burst: Burst) -> BurstStats:
        started = time.perf_counter()
        stats = BurstStats(burst.number)
        picked: Counter = Counter()
        sent: Counter = Counter()
        before = Counter(self.base.facts)
        self.base.apply(burst)
        gone = [interned(f, self.symbols) for f in before if self.base.facts[f] == 0]
        new = [interned(f, self.symbols) for f in self.base.facts if before[f] == 0]
        deleted = self._over_delete(gone, picked, sent)
        back = self._rederive(deleted, sent)
        inserted = self._insert(back + new, picked, sent)
        stats.updates = {symbol_name(n): k for n, k in picked.items()}
        stats.messages = {symbol_name(n): k for n, k in sent.items()}
        stats.seconds = time.perf_counter() - started
        return fill_changes(stats, self.program, [f for f in inserted if f not in deleted],
                            [f for f in deleted if self.V.get(f) is None])

    def _fire(self, fact: Fact, excluded: set, include_self: bool):
        """The heads the delta rules with Δ`fact` derive over V, each once per rule instance: facts in
        `excluded` are read nowhere, `fact` itself only left of Δ (and only if `include_self`)."""
        for rule, i, steps in self._delta.get(fact.relation, ()):
            binding = bind(rule.body[i], fact.args)
            if binding is None:
                continue

            def rows(step, key, i=i):
                found = self.V.lookup(step.relation, step.positions, key)
                if step.relation == fact.relation or excluded:
                    found = {a: p for a, p in found.items() if Fact(step.relation, a) not in excluded
                             and (a != fact.args or step.relation != fact.relation or (include_self and step.index < i))}
                return found

            for bound, _ in join(steps, rows, binding):
                yield instantiate(rule.head, bound)

    def _count(self, fact: Fact, head: Fact, sent: Counter) -> None:
        node = self.program.node(fact)
        if self.program.node(head) != node:
            sent[node] += 1

    def _over_delete(self, gone: list[Fact], picked: Counter, sent: Counter) -> set[Fact]:
        deleted, todo, processed = set(gone), list(gone), set()
        while todo:
            fact = todo.pop()
            picked[self.program.node(fact)] += 1
            for head in self._fire(fact, processed, include_self=True):
                self._count(fact, head, sent)
                if head not in deleted:
                    deleted.add(head)
                    todo.append(head)
            processed.add(fact)
        for fact in deleted:
            self.V.set(fact, None)
        return deleted

    def _rederive(self, deleted: set[Fact], sent: Counter) -> list[Fact]:
        """The over-deleted facts that still have a derivation from what is left, each sent by the body's node."""
        back = []
        for fact in deleted:
            for rule, steps in self._by_head.get(fact.relation, ()):
                binding = bind(rule.head, fact.args)
                found = None if binding is None else next(
                    join(steps, lambda s, key: self.V.lookup(s.relation, s.positions, key), binding), None)
                if found is not None:
                    self._count(Fact(rule.body[0].predicate, found[1][0][1]), fact, sent)
                    back.append(fact)
                    break
        return back

    def _insert(self, facts: list[Fact], picked: Counter, sent: Counter) -> list[Fact]:
        inserted, queued = [], set()
        todo = [f for f in facts if self.V.get(f) is None and not (f in queued or queued.add(f))]
        while todo:
            fact = todo.pop()
            picked[self.program.node(fact)] += 1
            self.V.set(fact, True)
            inserted.append(fact)
            for head in self._fire(fact, set(), include_self=True):
                self._count(fact, head, sent)
                if self.V.get(head) is None and head not in queued:
                    queued.add(head)
                    todo.append(head)
        return inserted
