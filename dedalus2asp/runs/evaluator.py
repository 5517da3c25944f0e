"""The rule evaluator: rule bodies, the subprograms of a step, and a run, over a back end.

A step of node x (tplp2016 §5.1.2, §5.1.3) computes, from its instance I,

    D = deduc_P(I)      the stratified semantics of the deductive rules (§3.2.2)
    induc_P(D)          one derivation step of the inductive rules: x's next state
    async_P(D)          one derivation step of the asynchronous rules: the messages x sends

and all three come down to one thing, done here and nowhere else: the
satisfying valuations of a rule body on an instance (§3.2), computed with
relational operators. A fact is a row (node, relation, args): the location
specifier is a column, and all body atoms of a rule hold at one node and step,
so every join is on it. The body of

    p(X, Z) :- q(X, Y), r(Y, Z), X != Z, not s(Z).

is the table (node, X, Y, Z) of `scan q(X, Y) ⋈ scan r(Y, Z)` (the atoms in
`join_order`), filtered by `X != Z` (`compare`, over clingo's order on terms),
minus the rows whose `s(Z)` holds at their node (`antijoin`); its heads are
`p(X, Z)` per row. A rule without positive atoms has one empty valuation per
node (the guard all(x) of tplp2016 §4.3.1, footnote 7). An atom reads a fact
through its `Pattern`: constants to match, repeated variables to equate, and
a lone `_` that binds nothing, also in a negated atom (`not r(X, _)`: no
r(X, v) holds, whatever v).

Issue #18's arithmetic and aggregates are compiled into the same operators, once
per rule (`body.Body.of`: an expression is a column computed per row, an aggregate
head a grouping of the body's rows). A body atom at a
step, `not bcast(X, P)@1`, reads what the node held at step 1 (`Moment`: the step
and the remembered facts of the relations read at fixed steps) and makes the rule
fire only at steps s ≥ 1 (a node cannot read its future). A global rule reads the
facts of every node at one step, each with its node as first argument (`gather`),
and derives facts of the global node (`ast.GLOBAL_NODE`); as nothing a node does
reads them, they are computed after a run, from its D per step (`observe`).

The program is compiled once into a `Plan`: the deductive rules as strata
(`analysis.strata`), each split into components (`components`), and the
inductive and asynchronous rules. `deduc` evaluates the strata lowest first,
each component to its minimal fixpoint semi-naively (tr2009 Alg. 1); `induc`
and `sends` are one join each; `execute` runs all nodes together for several
steps, the messages arriving as a `Schedule` says.

Every operator is a method of the back end (`backend.Backend`, a protocol):
`local.Local` holds facts in Python sets, `spark.Spark` in DataFrames.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import clingo

from ..bounds import CRASH
from ..lang.analysis import strata as stratify
from ..lang.analysis import strongly_connected
from ..lang.ast import Comparison, Constant, Literal, Program, Rule, RuleKind
from ..lang.diagnostics import DiagnosticError, diagnostic_in, rule_name
from .backend import Backend
from .body import FRESH, Body, Read
from .schedule import Schedule

# ---------------------------------------------------------------------------
# The plan: what every back end evaluates


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

    @property
    def reads(self) -> set[str]:
        """The relations of the positive body atoms."""
        return {a.predicate for r in self.rules for a in r.positive}


Strata = tuple[tuple[Component, ...], ...]
"""A stratification of the deductive rules, lowest stratum first, each stratum as its components."""


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


def strata_of(strata: Sequence[Sequence[Rule]]) -> Strata:
    """A stratification (`analysis.strata`) with each stratum split into its components."""
    return tuple(components(stratum) for stratum in strata)


@dataclass(frozen=True)
class Plan:
    """P compiled for the evaluator: deduc_P as strata of components, the rules of induc_P and async_P, out(P).

    `globals`: the global rules as strata of components (evaluated at the
    global node by `observe`), `observed`: the relations they read at the
    nodes; `remembered`: the relations read at each fixed step k (`p(ā)@k`),
    which a run keeps from step k on. `incremental`: in a run, start a
    positive recursive component's fixpoint from what is new since the
    previous step when that is sound (see `deduc`).
    """

    program: Program
    strata: Strata
    inductive: tuple[Rule, ...]
    asynchronous: tuple[Rule, ...]
    outputs: tuple[str, ...]
    incremental: bool = True
    globals: Strata = ()
    observed: frozenset[str] = frozenset()
    remembered: Mapping[int, frozenset[str]] = field(default_factory=dict)

    @staticmethod
    def of(program: Program, incremental: bool = True) -> "Plan":
        global_rules = program.rules_of(RuleKind.GLOBAL)
        held = set(program.global_relations())
        remembered: dict[int, set[str]] = {}
        for rule in program.rules:
            for item in rule.body:
                if isinstance(item, Literal) and item.step is not None and rule.kind is not RuleKind.GLOBAL:
                    remembered.setdefault(item.step, set()).add(item.atom.predicate)
        return Plan(
            program,
            strata_of(stratify(program)),
            program.rules_of(RuleKind.INDUCTIVE),
            program.rules_of(RuleKind.ASYNC),
            program.output_relations,
            incremental,
            _global_strata(global_rules),
            frozenset(a.predicate for r in global_rules for a in (*r.positive, *r.negative)) - held,
            {k: frozenset(v) for k, v in sorted(remembered.items())},
        )


def one_node_at_a_time(program: Program, what: str) -> None:
    """Raise `DiagnosticError` when P has lock-step rules (`ast.RuleKind.LOCKSTEP`, Molly's writes into another
    node within a step): `what` (the explorer, a run engine) takes one node's step at a time (tplp2016 §5.1), so
    no step of one node can write into another's; the solver under `--delivery sync` reads them as Molly does."""
    rules = program.lockstep_rules()
    if rules:
        raise DiagnosticError([diagnostic_in(
            program, "lockstep-operational",
            f"{rule_name(rule)} writes '{rule.head.predicate}' at the node its first column names from what holds "
            f"at other nodes at the same step (a lock-step rule, Molly's one database per time): {what} takes one "
            "node's step at a time (tplp2016 §5.1), in which no node writes into another's; ask the solver "
            "with --delivery sync (verify, models, count, cron), which computes every node's round together",
            rule.span) for rule in rules])


