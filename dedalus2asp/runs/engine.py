"""The operational semantics of Dedalus (tplp2016 §5.1) as a relational engine.

`operational.py` explores every run of a small system; this module computes
*one* run of a possibly large one, with relational operators. A fact is a row
(node, relation, args): the location specifier is a column, and every join of
a rule body is on it (all body atoms of a rule hold at one node and step), so
it is the natural partition key. Values are strings: a clingo symbol as the
user writes it (`v1`, `42`, `"a b"`).

In the run, all nodes step together: at step t every node x computes
(tplp2016 §5.1.3, with the delivered set m fixed by the schedule)

    I = st(x) ∪ untag(messages to x arriving at t)      D = deduc_P(I)
    st(x) := H(x) ∪ induc_P(D)                          messages sent at t := async_P(D)

deduc_P is the stratified semantics of the deductive rules: per stratum
(`analysis.strata`) a semi-naive fixpoint of joins (tr2009 Alg. 1). induc_P
and async_P are one join each. A message is identified by (relation, args,
sender, sent, addressee); one sent to a node outside the network is dropped
(§5.1.3). Its arrival step comes from a `Schedule`:

* `sync`: every message arrives at the addressee's next step, t + 1;
* `random`: a message arrives t + d steps later, d in 1..D drawn from the
  SHA-256 of its identity and the seed, so that the same seed gives the same
  run on any engine and any partitioning.

Every arrival is later than its send in one global clock, so no message
arrives at a step that happens before its send: every such run is causal
(§5.1.4), and its trace is the trace of a model of pure(P) (Theorem 4 (i)).
Messages still in flight after the last step are pending (arrives = None).

Persisted facts are not derived again (tr2009 Alg. 1 and psn2010's
semi-naive maintenance under insertions): when a stratum is positive and
everything the previous step deduced for its relations is still there, the
previous D is already closed under the stratum's rules, so the fixpoint starts
from the facts that are new since then instead of from all of I
(`Plan.incremental`; benchmarks/spark.py part 3 measures it: 1.0-1.2× on jcss2014 Alg. 1,
where the messages, not the fixpoints, take the time).

One plan, two back ends: `_body`, `deduc` and `execute` call the relational
operators of a back end (scan, join, compare, antijoin, heads, sends, union,
minus, ...): `Local` on Python sets (the reference) and `Spark` on DataFrames.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any, Iterable, Sequence

import clingo

from ..lang.analysis import strongly_connected, strata
from ..lang.ast import Atom, Comparison, Constant, Fact, Instance, Program, Rule, RuleKind, Variable
from ..lang.diagnostics import Diagnostic, DiagnosticError
from ..lang.facts import json_value

Args = tuple[str, ...]
FactRow = tuple[str, str, Args]
EventRow = tuple[str, str, Args, int]
"""An input event R(ā)@k at a node: it holds at step k only (tr2009 Example 3)."""
"""(node, relation, args)."""
MessageRow = tuple[str, Args, str, int, str, "int | None"]
"""(relation, args, sender, sent, addressee, arrives); arrives is None for a pending message."""

SCHEDULES = ("sync", "random")
ENGINES = ("local", "spark")


# ---------------------------------------------------------------------------
# Values


_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)")


def value(symbol: clingo.Symbol) -> str:
    """A clingo symbol as the engine stores it: as the user writes it."""
    return str(symbol)


def cell(text: str) -> str:
    """A table cell as a Dedalus constant (SPEC §1.1): an integer in clingo's range as it is, anything
    else as a JSON string value reads (`parser.json_value`: a name, or a string, "not" a string)."""
    if _NUMBER.fullmatch(text) and -(2**31) <= int(text) < 2**31:
        return text
    return str(json_value(text))


def order(v: str) -> tuple:
    """clingo's order on terms (numbers < names < strings), the meaning of `<` in comparisons."""
    if v.startswith('"'):
        return (2, 0, re.sub(r"\\(.)", r"\1", v[1:-1]))
    if _NUMBER.fullmatch(v):
        return (0, int(v), "")
    return (1, 0, v)


