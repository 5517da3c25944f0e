"""PSN: psn2010's Algorithm 1 with the cycle-detecting commands of Fig. 2.

The state is a multiset K of annotated facts (p, S, H) — p a fact, S its *derivation set* (every fact
its derivation uses), H ⊆ S its *infinite-count set* (the facts of the derivation that lie on a cycle
of it) — and a multiset U of updates ⟨INS|DEL, (p, S, H)⟩. One PSN iteration (`PSN.step`) takes one
update u of U at the node that holds p:

* **pick** (pick_I¹/pick_I²/pick_D¹/pick_D²): H' = H ∪ {p} if p ∈ S (a cycle: p derives itself),
  else H. A deletion may be picked only when K holds (p, S, H') (`PSN.pickable`): over channels that
  reorder, it may arrive before its insertion, and then waits.
* **fire**: every delta rule of §3.2 with Δp at position i of a (localized) rule
  `h :- b1, ..., bn`,

        ⟨U, h⟩ :- b1ν, ..., b(i-1)ν, Δbi, b(i+1), ..., bn

  where bjν reads K after the change (K ⊎ {p'} or K ∖ {p'}) and bj reads K before it. Each match
  of annotated copies (bj, Sj, Hj) derives (h, {b1..bn} ∪ S1 ∪ .. ∪ Sn, H1 ∪ .. ∪ Hn), once per
  combination of copies (multiset semantics), and is sent to h's node unless h ∈ H (a cycle already
  computed: §5, which makes PSN terminate, Theorem 20).
* **commit**: K ⊎ {p'} or K ∖ {p'}.

A fact's count is the number of its annotated copies; it is infinite when a copy has a non-empty H
(a derivation through a cycle can be pumped). `eager` is the variant of Liu et al. (ICDE 2009) that
psn2010's last section shows unsound without FIFO channels: a deletion that finds nothing to delete is
discarded at once instead of waiting for its insertion.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import product
from typing import Iterator

from .ddlog import DDlogProgram, Fact
from .join import Table, bind, delta_plans, instantiate, join
from .view import View

INS, DEL = "+", "-"

MAX_COPIES = 5_000_000
"""The most annotated copies K may hold (one per derivation kept). A recursive view over a graph with many
paths has very many derivations (one per path, each fact at most twice along a branch): rather than fill
the memory, PSN stops (`TooManyDerivations`)."""


class TooManyDerivations(RuntimeError):
    """K would hold more than `MAX_COPIES` derivations."""


@dataclass(frozen=True)
class Annotated:
    """(p, S, H) of psn2010 §5."""

    fact: Fact
    S: frozenset = frozenset()
    H: frozenset = frozenset()

    def picked(self) -> "Annotated":
        """With H' = H ∪ {p} when p ∈ S (pick_I¹, pick_D¹), else itself."""
        return Annotated(self.fact, self.S, self.H | {self.fact}) if self.fact in self.S else self


@dataclass(frozen=True)
class PUpdate:
    """⟨U, (p, S, H)⟩: `op` "+" (INS) or "-" (DEL)."""

    op: str
    item: Annotated

    def __str__(self) -> str:
        return f"{'INS' if self.op == INS else 'DEL'} {self.item.fact}"


@dataclass
class Pick:
    """One PSN iteration of an execution: the node, the update picked, what it derived (none when discarded)."""

    node: object
    update: PUpdate
    derived: tuple[PUpdate, ...]
    discarded: bool = False