def _global_strata(rules: Sequence[Rule]) -> Strata:
    """The global rules stratified among themselves, as a deductive program is (they keep their kind)."""
    if not rules:
        return ()
    deductive = [replace(r, kind=RuleKind.DEDUCTIVE) for r in rules]
    original = {id(d): r for d, r in zip(deductive, rules)}
    return strata_of([[original[id(d)] for d in stratum] for stratum in stratify(Program(tuple(deductive)))])


@dataclass(frozen=True)
class Moment:
    """Where in time a rule body is evaluated: the step s of its node, and what the node held before.

    `memory[k]`, for each fixed step k < s that a body atom `p(ā)@k` reads,
    holds the node's facts of step k (at least those of the relations read
    at k: `Plan.remembered`). A body atom at step k reads `memory[k]` if k < s,
    the facts of step s if k = s, and nothing if k > s: a node cannot read its
    future, so the rule fires only from step k on.
    """

    step: int
    memory: Mapping[int, Any]


# ---------------------------------------------------------------------------
# Rule bodies


def join_order(rule: Rule, first: int | None = None) -> list[int]:
    """The positive atoms in join order: `first` (the delta atom) first, then greedily the most connected."""
    reads = Body.of(rule).positive
    names = [{name for name, _ in r.pattern.columns} for r in reads]
    left = list(range(len(reads)))
    chosen: list[int] = []
    bound: set[str] = set()
    if first is not None:
        left.remove(first)
        chosen.append(first)
        bound |= names[first]
    while left:
        best = max(left, key=lambda k: (len(bound & names[k]), -k))
        left.remove(best)
        chosen.append(best)
        bound |= names[best]
    return chosen


_EMPTY = object()
"""The facts of a fixed step of which a node kept nothing (`_source`)."""