_COMPARE = {
    "<": lambda a, b: order(a) < order(b),
    "<=": lambda a, b: order(a) <= order(b),
    ">": lambda a, b: order(a) > order(b),
    ">=": lambda a, b: order(a) >= order(b),
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


# ---------------------------------------------------------------------------
# The schedule


@dataclass(frozen=True)
class Schedule:
    """When a message arrives: `sync` at the next step, `random` 1..max_delay steps later by a seeded hash."""

    kind: str = "sync"
    max_delay: int = 1
    seed: int = 0

    def __post_init__(self):
        if self.kind not in SCHEDULES:
            raise ValueError(f"the schedule must be one of {', '.join(SCHEDULES)}, not {self.kind!r}")
        if self.max_delay < 1:
            raise ValueError(f"the delay bound of a schedule must be 1 or more, not {self.max_delay}")

    def identity(self, relation: str, args: Args, sender: str, sent: int, addressee: str) -> str:
        """The string that is hashed: seed, relation, args, sender, send step, addressee."""
        return "\x1f".join((str(self.seed), relation, "\x1e".join(args), sender, str(sent), addressee))

    def delay(self, relation: str, args: Args, sender: str, sent: int, addressee: str) -> int:
        """1 for `sync`; for `random` 1 + (the first 60 bits of SHA-256 of the identity) mod max_delay."""
        if self.kind == "sync":
            return 1
        digest = hashlib.sha256(self.identity(relation, args, sender, sent, addressee).encode()).hexdigest()
        return 1 + int(digest[:15], 16) % self.max_delay


# ---------------------------------------------------------------------------
# The plan: what every back end evaluates


@dataclass(frozen=True)
class Pattern:
    """How the atom R(u1..uk) reads a fact: constants to match, equal positions, variables to bind.

    `columns` gives each variable (first occurrence) its position; `same`
    pairs a later occurrence with the first; a lone `_` binds nothing.
    """

    relation: str
    constants: tuple[tuple[int, str], ...]
    same: tuple[tuple[int, int], ...]
    columns: tuple[tuple[str, int], ...]

    @staticmethod
    def of(atom: Atom) -> "Pattern":
        constants, same, first = [], [], {}
        for i, term in enumerate(atom.args):
            if isinstance(term, Constant):
                constants.append((i, value(term.value)))
            elif not term.anonymous:
                if term.name in first:
                    same.append((i, first[term.name]))
                else:
                    first[term.name] = i
        return Pattern(atom.predicate, tuple(constants), tuple(same), tuple(first.items()))


@dataclass(frozen=True)
class Component:
    """Deductive rules whose heads depend positively on each other (one strongly connected component).

    A `recursive` component reads its own heads and needs a fixpoint; any
    other is evaluated once, after the components it reads.
    """

    rules: tuple[Rule, ...]
    recursive: bool

    @property
    def heads(self) -> set[str]:
        return {r.head.predicate for r in self.rules}


def components(stratum: Sequence[Rule]) -> tuple[Component, ...]:
    """A stratum (`analysis.strata`) split into its components, each after those it depends on."""
    heads = list(dict.fromkeys(r.head.predicate for r in stratum))
    reads = {h: sorted({a.predicate for r in stratum if r.head.predicate == h for a in r.positive} & set(heads)) for h in heads}
    out = []
    for comp in strongly_connected(heads, reads):  # dependencies first
        members = set(comp)
        rules = tuple(r for r in stratum if r.head.predicate in members)
        out.append(Component(rules, any(a.predicate in members for r in rules for a in r.positive)))
    return tuple(out)


@dataclass(frozen=True)
class Plan:
    """P compiled for the engine: deduc_P as strata of components, the rules of induc_P and async_P, out(P).

    `incremental`: start a positive recursive component's fixpoint from what
    is new since the previous step when that is sound (see the module
    docstring).
    """

    program: Program
    strata: tuple[tuple[Component, ...], ...]
    inductive: tuple[Rule, ...]
    asynchronous: tuple[Rule, ...]
    outputs: tuple[str, ...]
    incremental: bool = True

    @staticmethod
    def of(program: Program, incremental: bool = True) -> "Plan":
        return Plan(
            program,
            tuple(components(stratum) for stratum in strata(program)),
            program.rules_of(RuleKind.INDUCTIVE),
            program.rules_of(RuleKind.ASYNC),
            program.output_relations,
            incremental,
        )


def _atom_order(rule: Rule, first: int | None) -> list[int]:
    """The positive atoms in join order: `first` (the delta atom) first, then greedily the most connected."""
    atoms = rule.positive
    left = list(range(len(atoms)))
    chosen: list[int] = []
    bound: set[str] = set()
    if first is not None:
        left.remove(first)
        chosen.append(first)
        bound |= {v.name for v in atoms[first].variables()}
    while left:
        best = max(left, key=lambda k: (len(bound & {v.name for v in atoms[k].variables()}), -k))
        left.remove(best)
        chosen.append(best)
        bound |= {v.name for v in atoms[best].variables()}
    return chosen


def _body(backend, rule: Rule, known, delta=None, first: int | None = None):
    """The satisfying valuations of the body of `rule` at every node, as a table (node, variables...).

    With `delta`, only those that map positive atom `first` into `delta`
    (semi-naive evaluation). A rule without positive atoms has one empty
    valuation per node (the guard all(x) of tplp2016 §4.3.1, footnote 7).
    """
    table = backend.nodes() if not rule.positive else None
    for k in _atom_order(rule, first):
        scanned = backend.scan(delta if k == first else known, Pattern.of(rule.positive[k]))
        table = scanned if table is None else backend.join(table, scanned)
    for comparison in rule.comparisons:
        table = backend.compare(table, comparison)
    for atom in rule.negative:
        table = backend.antijoin(table, known, Pattern.of(atom))
    return table


def _heads(backend, rules: Sequence[Rule], known, delta=None, within: set[str] | None = None):
    """The head facts of `rules` on `known`; with `delta`, semi-naively (every positive atom of a relation in `within`)."""
    parts = []
    for rule in rules:
        if delta is None:
            parts.append(backend.heads(_body(backend, rule, known), rule.head))
        else:
            for k, atom in enumerate(rule.positive):
                if within is None or atom.predicate in within:
                    parts.append(backend.heads(_body(backend, rule, known, delta, k), rule.head))
    return backend.union(parts)


def deduc(backend, plan: Plan, facts, previous=None):
    """D = deduc_P(I) at every node: the stratified semantics of the deductive rules (tplp2016 §5.1.2).

    Stratum by stratum, lowest first, and within a stratum component by
    component: a non-recursive component's rules fire once (together with
    the following ones that do not read its heads); a recursive one
    reaches its minimal fixpoint semi-naively: round 0 evaluates every rule,
    later rounds only the valuations that use a fact new in the previous
    round. With `previous` (the D of the previous step) and
    `plan.incremental`, a positive recursive component whose relations lost
    nothing since `previous` starts from the facts that are new since then:
    `previous` is closed under its rules.
    """
    known = facts
    for stratum in plan.strata:
        batch: list[Rule] = []  # non-recursive rules that read none of each other's heads: fired together
        for component in (*stratum, None):
            heads = component.heads if component is not None else set()
            reads = {a.predicate for r in component.rules for a in r.positive} if component is not None else set()
            if batch and (component is None or component.recursive or reads & {r.head.predicate for r in batch}):
                known = backend.materialize(backend.union([known, _heads(backend, batch, known)]))
                batch = []
            if component is None:
                continue
            if not component.recursive:
                batch += component.rules
                continue
            relations = heads | {a.predicate for r in component.rules for a in r.positive}
            positive = not any(r.negative for r in component.rules)
            if plan.incremental and previous is not None and positive and backend.contains(known, previous, relations):
                new = backend.minus(backend.restrict(known, relations), previous)
                within = None
            else:
                new = backend.minus(_heads(backend, component.rules, known), known)
                within = heads
            while not backend.empty(new):
                if within is heads:
                    known = backend.union([known, new])
                new = backend.minus(_heads(backend, component.rules, known, new, within), known)
                within = heads
            known = backend.materialize(known)
    return backend.materialize(known)


def execute(backend, plan: Plan, steps: int, schedule: Schedule):
    """The run of `steps` steps (0..steps-1) from start(P, H): the trace and every message, as back-end tables.

    Returns (trace parts, one per step, as fact tables; message parts, one per step).
    """
    if steps < 1:
        raise ValueError(f"a run needs at least one step, not {steps}")
    carried = None  # induc_P(D) of the previous step
    sent_parts, deduced = [], []
    previous = None
    for t in range(steps):
        arrived = backend.deliver(sent_parts, t)
        facts = backend.union([backend.input(t), arrived] + ([carried] if carried is not None else []))
        d = deduc(backend, plan, facts, previous)
        deduced.append(d)
        carried = _heads(backend, plan.inductive, d)
        sent_parts.append(backend.schedule(_sends(backend, plan.asynchronous, d), t, steps, schedule))
        previous = d
    return deduced, sent_parts


def _sends(backend, rules: Sequence[Rule], known):
    return backend.union_sends([backend.sends(_body(backend, rule, known), rule.head, rule.addressee) for rule in rules])


# ---------------------------------------------------------------------------
# The local back end: Python sets


Facts = dict[str, set[tuple[str, Args]]]
"""relation -> {(node, args)}."""


@dataclass
class Table:
    """Valuations: column names (node first, then variables) and rows."""

    columns: tuple[str, ...]
    rows: list[tuple]


class Local:
    """The reference back end: every table is a Python set or list, joins are hash joins."""

    name = "local"

    def __init__(self, network: Sequence[str], facts: Iterable[FactRow], events: Iterable[EventRow] = ()):
        self.network = tuple(network)
        self._input: Facts = defaultdict(set)
        for node, relation, args in facts:
            self._input[relation].add((node, tuple(args)))
        self._events: dict[int, Facts] = defaultdict(lambda: defaultdict(set))
        for node, relation, args, step in events:
            self._events[step][relation].add((node, tuple(args)))

    def input(self, t: int) -> Facts:
        """H(x) at step t: the persistent input facts and the events R(ā)@t."""
        return self.union([self._input, self._events[t]]) if t in self._events else self._input

    def nodes(self) -> Table:
        return Table(("node",), [(x,) for x in self.network])

    def scan(self, facts: Facts, p: Pattern) -> Table:
        rows = []
        for node, args in facts.get(p.relation, ()):
            if all(args[i] == c for i, c in p.constants) and all(args[i] == args[j] for i, j in p.same):
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
        rows = [
            ra + rb for ra in a.rows for rb in index.get(tuple(ra[i] for i in ia), ())
        ]
        return Table(a.columns + tuple(b.columns[i] for i in rest), rows)

    def _getter(self, table: Table, term):
        if isinstance(term, Constant):
            v = value(term.value)
            return lambda row: v
        i = table.columns.index(term.name)
        return lambda row: row[i]

    def compare(self, table: Table, c: Comparison) -> Table:
        left, right, op = self._getter(table, c.left), self._getter(table, c.right), _COMPARE[c.op]
        return Table(table.columns, [row for row in table.rows if op(left(row), right(row))])

    def antijoin(self, table: Table, facts: Facts, p: Pattern) -> Table:
        present = {(row[0], *row[1:]) for row in self.scan(facts, p).rows}
        idx = [table.columns.index(name) for name, _ in p.columns]
        return Table(table.columns, [row for row in table.rows if (row[0], *(row[i] for i in idx)) not in present])

    def _args(self, table: Table, atom: Atom):
        getters = [self._getter(table, t) for t in atom.args]
        return lambda row: tuple(g(row) for g in getters)

    def heads(self, table: Table, head: Atom) -> Facts:
        args = self._args(table, head)
        return {head.predicate: {(row[0], args(row)) for row in table.rows}}

    def sends(self, table: Table, head: Atom, addressee: Variable) -> set:
        args, to = self._args(table, head), table.columns.index(addressee.name)
        return {(head.predicate, args(row), row[0], row[to]) for row in table.rows}

    def union_sends(self, parts: list[set]) -> set:
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

    def contains(self, facts: Facts, previous: Facts, relations: set[str]) -> bool:
        return all(previous.get(r, set()) <= facts.get(r, set()) for r in relations)

    def empty(self, facts: Facts) -> bool:
        return not any(facts.values())

    def materialize(self, facts: Facts) -> Facts:
        return facts

    def deliver(self, sent_parts: list[list[MessageRow]], t: int) -> Facts:
        out: Facts = defaultdict(set)
        for part in sent_parts:
            for relation, args, _, _, addressee, arrives in part:
                if arrives == t:
                    out[relation].add((addressee, args))
        return out

    def schedule(self, sent: set, t: int, steps: int, schedule: Schedule) -> list[MessageRow]:
        network = set(self.network)
        rows = []
        for relation, args, sender, addressee in sent:
            if addressee in network:  # a message to a node outside N is dropped (tplp2016 §5.1.3)
                arrives = t + schedule.delay(relation, args, sender, t, addressee)
                rows.append((relation, args, sender, t, addressee, arrives if arrives < steps else None))
        return rows


# ---------------------------------------------------------------------------
# The Spark back end: DataFrames

FACTS_SCHEMA = "node string, relation string, args array<string>"
SENT_SCHEMA = "relation string, args array<string>, sender string, addressee string"
MESSAGES_SCHEMA = "relation string, args array<string>, sender string, sent int, addressee string, arrives int"


def spark_session(master: str | None = None, partitions: int | None = None):
    """The SparkSession (created once): `master`, else $SPARK_MASTER, else local[*]; UI off, case-sensitive columns."""
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", _python())
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master or os.environ.get("SPARK_MASTER") or "local[*]")
        .appName("dedalus2asp")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", os.environ.get("DEDALUS2ASP_SPARK_AQE", "false"))
        .config("spark.sql.caseSensitive", "true")
        .config("spark.driver.memory", os.environ.get("DEDALUS2ASP_DRIVER_MEMORY", "4g"))
        .config("spark.sql.shuffle.partitions", str(partitions or 8))
    )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _python() -> str:
    import sys

    return sys.executable