class PSN:
    """K and one PSN iteration at a time (the caller holds U and chooses the pick order)."""

    def __init__(self, program: DDlogProgram, eager: bool = False, limit: int | None = None) -> None:
        self.program = program
        self.eager = eager
        self.limit = MAX_COPIES if limit is None else limit
        self.size = 0  # the number of annotated copies in K
        self.K = Table()  # fact → {(S, H): count}
        self.touched: dict[Fact, bool] = {}  # fact → whether K held it before its first commit since `touched` was emptied
        self._delta = delta_plans(program.localized)
        for step in (step for plans in self._delta.values() for _, _, steps in plans for step in steps):
            if step.positions:
                self.K.index(step.relation, step.positions)  # kept up to date from the empty K on

    def copies(self, fact: Fact) -> dict:
        return self.K.get(fact) or {}

    def pickable(self, update: PUpdate) -> bool:
        """pick_D applies only when K holds the copy to delete; an insertion is always pickable."""
        if update.op == INS:
            return True
        item = update.item.picked()
        return self.copies(item.fact).get((item.S, item.H), 0) > 0

    def step(self, update: PUpdate) -> list[PUpdate]:
        """One PSN iteration (pick, fire, commit) of a pickable `update`; the updates it derives, one per
        derivation (the same update may occur several times), those with h ∈ H left out. Under `eager`, an
        unpickable deletion is discarded (no fire, no commit)."""
        if not self.pickable(update):
            if self.eager:
                return []
            raise ValueError(f"{update} is not pickable: K does not hold it")
        return self.iterate(update)

    def iterate(self, update: PUpdate) -> list[PUpdate]:
        """`step` of an update the caller found `pickable`."""
        item = update.item.picked()
        derived = list(self.fire(update.op, item))
        self._commit(update.op, item)
        return derived

    def fire(self, op: str, item: Annotated) -> Iterator[PUpdate]:
        """The updates the delta rules with Δp derive (see the module docstring), K not yet committed."""
        p = item.fact
        sign = 1 if op == INS else -1
        for rule, i, steps in self._delta.get(p.relation, ()):
            binding = bind(rule.body[i], p.args)
            if binding is None:
                continue

            def rows(step, key, i=i):
                found = self.K.lookup(step.relation, step.positions, key)
                if step.index < i and step.relation == p.relation and all(p.args[q] == k for q, k in zip(step.positions, key)):
                    copies = Counter(found.get(p.args, {}))  # bjν: K with the change
                    copies[(item.S, item.H)] += sign
                    found = {**found, p.args: {c: n for c, n in copies.items() if n > 0}}
                return found

            for bound, matched in join(steps, rows, binding):
                head = instantiate(rule.head, bound)
                body_facts = frozenset(Fact(rule.body[j].predicate, args) for j, args, _ in matched) | {p}
                choices = [list(payload.items()) for _, _, payload in matched]
                for combination in product(*choices):
                    S = body_facts | item.S
                    H = item.H
                    times = 1
                    for (s, h), n in combination:
                        S, H, times = S | s, H | h, times * n
                    if H and head in H:
                        continue
                    derived = PUpdate(op, Annotated(head, S, H))
                    for _ in range(times):
                        yield derived

    def _commit(self, op: str, item: Annotated) -> None:
        """K ⊎ {p'} or K ∖ {p'}: the fact's copies {(S, H): count} changed in place (the table and its indexes
        hold the same dict), the fact added to or removed from K with its first or last copy."""
        copies = self.K.get(item.fact)
        self.touched.setdefault(item.fact, bool(copies))
        key = (item.S, item.H)
        if op == INS:
            self.size += 1
            if self.size > self.limit:
                raise TooManyDerivations(
                    f"the view has more than {self.limit:,} derivations (PSN keeps one copy of a fact per derivation, "
                    "and a recursive view over many paths has very many): maintain it as a set with --algorithm dred, "
                    "or recompute it")
            if copies is None:
                self.K.set(item.fact, {key: 1})
            else:
                copies[key] = copies.get(key, 0) + 1
            return
        self.size -= 1
        if copies[key] > 1:
            copies[key] -= 1
        elif len(copies) > 1:
            del copies[key]
        else:
            self.K.set(item.fact, None)

    def view(self) -> View:
        """The view K stands for: a fact's count is its number of copies, infinite if a copy has H ≠ ∅."""
        counts, infinite = {}, set()
        for fact, copies in self.K.facts():
            if any(h for _, h in copies):
                infinite.add(fact)
            else:
                counts[fact] = sum(copies.values())
        return View(counts, frozenset(infinite))

    def state(self) -> frozenset:
        """K as a hashable value (the explorer's states)."""
        return frozenset((fact, frozenset(copies.items())) for fact, copies in self.K.facts())

    def restore(self, state: frozenset) -> None:
        self.K = Table()
        self.size = 0
        for fact, copies in state:
            self.K.set(fact, dict(copies))
            self.size += sum(dict(copies).values())


def base_updates(op: str, facts: Counter) -> list[PUpdate]:
    """⟨op, (b, ∅, ∅)⟩ for each base fact b, once per multiplicity."""
    return [PUpdate(op, Annotated(f)) for f, n in facts.items() for _ in range(n)]