def _source(read: Read, facts, at: Moment | None):
    """The facts a body atom reads: those of the rule's step, or of its fixed step (None: not yet, see `Moment`)."""
    if read.step is None:
        return facts
    if at is None:
        raise ValueError(f"a body atom at step {read.step} ({read.pattern.relation}) is evaluated without a step")
    if read.step == at.step:
        return facts
    if read.step > at.step:
        return None
    return at.memory.get(read.step, _EMPTY)  # nothing kept of step k: the node held none of those facts


def body(backend: Backend, rule: Rule, facts, delta=None, first: int | None = None, at: Moment | None = None):
    """The satisfying valuations of the body of `rule` on `facts` at every node, as a table (node, variables...).

    With `delta`, only those that map positive atom number `first` into
    `delta` (semi-naive evaluation). `at`: the step and memory, for a rule
    with a body atom at a fixed step (see `Moment`); such a rule has no
    valuation before that step. The table has a column per variable and per
    expression of the rule (see `Body`).
    """
    compiled = Body.of(rule)
    table = None
    if not compiled.positive:
        table = backend.observer() if rule.kind is RuleKind.GLOBAL else backend.nodes()
    for k in join_order(rule, first):
        read = compiled.positive[k]
        source = delta if k == first else _source(read, facts, at)
        if source is None or source is _EMPTY:  # an atom of a future step: no valuation
            source = backend.union([])
        scanned = backend.scan(source, read.pattern)
        table = scanned if table is None else backend.join(table, scanned)
    for name, term in compiled.columns:
        table = backend.extend(table, name, term)
    for comparison in compiled.comparisons:
        table = backend.compare(table, comparison)
    for read in compiled.negative:
        source = _source(read, facts, at)
        if source is None:  # a negated atom of a future step: the rule does not fire yet
            return backend.compare(table, _NEVER)
        if source is not _EMPTY:
            table = backend.antijoin(table, source, read.pattern)
    return table


_NEVER = Comparison("!=", Constant(clingo.Number(0)), Constant(clingo.Number(0)))
"""A comparison no row satisfies."""


def valuations(backend: Backend, rule: Rule, facts, at: Moment | None = None) -> list[dict[str, Any]]:
    """The satisfying valuations of the body of `rule` on `facts` (tplp2016 §3.2): variable name -> value.

    The made-up columns of `Body` (named `FRESH`...) are left out.
    """
    return [{k: v for k, v in b.items() if not k.startswith(FRESH)} for b in backend.bindings(body(backend, rule, facts, at=at))]


def derived(backend: Backend, rule: Rule, table):
    """The table of the head of `rule` from its body's `table`: grouped by `aggregate` if the head has aggregates."""
    compiled = Body.of(rule)
    if compiled.aggregations:
        return backend.aggregate(table, compiled.keys, compiled.aggregations)
    return table


def _heads(backend: Backend, rules: Sequence[Rule], facts, delta=None, within: set[str] | None = None, at: Moment | None = None):
    """The head facts of `rules` on `facts`; with `delta`, semi-naively (via each positive atom of a relation in `within`)."""
    parts = []
    for rule in rules:
        head = Body.of(rule).head
        if delta is None:
            parts.append(backend.heads(derived(backend, rule, body(backend, rule, facts, at=at)), head))
        else:
            for k, read in enumerate(Body.of(rule).positive):
                if (within is None or read.pattern.relation in within) and _source(read, facts, at) is facts:
                    parts.append(backend.heads(derived(backend, rule, body(backend, rule, facts, delta, k, at)), head))
    return backend.union(parts)


# ---------------------------------------------------------------------------
# The subprograms of a step (tplp2016 §5.1.2)