class Spark:
    """The same operators on DataFrames; every table a step keeps is checkpointed (its lineage cut)."""

    name = "spark"

    def __init__(self, session, network: Sequence[str], facts, events: Iterable[EventRow] = ()):
        from pyspark.sql import functions as F

        self.F = F
        self.spark = session
        session.conf.set("spark.sql.caseSensitive", "true")
        self.network = tuple(network)
        self._nodes = session.createDataFrame([(x,) for x in self.network], "node string").localCheckpoint()
        if not hasattr(facts, "schema"):
            facts = session.createDataFrame([(n, r, list(a)) for n, r, a in facts], FACTS_SCHEMA)
        self._input = facts.localCheckpoint()
        at: dict[int, list] = defaultdict(list)
        for node, relation, args, step in events:
            at[step].append((node, relation, list(args)))
        self._events = {
            t: self._input.unionByName(session.createDataFrame(rows, FACTS_SCHEMA)).localCheckpoint() for t, rows in at.items()
        }

    def _column(self, name: str) -> str:
        return "node" if name == "node" else f"v_{name}"

    def input(self, t: int):
        """H(x) at step t: the persistent input facts and the events R(ā)@t."""
        return self._events.get(t, self._input)

    def nodes(self):
        return self._nodes

    def scan(self, facts, p: Pattern):
        F = self.F

        def arg(i):  # `get` is null past the end: filters may run before the relation test
            return F.get(F.col("args"), i)

        df = facts.where(F.col("relation") == p.relation)
        for i, c in p.constants:
            df = df.where(arg(i) == c)
        for i, j in p.same:
            df = df.where(arg(i) == arg(j))
        return df.select("node", *(arg(i).alias(self._column(name)) for name, i in p.columns))

    def join(self, a, b):
        shared = [c for c in a.columns if c in b.columns]
        return a.join(b, on=shared, how="inner")

    def _term(self, term):
        F = self.F
        return F.lit(value(term.value)) if isinstance(term, Constant) else F.col(self._column(term.name))

    def _less(self, a, b):
        """clingo's `<` (numbers < names < strings) as a column expression; see `order`."""
        F = self.F

        def kind(c):
            return F.when(c.startswith('"'), 2).when(c.rlike(r"^-?(0|[1-9][0-9]*)$"), 0).otherwise(1)

        def text(c):
            return F.when(c.startswith('"'), F.regexp_replace(c.substr(F.lit(2), F.length(c) - 2), r"\\(.)", "$1")).otherwise(c)

        ka, kb = kind(a), kind(b)
        return (ka < kb) | (
            (ka == kb)
            & (((ka == 0) & (a.cast("long") < b.cast("long"))) | ((ka != 0) & (text(a) < text(b))))
        )

    def compare(self, table, c: Comparison):
        a, b = self._term(c.left), self._term(c.right)
        condition = {
            "=": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: self._less(a, b),
            ">": lambda: self._less(b, a),
            "<=": lambda: self._less(a, b) | (a == b),
            ">=": lambda: self._less(b, a) | (a == b),
        }[c.op]()
        return table.where(condition)

    def antijoin(self, table, facts, p: Pattern):
        present = self.scan(facts, p)
        return table.join(present, on=list(present.columns), how="left_anti")

    def heads(self, table, head: Atom):
        F = self.F
        args = F.array(*(self._term(t) for t in head.args)).cast("array<string>")
        return table.select("node", F.lit(head.predicate).alias("relation"), args.alias("args"))

    def sends(self, table, head: Atom, addressee: Variable):
        F = self.F
        args = F.array(*(self._term(t) for t in head.args)).cast("array<string>")
        return table.select(
            F.lit(head.predicate).alias("relation"),
            args.alias("args"),
            F.col("node").alias("sender"),
            F.col(self._column(addressee.name)).alias("addressee"),
        )

    def _union(self, parts, schema):
        if not parts:
            return self.spark.createDataFrame([], schema)
        return reduce(lambda a, b: a.unionByName(b), parts)

    def union(self, parts):
        return self._union(list(parts), FACTS_SCHEMA)

    def union_sends(self, parts):
        return self._union(parts, SENT_SCHEMA)

    def minus(self, a, b):
        return a.subtract(b).localCheckpoint()

    def restrict(self, facts, relations):
        return facts.where(self.F.col("relation").isin(sorted(relations)))

    def contains(self, facts, previous, relations) -> bool:
        return self.restrict(previous, relations).subtract(facts).isEmpty()

    def empty(self, facts) -> bool:
        return facts.isEmpty()

    def materialize(self, facts):
        if getattr(facts, "_materialized", False):
            return facts
        done = facts.distinct().localCheckpoint()
        done._materialized = True
        return done

    def deliver(self, sent_parts, t: int):
        F = self.F
        parts = [
            m.where(F.col("arrives") == t).select(F.col("addressee").alias("node"), "relation", "args")
            for m in sent_parts
        ]
        return self.union(parts)

    def schedule(self, sent, t: int, steps: int, schedule: Schedule):
        """Messages sent at t, to nodes of N only, with their arrival step (null past the last step)."""
        F = self.F
        sent = sent.distinct().join(self._nodes.withColumnRenamed("node", "addressee"), "addressee", "left_semi")
        if schedule.kind == "sync":
            delay = F.lit(1)
        else:  # Schedule.delay, in SQL: the same SHA-256 of the same identity string
            identity = F.concat_ws(
                "\x1f",
                F.lit(str(schedule.seed)),
                F.col("relation"),
                F.concat_ws("\x1e", F.col("args")),
                F.col("sender"),
                F.lit(str(t)),
                F.col("addressee"),
            )
            digits = F.conv(F.substring(F.sha2(identity, 256), 1, 15), 16, 10).cast("long")
            delay = F.lit(1) + F.pmod(digits, F.lit(schedule.max_delay))
        arrives = (F.lit(t) + delay).cast("int")
        return sent.select(
            "relation",
            "args",
            "sender",
            F.lit(t).cast("int").alias("sent"),
            "addressee",
            F.when(arrives < steps, arrives).otherwise(F.lit(None)).cast("int").alias("arrives"),
        ).localCheckpoint()


