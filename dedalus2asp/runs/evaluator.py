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

The program is compiled once into a `Plan`: the deductive rules as strata
(`analysis.strata`), each split into components (`components`), and the
inductive and asynchronous rules. `deduc` evaluates the strata lowest first,
each component to its minimal fixpoint semi-naively (tr2009 Alg. 1); `induc`
and `sends` are one join each; `execute` runs all nodes together for several
steps, the messages arriving as a `Schedule` says.

Every operator is a method of the back end (`Backend`, a protocol): `local.Local`
holds facts in Python sets, `spark.Spark` in DataFrames. How a back end holds a
value is its own business (`values`): the evaluator never looks at one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Protocol, Sequence, TypeVar

from ..lang.analysis import strata as stratify
from ..lang.analysis import strongly_connected
from ..lang.ast import Atom, Comparison, Constant, Program, Rule, RuleKind, Variable
from .schedule import Schedule

# ---------------------------------------------------------------------------
# The plan: what every back end evaluates


@dataclass(frozen=True)
class Pattern:
    """How the atom R(u1..uk) reads a fact R(a1..ak): constants to match, equal positions, variables to bind.

    `constants` pairs a position with the constant's clingo symbol (the back
    end turns it into a value); `same` pairs a later occurrence of a variable
    with its first; `columns` gives each variable its first position. A lone
    `_` binds nothing.
    """

    relation: str
    constants: tuple[tuple[int, Any], ...]
    same: tuple[tuple[int, int], ...]
    columns: tuple[tuple[str, int], ...]

    @staticmethod
    def of(atom: Atom) -> "Pattern":
        constants, same, first = [], [], {}
        for i, term in enumerate(atom.args):
            if isinstance(term, Constant):
                constants.append((i, term.value))
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

    `incremental`: in a run, start a positive recursive component's fixpoint
    from what is new since the previous step when that is sound (see `deduc`).
    """

    program: Program
    strata: Strata
    inductive: tuple[Rule, ...]
    asynchronous: tuple[Rule, ...]
    outputs: tuple[str, ...]
    incremental: bool = True

    @staticmethod
    def of(program: Program, incremental: bool = True) -> "Plan":
        return Plan(
            program,
            strata_of(stratify(program)),
            program.rules_of(RuleKind.INDUCTIVE),
            program.rules_of(RuleKind.ASYNC),
            program.output_relations,
            incremental,
        )


# ---------------------------------------------------------------------------
# The back end

Facts = TypeVar("Facts")  # facts at every node: (node, relation, args)
Table = TypeVar("Table")  # valuations at every node: (node, variables...)
Sent = TypeVar("Sent")  # messages sent at one step: (relation, args, sender, addressee)
Messages = TypeVar("Messages")  # messages with their send and arrival steps


class Backend(Protocol[Facts, Table, Sent, Messages]):
    """The relational operators the evaluator runs on; a back end chooses the types and the values.

    Tables have the node as their first column and one column per variable
    (named after it); joins are natural joins on the shared columns.
    """

    def nodes(self) -> Table:
        """One empty valuation per node: the body table of a rule without positive atoms."""
        ...

    def scan(self, facts: Facts, pattern: Pattern) -> Table:
        """The valuations of one atom: the facts of its relation that match `pattern`, as (node, its variables)."""
        ...

    def join(self, left: Table, right: Table) -> Table:
        """The natural join on the shared columns (the node and the shared variables)."""
        ...

    def compare(self, table: Table, comparison: Comparison) -> Table:
        """The rows that satisfy `comparison`, with `<` as clingo's order on terms."""
        ...

    def antijoin(self, table: Table, facts: Facts, pattern: Pattern) -> Table:
        """The rows with no fact matching `pattern` (with the row's node and values) in `facts`."""
        ...

    def bindings(self, table: Table) -> Iterator[dict[str, Any]]:
        """Each row as a valuation: variable name -> value (the node left out)."""
        ...

    def heads(self, table: Table, head: Atom) -> Facts:
        """The fact `head` per row, at the row's node."""
        ...

    def sends(self, table: Table, head: Atom, addressee: Variable) -> Sent:
        """The message `head` per row, from the row's node to the value of `addressee`."""
        ...

    def union(self, parts: Sequence[Facts]) -> Facts: ...

    def union_sends(self, parts: Sequence[Sent]) -> Sent: ...

    def minus(self, facts: Facts, other: Facts) -> Facts: ...

    def restrict(self, facts: Facts, relations: set[str]) -> Facts:
        """The facts of `relations` only."""
        ...

    def contains(self, facts: Facts, other: Facts, relations: set[str]) -> bool:
        """Whether every fact of `other` of `relations` is in `facts`."""
        ...

    def empty(self, facts: Facts) -> bool: ...

    def materialize(self, facts: Facts) -> Facts:
        """`facts` computed and kept (a back end that evaluates lazily cuts its lineage here)."""
        ...

    def input(self, step: int) -> Facts:
        """H(x) at every node x at `step`: its input facts and its input events R(ā)@step (tr2009 Example 3)."""
        ...

    def deliver(self, messages: Sequence[Messages], step: int) -> Facts:
        """untag(m): the facts of the messages arriving at `step`, at their addressees."""
        ...

    def schedule(self, sent: Sent, step: int, steps: int, schedule: Schedule) -> Messages:
        """The messages `sent` at `step` to nodes of the network (others are dropped, tplp2016 §5.1.3), with
        their arrival steps by `schedule`; one arriving at or after `steps` is pending."""
        ...


# ---------------------------------------------------------------------------
# Rule bodies


