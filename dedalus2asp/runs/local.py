"""The evaluator's back end on Python sets, and the evaluator at one node on ground facts.

`Local` implements `backend.Backend`: facts are a dict relation -> {(node,
args)}, a table of valuations is a list of rows (node, values of the
variables...), joins are hash joins on the shared columns, an antijoin is a set
lookup. Values are in any representation of `values` (`Values`): strings for the
run engine (`--engine local`, the reference for Spark), ints for the explorer,
clingo symbols for explain and the inspector.

`Node` is the evaluator at one node x, on the ground facts (R, ā) of x at one
step, as the explorer, `replay`, explain and the inspector hold them: the
subprograms deduc_P, induc_P and async_P of tplp2016 §5.1.2 and the valuations
of a rule body, on `Local` with the single node `HERE`.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..lang.ast import GLOBAL_NODE, Arithmetic, Atom, Comparison, Constant, Rule, Term, Trace, Variable
from . import evaluator
from .body import FRESH, Aggregation, Body, Pattern
from .evaluator import Moment, Plan, Strata
from .schedule import Schedule
from .values import SYMBOLS, TEXT, Values, arithmetic, wrap

Args = tuple
FactRow = tuple[Any, str, Args]
"""(node, relation, args)."""
EventRow = tuple[Any, str, Args, int]
"""An input event R(ā)@k at a node: it holds at step k only (tr2009 Example 3)."""
MessageRow = tuple[str, Args, Any, int, Any, "int | None"]
"""(relation, args, sender, sent, addressee, arrives); arrives is None for a pending message."""
SentRow = tuple[str, Args, Any, Any]
"""A message just sent: (relation, args, sender, addressee)."""

Facts = dict[str, set[tuple[Any, Args]]]
"""relation -> {(node, args)}."""

_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
    "!=": operator.ne,
}


@dataclass
class Table:
    """Valuations: column names (node first, then variables) and rows."""

    columns: tuple[str, ...]
    rows: list[tuple]


class Local:
    """The reference back end: every table is a Python set or list, joins are hash joins.

    `network`: the nodes; `facts` and `events`: H as rows (node, relation,
    args) and (node, relation, args, step); `values`: how values are held;
    `observer`: the node of global facts (default `GLOBAL_NODE` as a value).
    """

    name = "local"

    def __init__(
        self,
        network: Sequence[Any],
        facts: Iterable[FactRow] = (),
        events: Iterable[EventRow] = (),
        values: Values = TEXT,
        observer: Any = None,
    ):
        self.network = tuple(network)
        self.values = values
        self.here = values.constant(GLOBAL_NODE) if observer is None else observer
        self._input: Facts = defaultdict(set)
        for node, relation, args in facts:
            self._input[relation].add((node, tuple(args)))
        self._events: dict[int, Facts] = defaultdict(lambda: defaultdict(set))
        for node, relation, args, step in events:
            self._events[step][relation].add((node, tuple(args)))

    # -- the evaluator's operators (backend.Backend) --------------------------

    def nodes(self) -> Table:
        return Table(("node",), [(x,) for x in self.network])

    def scan(self, facts: Facts, p: Pattern) -> Table:
        constants = [(i, self.values.constant(c)) for i, c in p.constants]
        rows = []
        for node, args in facts.get(p.relation, ()):
            if all(args[i] == c for i, c in constants) and all(args[i] == args[j] for i, j in p.same):
                rows.append((node, *(args[i] for _, i in p.columns)))
        return Table(("node", *(name for name, _ in p.columns)), rows)

    def join(self, a: Table, b: Table) -> Table:
        shared = [c for c in a.columns if c in b.columns]
        ia = [a.columns.index(c) for c in shared]
        ib = [b.columns.index(c) for c in shared]
        rest = [i for i, c in enumerate(b.columns) if c not in shared]
        index: dict[tuple, list[tuple]] = defaultdict(list)
        for row in b.rows:
            index[tuple(row[i] for i in ib)].append(tuple(row[i] for i in rest))
        rows = [ra + rb for ra in a.rows for rb in index.get(tuple(ra[i] for i in ia), ())]
        return Table(a.columns + tuple(b.columns[i] for i in rest), rows)

    def _getter(self, table: Table, term: Term) -> Callable[[tuple], Any]:
        if isinstance(term, Constant):
            v = self.values.constant(term.value)
            return lambda row: v
        if isinstance(term, Arithmetic):
            return self._expression(table, term)
        i = table.columns.index(term.name)
        return lambda row: row[i]

    def _expression(self, table: Table, term: Arithmetic) -> Callable[[tuple], Any]:
        """The value of `term` per row, None where it has none (`values.arithmetic`)."""
        integer, number = self.values.integer, self.values.number

        def operand(t: Term | None) -> Callable[[tuple], int | None]:
            if isinstance(t, Arithmetic):
                inner = self._integer(table, t)
                return inner
            get = self._getter(table, t)
            return lambda row: integer(get(row))

        left = operand(term.left) if term.left is not None else None
        right, op = operand(term.right), term.op

        def value(row: tuple) -> Any:
            r = right(row)
            if r is None:
                return None
            if left is None:
                n = arithmetic(op, None, r)
            else:
                lv = left(row)
                n = None if lv is None else arithmetic(op, lv, r)
            return None if n is None else number(n)

        return value

    def _integer(self, table: Table, term: Arithmetic) -> Callable[[tuple], int | None]:
        get, integer = self._expression(table, term), self.values.integer
        return lambda row: None if (v := get(row)) is None else integer(v)

    def extend(self, table: Table, name: str, term: Term) -> Table:
        get = self._getter(table, term)
        rows = [row + (v,) for row in table.rows if (v := get(row)) is not None]
        return Table(table.columns + (name,), rows)

    def aggregate(self, table: Table, keys: Sequence[str], aggregations: Sequence[Aggregation]) -> Table:
        at = [0] + [table.columns.index(k) for k in keys]
        groups: dict[tuple, list[tuple]] = defaultdict(list)
        for row in set(table.rows):
            groups[tuple(row[i] for i in at)].append(row)
        key, integer = self.values.key or (lambda v: v), self.values.integer
        rows = []
        for group, members in groups.items():
            results = []
            for function, column, _ in aggregations:
                i = table.columns.index(column)
                if function == "count":
                    results.append(self.values.number(len({row[i] for row in members})))
                elif function == "sum":
                    total = sum(n for row in members if (n := integer(row[i])) is not None)
                    results.append(self.values.number(wrap(total)))
                else:
                    pick = min if function == "min" else max
                    results.append(pick({row[i] for row in members}, key=key))
            rows.append(group + tuple(results))
        return Table(("node", *keys, *(name for *_, name in aggregations)), rows)

    def compare(self, table: Table, c: Comparison) -> Table:
        left, right, op = self._getter(table, c.left), self._getter(table, c.right), _COMPARE[c.op]
        key = self.values.key
        if key is None or c.op in ("=", "!="):
            return Table(table.columns, [row for row in table.rows if op(left(row), right(row))])
        return Table(table.columns, [row for row in table.rows if op(key(left(row)), key(right(row)))])

    def antijoin(self, table: Table, facts: Facts, p: Pattern) -> Table:
        present = set(self.scan(facts, p).rows)
        idx = [table.columns.index(name) for name, _ in p.columns]
        return Table(table.columns, [row for row in table.rows if (row[0], *(row[i] for i in idx)) not in present])

    def bindings(self, table: Table) -> Iterator[dict[str, Any]]:
        names = table.columns[1:]
        return (dict(zip(names, row[1:])) for row in table.rows)

    def _args(self, table: Table, atom: Atom) -> Callable[[tuple], tuple]:
        getters = [self._getter(table, t) for t in atom.args]
        return lambda row: tuple(g(row) for g in getters)

    def heads(self, table: Table, head: Atom) -> Facts:
        args = self._args(table, head)
        return {head.predicate: {(row[0], args(row)) for row in table.rows}}

    def sends(self, table: Table, head: Atom, addressee: Variable) -> set[SentRow]:
        args, to = self._args(table, head), table.columns.index(addressee.name)
        return {(head.predicate, args(row), row[0], row[to]) for row in table.rows}

    def gather(self, facts: Facts, relations: set[str]) -> Facts:
        return {r: {(self.here, (x, *args)) for x, args in rows} for r, rows in facts.items() if r in relations}

    def observer(self) -> Table:
        return Table(("node",), [(self.here,)])

    def union_sends(self, parts: Sequence[set[SentRow]]) -> set[SentRow]:
        return set().union(*parts)

    def union(self, parts: Sequence[Facts]) -> Facts:
        out: Facts = defaultdict(set)
        for part in parts:
            for relation, rows in part.items():
                out[relation] |= rows
        return out

    def minus(self, a: Facts, b: Facts) -> Facts:
        out = {r: rows - b.get(r, set()) for r, rows in a.items()}
        return {r: rows for r, rows in out.items() if rows}

    def restrict(self, facts: Facts, relations: set[str]) -> Facts:
        return {r: rows for r, rows in facts.items() if r in relations}

    def silence(self, facts: Facts, nodes: Sequence[str], keep: set[str]) -> Facts:
        down = set(nodes)
        out = {r: rows if r in keep else {row for row in rows if row[0] not in down} for r, rows in facts.items()}
        return {r: rows for r, rows in out.items() if rows}

    def since(self, facts: Facts, previous: Facts, relations: set[str]) -> Facts | None:
        if not all(previous.get(r, set()) <= facts.get(r, set()) for r in relations):
            return None
        return self.minus(self.restrict(facts, relations), previous)

    def empty(self, facts: Facts) -> bool:
        return not any(facts.values())

    def materialize(self, facts: Facts) -> Facts:
        return facts

    def input(self, t: int) -> Facts:
        """H(x) at step t: the persistent input facts and the events R(ā)@t."""
        return self.union([self._input, self._events[t]]) if t in self._events else self._input

    def deliver(self, messages: Sequence[list[MessageRow]], t: int) -> Facts:
        out: Facts = defaultdict(set)
        for part in messages:
            for relation, args, _, _, addressee, arrives in part:
                if arrives == t:
                    out[relation].add((addressee, args))
        return out

    def schedule(self, sent: set[SentRow], t: int, steps: int, schedule: Schedule) -> list[MessageRow]:
        network = set(self.network)
        rows = []
        for relation, args, sender, addressee in sent:
            if addressee in network and not schedule.lost(sender, t, addressee):  # outside N: dropped (tplp2016 §5.1.3); lost: docs/faults.md
                arrives = t + schedule.delay(relation, args, sender, t, addressee)
                rows.append((relation, args, sender, t, addressee, arrives if arrives < steps else None))
        return rows

    # -- a run's tables (engine.run) ---------------------------------------------

    def trace(self, deduced: Sequence[Facts]) -> list[tuple]:
        """The trace rows (node, step, relation, args) of the D of each step."""
        return [(x, t, r, args) for t, d in enumerate(deduced) for r, rows in d.items() for x, args in rows]

    def messages(self, parts: Sequence[list[MessageRow]]) -> list[MessageRow]:
        return [m for part in parts for m in part]

    def outputs(self, facts: Facts, relations: Iterable[str]) -> list[tuple]:
        """The rows (node, relation, args) of `facts` of `relations`."""
        relations = set(relations)
        return [(x, r, args) for r, rows in facts.items() if r in relations for x, args in rows]


# ---------------------------------------------------------------------------
# The evaluator at one node

GroundFact = tuple[str, tuple]
"""A fact R(a1..ak) at one node as (R, (a1..ak))."""

HERE = ()
"""The node of a one-node evaluation: a rule cannot tell which node it runs at (a global rule runs there too)."""


MEMORY = "@"
"""The prefix of the relations a node keeps in its state for body atoms at fixed steps (`Node.step`):
`@k:R` holds the facts of R at step k, `@clock` the node's step (while it matters). No relation of a
program can be named so; they never reach a trace."""

CLOCK = MEMORY + "clock"


class Node:
    """The evaluator at one node, on its ground facts (R, ā) at one step; values as `values` holds them."""

    def __init__(self, values: Values = SYMBOLS):
        self.backend = Local((HERE,), values=values, observer=HERE)

    @staticmethod
    def facts(ground: Iterable[GroundFact]) -> Facts:
        """Ground facts as the back end's facts at the node."""
        facts: Facts = defaultdict(set)
        for relation, args in ground:
            facts[relation].add((HERE, args))
        return facts

    @staticmethod
    def ground(facts: Facts) -> frozenset[GroundFact]:
        """The back end's facts at the node as ground facts."""
        return frozenset((relation, args) for relation, rows in facts.items() for _, args in rows)

    @staticmethod
    def addressed(sent: set[SentRow]) -> frozenset[tuple[Any, GroundFact]]:
        """Messages sent at the node as (addressee, fact) pairs."""
        return frozenset((addressee, (relation, args)) for relation, args, _, addressee in sent)

    def moment(self, step: int, memory: Mapping[int, Iterable[GroundFact]]) -> Moment:
        """The step and the node's facts at earlier fixed steps, for rules with body atoms at a step (`evaluator.Moment`)."""
        return Moment(step, {k: self.facts(f) for k, f in memory.items()})

    def recall(self, rules: Iterable[Rule], slice: Callable[[Any, int], Iterable[GroundFact]], node: Any, step: int) -> Moment:
        """The `Moment` of (node, step) for `rules`: `slice(node, k)`, the node's facts at step k, for every
        fixed step k < step that a body atom `p(ā)@k` of `rules` reads (explain, the inspector)."""
        steps = {r.step for rule in rules for r in (*Body.of(rule).positive, *Body.of(rule).negative)}
        return self.moment(step, {k: slice(node, k) for k in steps if k is not None and k < step})

    def deduc(self, strata: Strata, facts: Iterable[GroundFact], at: Moment | None = None) -> frozenset[GroundFact]:
        """deduc_P(I) (see `evaluator.deduc`; `strata` as `evaluator.strata_of` gives them). The output contains I."""
        return self.ground(evaluator.deduc(self.backend, strata, self.facts(facts), at=at))

    def induc(self, rules: Sequence[Rule], facts: Iterable[GroundFact], at: Moment | None = None) -> frozenset[GroundFact]:
        """induc_P(I): one derivation step of `rules` (see `evaluator.induc`)."""
        return self.ground(evaluator.induc(self.backend, rules, self.facts(facts), at))

    def async_(self, rules: Sequence[Rule], facts: Iterable[GroundFact], at: Moment | None = None) -> frozenset[tuple[Any, GroundFact]]:
        """async_P(I) as (addressee, fact) pairs (see `evaluator.sends`)."""
        return self.addressed(evaluator.sends(self.backend, rules, self.facts(facts), at))

    def step(self, plan: Plan, facts: Iterable[GroundFact]) -> tuple[frozenset[GroundFact], frozenset[GroundFact], frozenset]:
        """What a step computes from I = `facts` (tplp2016 §5.1.3): D = deduc_P(I), induc_P(D), async_P(D).

        For a program with body atoms at fixed steps (`Plan.remembered`), the
        node's state carries what it must remember: `@k:R` the facts of R at
        step k once k has passed, and `@clock` its step (absent at step 0,
        then the step, up to one past the last step read). These are taken
        out of I here and never appear in D; the next state (the second
        result) carries them on.
        """
        if not plan.remembered:
            d = evaluator.deduc(self.backend, plan.strata, self.facts(facts))
            carried = self.ground(evaluator.induc(self.backend, plan.inductive, d))
            sent = evaluator.sends(self.backend, plan.asynchronous, d)
            return self.ground(d), carried, self.addressed(sent)
        regular, kept, t = [], [], 0
        memory: dict[int, list[GroundFact]] = defaultdict(list)
        for relation, args in facts:
            if relation == CLOCK:
                t = args[0]
            elif relation.startswith(MEMORY):
                kept.append((relation, args))
                k, name = relation[len(MEMORY):].split(":", 1)
                memory[int(k)].append((name, args))
            else:
                regular.append((relation, args))
        at = self.moment(t, memory)
        d = evaluator.deduc(self.backend, plan.strata, self.facts(regular), at=at)
        carried = set(self.ground(evaluator.induc(self.backend, plan.inductive, d, at)))
        sent = evaluator.sends(self.backend, plan.asynchronous, d, at)
        deduced = self.ground(d)
        carried.update(kept)
        if t in plan.remembered:
            carried.update((f"{MEMORY}{t}:{r}", args) for r, args in deduced if r in plan.remembered[t])
        carried.add((CLOCK, (min(t + 1, max(plan.remembered) + 1),)))
        return deduced, frozenset(carried), self.addressed(sent)

    def valuations(self, rule: Rule, facts: Iterable[GroundFact], at: Moment | None = None) -> list[dict[str, Any]]:
        """The satisfying valuations of the body of `rule` on `facts` (tplp2016 §3.2): variable name -> value."""
        return evaluator.valuations(self.backend, rule, self.facts(facts), at)

    def instances(self, rule: Rule, facts: Iterable[GroundFact], at: Moment | None = None) -> list[tuple[dict[str, Any], GroundFact, list[dict[str, Any]]]]:
        """Each instance of `rule` on `facts`: (binding, the head fact it derives, the valuations behind it).

        For a rule without aggregate an instance is one satisfying valuation
        (and the list holds it alone); for an aggregate head it is a group: the
        binding of the head's other variables, and every valuation of the group.
        """
        backend, compiled = self.backend, Body.of(rule)
        table = evaluator.body(backend, rule, self.facts(facts), at=at)
        if not compiled.aggregations:
            args = backend._args(table, compiled.head)
            return [(_visible(dict(zip(table.columns[1:], row[1:]))), (rule.head.predicate, args(row)), [])
                    for row in table.rows]
        groups = backend.aggregate(table, compiled.keys, compiled.aggregations)
        args = backend._args(groups, compiled.head)
        at_keys = [table.columns.index(k) for k in compiled.keys]
        out = []
        for group in groups.rows:
            members = [_visible(dict(zip(table.columns[1:], row[1:])))
                       for row in set(table.rows) if tuple(row[i] for i in at_keys) == group[1:1 + len(at_keys)]]
            binding = _visible(dict(zip(compiled.keys, group[1:])))
            out.append((binding, (rule.head.predicate, args(group)), members))
        return out

    def instance(self, atom: Atom, binding: dict[str, Any]) -> tuple:
        """The arguments of `atom` under `binding`; None for an anonymous `_`, an unbound variable, or an
        expression without a value (or with an unbound variable)."""
        value = self.backend.values.constant
        table = Table(("node", *binding), [(HERE, *binding.values())])

        def arg(t):
            if isinstance(t, Constant):
                return value(t.value)
            if isinstance(t, Arithmetic):
                if any(v.name not in binding for v in t.variables()):
                    return None
                return self.backend._getter(table, t)(table.rows[0])
            if isinstance(t, Variable):
                return binding.get(t.name)
            return None

        return tuple(arg(t) for t in atom.args)


def _visible(binding: dict[str, Any]) -> dict[str, Any]:
    """A valuation without the columns `body.Body` made up."""
    return {k: v for k, v in binding.items() if not k.startswith(FRESH)}


def observed(plan: Plan, trace: Trace, steps: int | None = None) -> Trace:
    """`trace` with the facts of the global node: the global rules at each step (`evaluator.observe`).

    `trace` holds clingo symbols (as the explorer, `replay` and a model give
    it); the global facts are (`GLOBAL_NODE`, s, R, ā) for s in 0..steps-1
    (by default up to the last step of the trace).
    """
    if not plan.globals:
        return trace
    if steps is None:
        steps = 1 + max((s for _, s, *_ in trace), default=-1)
    nodes = tuple(dict.fromkeys(x for x, *_ in trace))
    backend = Local(nodes, values=SYMBOLS)
    per_step: list[Facts] = [defaultdict(set) for _ in range(steps)]
    for x, s, relation, args in trace:
        if s < steps and x != GLOBAL_NODE:
            per_step[s][relation].add((x, args))
    found = evaluator.observe(backend, plan, per_step)
    return trace | frozenset((x, s, r, args) for x, s, r, args in backend.trace(found))