# ---------------------------------------------------------------------------
# Inputs: .facts, JSON, or a directory of tables


@dataclass
class Input:
    """A distributed database instance H for the engine: the network and its fact rows (or a Spark DataFrame)."""

    network: tuple[str, ...]
    rows: list[FactRow] | None = None
    frame: Any = None  # a Spark DataFrame (node, relation, args), for a directory read by Spark
    source: str = ""
    events: list[EventRow] = field(default_factory=list)  # R(ā)@k: at step k only

    def facts(self):
        return self.frame if self.frame is not None else self.rows


def from_instance(instance: Instance, program: Program) -> Input:
    """H restricted to sch(P), as rows; its events R(ā)@k as rows with their step."""
    schema = program.schema()
    rows, events = _rows_and_events((x, f) for x, facts in instance.facts.items() for f in facts if f.predicate in schema)
    return Input(tuple(map(value, instance.network)), rows, source=instance.filename, events=events)


def _rows_and_events(facts: Iterable[tuple[clingo.Symbol, Fact]]) -> tuple[list[FactRow], list[EventRow]]:
    """(node, fact) pairs as fact rows and, for the events R(ā)@k, event rows with their step."""
    rows: list[FactRow] = []
    events: list[EventRow] = []
    for x, f in facts:
        row = (value(x), f.predicate, tuple(map(value, f.args)))
        if f.step is None:
            rows.append(row)
        else:
            events.append((*row, f.step))
    return rows, events