def join_order(rule: Rule, first: int | None = None) -> list[int]:
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


def body(backend: Backend, rule: Rule, facts, delta=None, first: int | None = None):
    """The satisfying valuations of the body of `rule` on `facts` at every node, as a table (node, variables...).

    With `delta`, only those that map positive atom number `first` into
    `delta` (semi-naive evaluation).
    """
    table = backend.nodes() if not rule.positive else None
    for k in join_order(rule, first):
        scanned = backend.scan(delta if k == first else facts, Pattern.of(rule.positive[k]))
        table = scanned if table is None else backend.join(table, scanned)
    for comparison in rule.comparisons:
        table = backend.compare(table, comparison)
    for atom in rule.negative:
        table = backend.antijoin(table, facts, Pattern.of(atom))
    return table


def valuations(backend: Backend, rule: Rule, facts) -> list[dict[str, Any]]:
    """The satisfying valuations of the body of `rule` on `facts` (tplp2016 §3.2): variable name -> value."""
    return list(backend.bindings(body(backend, rule, facts)))


def _heads(backend: Backend, rules: Sequence[Rule], facts, delta=None, within: set[str] | None = None):
    """The head facts of `rules` on `facts`; with `delta`, semi-naively (via each positive atom of a relation in `within`)."""
    parts = []
    for rule in rules:
        if delta is None:
            parts.append(backend.heads(body(backend, rule, facts), rule.head))
        else:
            for k, atom in enumerate(rule.positive):
                if within is None or atom.predicate in within:
                    parts.append(backend.heads(body(backend, rule, facts, delta, k), rule.head))
    return backend.union(parts)


# ---------------------------------------------------------------------------
# The subprograms of a step (tplp2016 §5.1.2)


def deduc(backend: Backend, strata: Strata, facts, previous=None):
    """D = deduc_P(I) at every node: the stratified semantics of the deductive rules (tplp2016 §3.2.2).

    Stratum by stratum, lowest first, and within a stratum component by
    component: a non-recursive component's rules fire once (together with
    the following ones that do not read its heads); a recursive one reaches
    its minimal fixpoint semi-naively (`_fixpoint`). The output contains I.

    `previous`, the D of the previous step of a run, gives the incremental
    start: persisted facts are not derived again (tr2009 Alg. 1, and the
    semi-naive maintenance under insertions of psn2010). When a component is
    positive and everything `previous` holds of its relations is still there,
    `previous` is already closed under its rules, so the fixpoint starts from
    the facts that are new since then instead of from all of I.
    """
    known = facts
    for stratum in strata:
        batch: list[Rule] = []  # non-recursive rules that read none of each other's heads: fired together
        for component in (*stratum, None):
            if batch and (component is None or component.recursive or component.reads & {r.head.predicate for r in batch}):
                known = backend.materialize(backend.union([known, _heads(backend, batch, known)]))
                batch = []
            if component is None:
                continue
            if component.recursive:
                known = backend.materialize(_fixpoint(backend, component, known, previous))
            else:
                batch += component.rules
    return backend.materialize(known)


def _fixpoint(backend: Backend, component: Component, known, previous):
    """`known` closed under the rules of a recursive `component`, semi-naively.

    Round 0 evaluates every rule, later rounds only the valuations that use
    a fact new in the previous round (via an atom of a head relation). With
    the incremental start (see `deduc`), round 0 is skipped: the new facts
    are those of `known` not in `previous`, and every positive atom may use
    them.
    """
    heads = component.heads
    relations = heads | component.reads
    positive = not any(r.negative for r in component.rules)
    if previous is not None and positive and backend.contains(known, previous, relations):
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
    return known


def induc(backend: Backend, rules: Sequence[Rule], facts):
    """induc_P(D): one derivation step of `rules`, heads without '•' (tplp2016 §5.1.2).

    All satisfying valuations on `facts` fire once; there is no fixpoint.
    With the inductive rules, what they derive is the next state.
    """
    return _heads(backend, rules, facts)


def sends(backend: Backend, rules: Sequence[Rule], facts):
    """async_P(D): one derivation step of the asynchronous `rules`, as messages (tplp2016 §5.1.2).

    The addressee is the value of the rule's addressee variable; whether it is
    in the network is for the transition (or the schedule) to decide.
    """
    return backend.union_sends([backend.sends(body(backend, rule, facts), rule.head, rule.addressee) for rule in rules])


# ---------------------------------------------------------------------------
# A run


def execute(backend: Backend, plan: Plan, steps: int, schedule: Schedule):
    """The run of `steps` steps (0..steps-1) from start(P, H), all nodes stepping together.

    At step t every node x computes (tplp2016 §5.1.3, with the delivered set
    fixed by the schedule)

        I = st(x) ∪ untag(messages to x arriving at t)      D = deduc_P(I)
        st(x) := H(x) ∪ induc_P(D)                          messages sent at t := async_P(D)

    Returns (D per step, as back-end facts; the messages sent per step, as
    back-end message tables).
    """
    if steps < 1:
        raise ValueError(f"a run needs at least one step, not {steps}")
    carried = None  # induc_P(D) of the previous step
    sent, deduced = [], []
    previous = None
    for t in range(steps):
        arrived = backend.deliver(sent, t)
        facts = backend.union([backend.input(t), arrived] + ([carried] if carried is not None else []))
        d = deduc(backend, plan.strata, facts, previous if plan.incremental else None)
        deduced.append(d)
        carried = induc(backend, plan.inductive, d)
        sent.append(backend.schedule(sends(backend, plan.asynchronous, d), t, steps, schedule))
        previous = d
    return deduced, sent