def deduc(backend: Backend, strata: Strata, facts, previous=None, at: Moment | None = None):
    """D = deduc_P(I) at every node: the stratified semantics of the deductive rules (tplp2016 §3.2.2).

    Stratum by stratum, lowest first, and within a stratum component by
    component: a non-recursive component's rules fire once (together with
    the following ones that do not read its heads); a recursive one reaches
    its minimal fixpoint semi-naively (`_fixpoint`). The output contains I.
    An aggregate's rule fires once its body's relations are complete: it is
    in a higher stratum than they are, or a later component.

    `previous`, the D of the previous step of a run, gives the incremental
    start: persisted facts are not derived again (tr2009 Alg. 1, and the
    semi-naive maintenance under insertions of psn2010). When a component is
    positive (no negation, aggregate or body atom at a step) and everything
    `previous` holds of its relations is still there, `previous` is already
    closed under its rules, so the fixpoint starts from the facts that are
    new since then instead of from all of I. `at`: see `Moment`.
    """
    known = facts
    for stratum in strata:
        batch: list[Rule] = []  # non-recursive rules that read none of each other's heads: fired together
        for component in (*stratum, None):
            if batch and (component is None or component.recursive or component.reads & {r.head.predicate for r in batch}):
                known = backend.materialize(backend.union([known, _heads(backend, batch, known, at=at)]))
                batch = []
            if component is None:
                continue
            if component.recursive:
                known = backend.materialize(_fixpoint(backend, component, known, previous, at))
            else:
                batch += component.rules
    return backend.materialize(known)


def _monotone(rule: Rule) -> bool:
    """No negation, aggregate or body atom at a fixed step: what the incremental start needs."""
    compiled = Body.of(rule)
    return not compiled.negative and not compiled.aggregations and not compiled.steps


def _fixpoint(backend: Backend, component: Component, known, previous, at: Moment | None = None):
    """`known` closed under the rules of a recursive `component`, semi-naively.

    Round 0 evaluates every rule, later rounds only the valuations that use
    a fact new in the previous round (via an atom of a head relation). With
    the incremental start (see `deduc`), round 0 is skipped: the new facts
    are those of `known` not in `previous`, and every positive atom may use
    them.
    """
    heads = component.heads
    relations = heads | component.reads
    positive = all(_monotone(r) for r in component.rules)
    start = backend.since(known, previous, relations) if previous is not None and positive else None
    if start is not None:
        new, within = start, None
    else:
        new = backend.minus(_heads(backend, component.rules, known, at=at), known)
        within = heads
    rounds = 0
    while not backend.empty(new):
        if within is heads:
            known = backend.union([known, new])
        new = backend.minus(_heads(backend, component.rules, known, new, within, at), known)
        within = heads
        rounds += 1
        if rounds > MAX_ROUNDS and any(Body.of(r).columns or Body.of(r).aggregations for r in component.rules):
            rule = next(r for r in component.rules if Body.of(r).columns or Body.of(r).aggregations)
            raise Unending(rule)
    return known


class Unending(ValueError):
    """A recursive component that computes values did not reach its fixpoint in `MAX_ROUNDS` rounds: a
    user error (exit 2), named by its rule and place."""

    def __init__(self, rule: Rule) -> None:
        where = f"line {rule.span.line}, column {rule.span.col}" if rule.span.line else "its place unknown"
        if rule.span.source is not None:
            where = f"{rule.span.source[0]}, {where}"
        super().__init__(
            f"rule {rule.number} ({where}: {rule}) computes new values in a recursive cycle: its fixpoint did not end "
            f"in {MAX_ROUNDS} rounds (bound the values it computes, e.g. with a comparison, or make the rule @next)"
        )
        self.rule = rule


MAX_ROUNDS = 10_000
"""The rounds after which a recursive component whose rules compute values (arithmetic, aggregates) is taken
not to reach a fixpoint: `p(X + 1) :- p(X).` derives a new value in every round."""


def induc(backend: Backend, rules: Sequence[Rule], facts, at: Moment | None = None):
    """induc_P(D): one derivation step of `rules`, heads without '•' (tplp2016 §5.1.2).

    All satisfying valuations on `facts` fire once; there is no fixpoint.
    With the inductive rules, what they derive is the next state.
    """
    return _heads(backend, rules, facts, at=at)


def sends(backend: Backend, rules: Sequence[Rule], facts, at: Moment | None = None):
    """async_P(D): one derivation step of the asynchronous `rules`, as messages (tplp2016 §5.1.2).

    The addressee is the value of the rule's addressee variable; whether it is
    in the network is for the transition (or the schedule) to decide. An
    aggregate groups by the addressee too.
    """
    return backend.union_sends(
        [backend.sends(derived(backend, rule, body(backend, rule, facts, at=at)), Body.of(rule).head, rule.addressee) for rule in rules]
    )