def _tables(directory: Path) -> dict[str, Path]:
    tables = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        stem = path.name.split(".")[0]
        if path.suffix in (".csv", ".parquet") or path.is_dir():
            tables[stem] = path
    return tables


def _table_error(path: Path, message: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic("input-table", message, filename=str(path))])


def read_directory(directory: Path, program: Program, spark=None, located=None) -> Input:
    """One CSV (no header) or Parquet table per relation, named after it; the first column is the node.

    The network is every node named in a node column. Cells become
    constants by `cell`. Tables of relations that P does not use are
    ignored; a table whose width is not 1 + the relation's arity is an error.

    For a located program (`located`, a `located.LocatedProgram` whose IR is
    `program`) a relation's node is its location column, as in a located
    `.facts` input, and the program's own facts and id(x) join the tables
    (`_with_program_facts`).
    """
    schema = program.schema()
    tables = _tables(directory)
    if not tables:
        raise _table_error(directory, "the input directory holds no .csv or .parquet table")
    identity = located.identity if located is not None else None
    if identity is not None and identity in tables:
        raise _table_error(tables[identity], located.identity_clash(f"has a table '{identity}'", "the table"))
    at = {relation: (located.columns if located is not None else {}).get(relation, 0) for relation in tables}
    data = _read_local(tables, schema, directory, at) if spark is None else _read_spark(tables, schema, directory, spark, at)
    return data if located is None else _with_program_facts(data, located, spark)


