"""Joins of rule bodies over indexed tables: what firing a rule (or a delta rule) computes.

A `Table` holds, per relation, its facts (argument tuples, location column included) each with a
payload (a count, or the counts of its annotated copies), and hash indexes on the argument positions
a join looks up, built when first asked for and kept up to date. A `Plan` joins a rule's body atoms in
a given order: for each atom, the positions already known (constants, variables bound before) are the
index key, the others bind variables.

Tables, facts and derivation sets hold no reference cycles, so reference counting frees them; Python's
cyclic collector would only traverse them, all of them at each of its full collections (1.5 s for the
view of a 10,000-link tree), which would fall into whichever burst or recomputation crosses its
threshold. `collector_paused` keeps it out while an engine works. And a clingo symbol compares with
another through a call into clingo unless they are the same object: `interned` makes the values of
the facts that enter an engine one object per value, which the facts derived from them share.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import clingo

from ..lang.ast import Atom, Constant
from .ddlog import DRule, Fact

Args = tuple[clingo.Symbol, ...]


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off inside the block (as it was after it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def interned(fact: Fact, symbols: dict) -> Fact:
    """`fact` with each value replaced by the first equal one `symbols` has seen (and remembers)."""
    return Fact(fact.relation, tuple([symbols.setdefault(v, v) for v in fact.args]))


class Table:
    """relation → {args: payload}, with indexes relation, positions → key → {args: payload}."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[Args, Any]] = {}
        self._indexes: dict[tuple[str, tuple[int, ...]], dict[tuple, dict[Args, Any]]] = {}
        self._by_relation: dict[str, list[tuple[int, ...]]] = {}

    def get(self, fact: Fact, default=None):
        return self.rows.get(fact.relation, {}).get(fact.args, default)

    def set(self, fact: Fact, payload) -> None:
        """Give `fact` the payload (None removes it)."""
        rows = self.rows.setdefault(fact.relation, {})
        if payload is None:
            if rows.pop(fact.args, None) is None:
                return
            for positions in self._by_relation.get(fact.relation, ()):
                bucket = self._indexes[(fact.relation, positions)]
                key = tuple(fact.args[i] for i in positions)
                entries = bucket[key]
                del entries[fact.args]
                if not entries:
                    del bucket[key]
            return
        new = fact.args not in rows
        rows[fact.args] = payload
        for positions in self._by_relation.get(fact.relation, ()):
            bucket = self._indexes[(fact.relation, positions)]
            key = tuple(fact.args[i] for i in positions)
            if new:
                bucket.setdefault(key, {})[fact.args] = payload
            else:
                bucket[key][fact.args] = payload

    def lookup(self, relation: str, positions: tuple[int, ...], key: tuple) -> dict[Args, Any]:
        """The rows of `relation` whose arguments at `positions` are `key`."""
        if not positions:
            return self.rows.get(relation, {})
        return self.index(relation, positions).get(key, {})

    def index(self, relation: str, positions: tuple[int, ...]) -> dict[tuple, dict[Args, Any]]:
        """The index of `relation` on `positions` (key → rows), built the first time it is asked for and then
        kept up to date by `set`: an engine asks for the ones it uses when it starts, so that no burst builds one."""
        index = self._indexes.get((relation, positions))
        if index is None:
            index = {}
            for args, payload in self.rows.get(relation, {}).items():
                index.setdefault(tuple(args[i] for i in positions), {})[args] = payload
            self._indexes[(relation, positions)] = index
            self._by_relation.setdefault(relation, []).append(positions)
        return index

    def facts(self) -> Iterator[tuple[Fact, Any]]:
        for relation, rows in self.rows.items():
            for args, payload in rows.items():
                yield Fact(relation, args), payload


@dataclass(frozen=True)
class Step:
    """One body atom of a plan: `key` gives the known positions' values (constant, or variable name)."""

    index: int  # the atom's position in the rule body
    relation: str
    positions: tuple[int, ...]
    key: tuple[tuple[bool, Any], ...]  # (is a variable, name or symbol)
    binds: tuple[tuple[int, str], ...]
    checks: tuple[tuple[int, str], ...]  # a variable seen first earlier in the same atom


def plan(body: Sequence[Atom], order: Sequence[int], bound: set[str]) -> tuple[Step, ...]:
    """The steps that join the atoms `body[i]` for i in `order`, variables `bound` known at the start."""
    known = set(bound)
    steps = []
    for i in order:
        atom = body[i]
        positions, key, binds, checks = [], [], [], []
        here: set[str] = set()
        for p, a in enumerate(atom.args):
            if isinstance(a, Constant):
                positions.append(p)
                key.append((False, a.value))
            elif a.name in known:
                positions.append(p)
                key.append((True, a.name))
            elif a.name in here:
                checks.append((p, a.name))
            else:
                binds.append((p, a.name))
                here.add(a.name)
        known |= here
        steps.append(Step(i, atom.predicate, tuple(positions), tuple(key), tuple(binds), tuple(checks)))
    return tuple(steps)


def delta_plans(rules: Sequence[DRule]) -> dict[str, list[tuple[DRule, int, tuple[Step, ...]]]]:
    """relation → (rule, i, steps) for each body atom i of a rule over that relation: the steps that join the
    rest of the body once atom i has matched a fact (its variables bound) — what firing Δ at i computes."""
    out: dict[str, list] = {}
    for rule in rules:
        for i, atom in enumerate(rule.body):
            steps = plan(rule.body, [j for j in range(len(rule.body)) if j != i],
                         {a.name for a in atom.args if hasattr(a, "name")})
            out.setdefault(atom.predicate, []).append((rule, i, steps))
    return out


def bind(atom: Atom, args: Args, binding: dict | None = None) -> dict | None:
    """The binding that makes `atom` the fact with `args` (extending `binding`), or None."""
    out = dict(binding or {})
    for a, v in zip(atom.args, args):
        if isinstance(a, Constant):
            if a.value != v:
                return None
        else:
            known = out.setdefault(a.name, v)
            if known is not v and known != v:  # (`!=` on clingo symbols is a call into clingo)
                return None
    return out


def instantiate(atom: Atom, binding: dict) -> Fact:
    return Fact(atom.predicate, tuple(a.value if isinstance(a, Constant) else binding[a.name] for a in atom.args))


def join(steps: tuple[Step, ...], rows: Callable[[Step, tuple], dict[Args, Any]], binding: dict,
         matched: tuple = ()) -> Iterator[tuple[dict, tuple]]:
    """Every (binding, matched rows) of the steps in turn; `rows(step, key)` gives a step's candidate rows
    {args: payload}, and `matched` gets (step index, args, payload) for each."""
    if not steps:
        yield binding, matched
        return
    step, rest = steps[0], steps[1:]
    key = tuple(binding[v] if is_var else v for is_var, v in step.key)
    for args, payload in rows(step, key).items():
        extended = dict(binding)
        ok = True
        for p, n in step.binds:
            extended[n] = args[p]
        for p, n in step.checks:
            if args[p] != extended[n]:
                ok = False
                break
        if ok:
            yield from join(rest, rows, extended, matched + ((step.index, args, payload),))