# ---------------------------------------------------------------------------
# Global rules


def observe(backend: Backend, plan: Plan, deduced: Sequence) -> list:
    """The facts of the global node at each step: the global rules on the D of every node at that step.

    At step s the global rules read `gather`(D of every node at s): each fact
    R(ā) of node x as R(x, ā); they are evaluated there as a deductive program
    (stratified among themselves, reading the global facts of lower strata),
    and a body atom `p(x, ā)@k` reads the gathered facts of step k ≤ s. A
    node never reads a global relation (`check` rejects a rule that does), so
    these facts change nothing of the run: they are computed from its D per
    step, after it. Returns the global facts per step (empty without global rules).
    """
    if not plan.globals:
        return [backend.union([]) for _ in deduced]
    steps = {r.step for stratum in plan.globals for c in stratum for rule in c.rules for r in Body.of(rule).positive + Body.of(rule).negative}
    relations = set(plan.observed)
    held = {rule.head.predicate for stratum in plan.globals for c in stratum for rule in c.rules}
    out, memory = [], {}
    for s, d in enumerate(deduced):
        gathered = backend.materialize(backend.gather(d, relations))
        facts = deduc(backend, plan.globals, gathered, at=Moment(s, memory))
        if s in steps:
            memory[s] = facts
        out.append(backend.materialize(backend.restrict(facts, held)))
    return out


# ---------------------------------------------------------------------------
# A run


def execute(backend: Backend, plan: Plan, steps: int, schedule: Schedule, on_step: Callable[[int, Any], None] | None = None):
    """The run of `steps` steps (0..steps-1) from start(P, H), all nodes stepping together.

    At step t every node x computes (tplp2016 §5.1.3, with the delivered set
    fixed by the schedule)

        I = st(x) ∪ untag(messages to x arriving at t)      D = deduc_P(I)
        st(x) := H(x) ∪ induc_P(D)                          messages sent at t := async_P(D)

    and keeps the facts of D that a body atom `p(ā)@t` reads (`Plan.remembered`, see `Moment`).
    Under fail-stop crashes (`Schedule.down`) a node crashed by step t has neither I nor D at t but the
    run's crash facts: it receives, derives, carries and sends nothing, as `not _silenced(x, t)` guards
    its input facts, arrivals and rules in the fault-injected program (docs/faults.md).
    Returns (D per step, as back-end facts, with the global node's facts of
    that step (`observe`) when P has global rules; the messages sent per
    step, as back-end message tables). `on_step(t, D)`, if given, is called
    when step t is done (the progress of `run`).
    """
    if steps < 1:
        raise ValueError(f"a run needs at least one step, not {steps}")
    carried = None  # induc_P(D) of the previous step
    sent, deduced = [], []
    previous = None
    memory: dict[int, Any] = {}
    for t in range(steps):
        at = Moment(t, dict(memory))
        arrived = backend.deliver(sent, t)
        facts = backend.materialize(backend.union([backend.input(t), arrived] + ([carried] if carried is not None else [])))
        down = schedule.down(t)  # fail-stop: a crashed node holds, receives and derives nothing but crash facts
        if down:
            facts = backend.materialize(backend.silence(facts, down, {CRASH}))
        d = deduc(backend, plan.strata, facts, previous if plan.incremental else None, at)
        if down:
            d = backend.materialize(backend.silence(d, down, {CRASH}))
        deduced.append(d)
        if t in plan.remembered:
            memory[t] = backend.materialize(backend.restrict(d, set(plan.remembered[t])))
        carried = induc(backend, plan.inductive, d, at)
        sent.append(backend.schedule(sends(backend, plan.asynchronous, d, at), t, steps, schedule))
        previous = d
        if on_step is not None:
            on_step(t, d)
    if plan.globals:
        deduced = [backend.materialize(backend.union([d, g])) for d, g in zip(deduced, observe(backend, plan, deduced))]
    return deduced, sent