def _with_program_facts(data: Input, source, spark=None) -> Input:
    """A located program's own facts (and events) join table input `data`, and every node x gets the
    identity fact id(x) when a rule needs it (as `located.LocatedProgram.instance` does for .facts)."""
    identity = source.identity
    network = tuple(dict.fromkeys([*data.network, *map(value, source.facts)]))
    rows, events = _rows_and_events((x, f) for x, facts in source.facts.items() for f in facts)
    rows += [(x, identity, (x,)) for x in network] if identity is not None else []
    events = data.events + events
    if data.frame is None:
        return Input(network, data.rows + rows, source=data.source, events=events)
    extra = spark.createDataFrame([(x, r, list(a)) for x, r, a in rows], FACTS_SCHEMA)
    return Input(network, frame=data.frame.unionByName(extra), source=data.source, events=events)


def _check_width(path: Path, relation: str, width: int, schema: dict[str, int]) -> None:
    if width != schema[relation] + 1:
        raise _table_error(
            path,
            f"table '{relation}' has {width} column(s) but the program uses '{relation}' with "
            f"{schema[relation]} argument(s): it needs the node and then {schema[relation]} column(s)",
        )


def _read_local(tables: dict[str, Path], schema: dict[str, int], directory: Path, at: dict[str, int]) -> Input:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    rows: list[FactRow] = []
    network: dict[str, None] = {}
    for relation, path in tables.items():
        try:
            if path.suffix == ".csv":
                table = pcsv.read_csv(
                    path,
                    read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                    convert_options=pcsv.ConvertOptions(column_types={}, strings_can_be_null=False),
                )
            else:
                table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises many kinds; the user gets the message
            raise _table_error(path, f"cannot read table '{relation}': {exc}") from None
        columns = [[cell(str(v)) for v in c.to_pylist()] for c in table.columns]
        if not columns:
            continue
        if relation not in schema:
            for x in columns[0]:
                network.setdefault(x)
            continue
        _check_width(path, relation, len(columns), schema)
        node = at[relation]
        columns.insert(0, columns.pop(node))
        for x in columns[0]:
            network.setdefault(x)
        rows += [(x, relation, tuple(args)) for x, *args in zip(*columns)]
    return Input(tuple(network), rows, source=str(directory))


def _read_spark(tables: dict[str, Path], schema: dict[str, int], directory: Path, spark, at: dict[str, int]) -> Input:
    from pyspark.sql import functions as F

    def normal(c):
        plain = c.rlike(r"^(-?(0|[1-9][0-9]{0,8})|[a-z][A-Za-z0-9_]*)$") & (c != "not")  # as `cell`
        quoted = F.concat(F.lit('"'), F.regexp_replace(F.regexp_replace(c, r"\\", r"\\\\"), '"', '\\\\"'), F.lit('"'))
        return F.when(plain, c).otherwise(quoted)

    parts, nodes = [], []
    for relation, path in tables.items():
        reader = spark.read.option("header", "false")
        df = reader.csv(str(path)) if path.suffix == ".csv" else reader.parquet(str(path))
        if relation not in schema:
            nodes.append(df.select(normal(F.col(df.columns[0]).cast("string")).alias("node")))
            continue
        _check_width(path, relation, len(df.columns), schema)
        order = [df.columns[at[relation]]] + [c for i, c in enumerate(df.columns) if i != at[relation]]
        df = df.select(*(F.col(c).cast("string").alias(f"c{i}") for i, c in enumerate(order)))
        nodes.append(df.select(normal(F.col("c0")).alias("node")))
        parts.append(
            df.select(
                normal(F.col("c0")).alias("node"),
                F.lit(relation).alias("relation"),
                F.array(*(normal(F.col(f"c{i}")) for i in range(1, len(df.columns)))).cast("array<string>").alias("args"),
            )
        )
    network = tuple(r.node for r in reduce(lambda a, b: a.union(b), nodes).distinct().orderBy("node").collect())
    frame = reduce(lambda a, b: a.unionByName(b), parts) if parts else spark.createDataFrame([], FACTS_SCHEMA)
    return Input(network, frame=frame, source=str(directory))


# ---------------------------------------------------------------------------
# A run, end to end


TRACE_COLUMNS = ("node", "step", "relation", "args")
MESSAGE_COLUMNS = ("relation", "args", "sender", "sent", "addressee", "arrives")
OUTPUT_COLUMNS = ("node", "relation", "args")


@dataclass
class Run:
    """A computed run: its trace (node, step, relation, args), messages and outputs at the last step.

    In memory for the local back end (lists of rows), DataFrames for Spark.
    """

    engine: str
    trace: Any
    messages: Any
    outputs: Any
    steps: int
    schedule: Schedule
    seconds: float


def run(
    program: Program,
    data: Input,
    steps: int,
    schedule: Schedule = Schedule(),
    engine: str = "local",
    spark=None,
    incremental: bool = True,
) -> Run:
    """Compute one run of P on H with `steps` steps under `schedule`, on the `engine` back end."""
    plan = Plan.of(program, incremental)
    start = time.perf_counter()
    if engine == "local":
        if data.rows is None:
            raise ValueError("the local engine needs an input read as rows")
        backend = Local(data.network, data.rows, data.events)
    elif engine == "spark":
        backend = Spark(spark if spark is not None else spark_session(), data.network, data.facts(), data.events)
    else:
        raise ValueError(f"the engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    deduced, sent = execute(backend, plan, steps, schedule)
    outputs = set(plan.outputs)
    if engine == "local":
        trace = [(x, t, r, args) for t, d in enumerate(deduced) for r, rows in d.items() for x, args in rows]
        messages = [m for part in sent for m in part]
        last = [(x, r, args) for x, t, r, args in trace if t == steps - 1 and r in outputs]
        return Run(engine, trace, messages, last, steps, schedule, time.perf_counter() - start)
    F = backend.F
    trace = backend._union(
        [d.select("node", F.lit(t).cast("int").alias("step"), "relation", "args") for t, d in enumerate(deduced)],
        "node string, step int, relation string, args array<string>",
    )
    messages = backend._union(sent, MESSAGES_SCHEMA)
    last = deduced[-1].where(F.col("relation").isin(sorted(outputs))).select(*OUTPUT_COLUMNS)
    return Run(engine, trace, messages, last, steps, schedule, time.perf_counter() - start)


# ---------------------------------------------------------------------------
# Parquet


def arrow_schemas():
    import pyarrow as pa

    args = pa.list_(pa.string())
    return {
        "trace": pa.schema([("node", pa.string()), ("step", pa.int32()), ("relation", pa.string()), ("args", args)]),
        "messages": pa.schema(
            [
                ("relation", pa.string()),
                ("args", args),
                ("sender", pa.string()),
                ("sent", pa.int32()),
                ("addressee", pa.string()),
                ("arrives", pa.int32()),
            ]
        ),
        "outputs": pa.schema([("node", pa.string()), ("relation", pa.string()), ("args", args)]),
    }


def _columns(rows: Sequence[tuple], width: int) -> list[list]:
    """Rows as `width` columns (one list comprehension per column: much faster than `zip(*rows)` on many rows)."""
    return [[row[i] for row in rows] for i in range(width)]


def _arrow_table(schema, columns: Sequence[Sequence]):
    """Columns (in schema order; list values as tuples or lists) as an Arrow table of `schema`."""
    import pyarrow as pa

    return pa.table([pa.array(column, type=field.type) for column, field in zip(columns, schema)], schema=schema)


def _row_order(table, columns: Sequence[tuple]):
    """The indices that sort `table` like `sorted(rows, key=lambda r: tuple("" if v is None else str(v) for v in r))`.

    Scalar columns are compared as strings in Arrow (ints cast, null as ""; UTF-8 byte order is code point
    order); a list column by `str` of its Python value in `columns` (e.g. "('a', 'b')"). The sort is stable."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = []
    for i, field in enumerate(table.schema):
        if pa.types.is_list(field.type) or pa.types.is_large_list(field.type):
            key = pa.array(["" if v is None else str(v) for v in columns[i]], type=pa.string())
        else:
            key = pc.fill_null(pc.cast(table.column(i), pa.string()), "")
        keys.append((f"k{i}", key))
    keyed = pa.table(dict(keys))
    return pc.sort_indices(keyed, sort_keys=[(name, "ascending") for name, _ in keys])


def _write_table(path: Path, table) -> None:
    """`table` as one Parquet file `path`, written to a hidden temporary name and renamed (atomic)."""
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".tmp-{uuid.uuid4().hex}-{path.name}"
    pq.write_table(table, temporary)
    os.replace(temporary, path)


def write_rows(path: Path, schema, rows: Iterable[tuple]) -> None:
    """Rows as one Parquet file `path`, written to a hidden temporary name and renamed (atomic)."""
    rows = rows if isinstance(rows, (list, tuple)) else list(rows)
    _write_table(path, _arrow_table(schema, _columns(rows, len(schema.names))))


def _swap(staged: Path, target: Path) -> None:
    """Replace directory `target` by `staged` (each rename atomic; a reader sees the old or the new table)."""
    if target.exists():
        old = target.parent / f".old-{uuid.uuid4().hex}-{target.name}"
        os.replace(target, old)
        os.replace(staged, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staged, target)


def write_run(result: Run, out: Path, metadata: dict) -> dict:
    """Write `trace`, `messages`, `outputs` (Parquet directories) and `run.json` into `out`; returns run.json."""
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    schemas = arrow_schemas()
    tables = {"trace": result.trace, "messages": result.messages, "outputs": result.outputs}
    counts = {}
    for name, data in tables.items():
        staged = out / f".staged-{uuid.uuid4().hex}-{name}"
        if result.engine == "local":
            rows = data if isinstance(data, (list, tuple)) else list(data)
            columns = _columns(rows, len(schemas[name].names))
            table = _arrow_table(schemas[name], columns)
            _write_table(staged / "part-00000.parquet", table.take(_row_order(table, columns)))
            counts[name] = len(rows)
        else:
            data.write.mode("overwrite").parquet(str(staged))
            counts[name] = None
        _swap(staged, out / name)
    if result.engine == "spark":
        counts = {name: _rows(out / name) for name in tables}
    pending = _pending(out / "messages")
    info = {
        **metadata,
        "engine": result.engine,
        "steps": result.steps,
        "schedule": result.schedule.kind,
        "max_delay": result.schedule.max_delay if result.schedule.kind == "random" else 1,
        "seed": result.schedule.seed,
        "rows": counts,
        "pending": pending,
        "timings": {**metadata.get("timings", {}), "run": round(result.seconds, 4), "write": round(time.perf_counter() - start, 4)},
    }
    temporary = out / f".tmp-{uuid.uuid4().hex}-run.json"
    temporary.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, out / "run.json")
    return info


def _rows(directory: Path) -> int:
    import pyarrow.dataset as ds

    return ds.dataset(directory, format="parquet").count_rows()


def _pending(directory: Path) -> int:
    import pyarrow.dataset as ds

    return ds.dataset(directory, format="parquet").count_rows(filter=ds.field("arrives").is_null())


def read_table(directory: Path) -> list[dict]:
    """A Parquet table (a directory of parts, or one file) as a list of rows (dicts)."""
    import pyarrow.dataset as ds

    return ds.dataset(directory, format="parquet").to_table().to_pylist()


def program_hash(program: Program) -> str:
    return hashlib.sha256(program.text.encode()).hexdigest()
