"""The operational semantics of Dedalus (tplp2016 §5.1), as an independent oracle.

Every node x of the network N runs the program P. A *configuration* (§5.1.1)
gives each node a state st(x), an instance over sch(P), and a buffer bf(x) of
messages sent to x and not yet delivered. In a *transition* (§5.1.3) one
active node x receives a subset m of its buffer and computes

    I = st(x) ∪ untag(m)        D = deduc_P(I)
    st(x) := H(x) ∪ induc_P(D)  bf(y) := bf(y) ∪ {messages R(ā) | R(y, ā) ∈ async_P(D), y ∈ N}

where deduc_P is the stratified semantics of the deductive rules, and induc_P
and async_P are one derivation step of the inductive and asynchronous rules
(§5.1.2). A message sent to a node outside N is dropped. The *timestamp* of a
transition is the number of earlier transitions of its node (§5.1.5), and the
*trace* of a run is the union of the sets D of its transitions, each with the
node and timestamp prepended: everything the node holds at that step, input
facts included.

The paper tags a message with the ordinal of the transition that sent it; we
identify it by its sender, the sender's step, the addressee and the fact
(`Message`), which is the same thing: a transition is a (node, step). A
message is delivered only in a transition after the one that sent it (causality,
§5.1.4), because it enters a buffer only when sent.

`explore` enumerates every run prefix in which each node performs exactly
T+1 transitions (steps 0..T), with any interleaving and any delivered subsets;
the messages still buffered at the end are the *pending* ones. These prefixes
give the traces that SPEC §2 ("Bounded Theorem 4") compares with the bounded
stable models. With a delay bound D (SPEC §2), a message sent at step s
arrives at a step t ≤ s + D of its addressee, and is pending only if s + D > T.
"""

from __future__ import annotations

import gc
import operator
from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import clingo

from .analysis import check, restrict, strata
from .ast import Atom, Constant, Instance, Literal, Program, Rule, RuleKind, Term, Trace

GroundFact = tuple[str, tuple[clingo.Symbol, ...]]
"""A fact R(a1..ak) as (R, (a1..ak))."""


class Message(NamedTuple):
    """A message in a buffer: `fact`, sent by `sender` at its step `step` to `addressee`.

    (sender, step) names the sending transition, so this plays the role of the
    paper's send-tag (tplp2016 §5.1.1).
    """

    sender: clingo.Symbol
    step: int
    addressee: clingo.Symbol
    fact: GroundFact


Delivery = tuple[clingo.Symbol, int, GroundFact]
"""A delivered message as the addressee sees it: (sender, send step, fact)."""

Transition = tuple[clingo.Symbol, frozenset[Delivery]]
"""A transition of a run: the active node and the messages delivered to it."""


# ---------------------------------------------------------------------------
# The subprograms deduc_P, induc_P and async_P (tplp2016 §5.1.2)

Index = dict[str, set[tuple[clingo.Symbol, ...]]]

_COMPARE = {
    "!=": operator.ne,
    "=": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _index(facts: Iterable[GroundFact]) -> Index:
    index: Index = defaultdict(set)
    for predicate, args in facts:
        index[predicate].add(args)
    return index


def _bind(terms: Sequence[Term], values: tuple, binding: dict) -> dict | None:
    """`binding` extended so that `terms` match `values`, or None (a lone `_` matches anything)."""
    extended = binding
    for term, value in zip(terms, values):
        if isinstance(term, Constant):
            if term.value != value:
                return None
        elif not term.anonymous:
            bound = extended.get(term.name)
            if bound is None:
                if extended is binding:
                    extended = dict(binding)
                extended[term.name] = value
            elif bound != value:
                return None
    return extended


def _ground(terms: Sequence[Term], binding: dict) -> tuple[clingo.Symbol, ...]:
    return tuple(t.value if isinstance(t, Constant) else binding[t.name] for t in terms)


def _valuations(rule: Rule, index: Index, delta: Index | None = None, first: int = 0) -> list[dict]:
    """The satisfying valuations of `rule` on `index` (tplp2016 §3.2).

    With `delta`, only those that map positive atom number `first` into
    `delta` (semi-naive evaluation). A rule without positive atoms has the one
    empty valuation, so it fires once if its negative literals hold (the
    nullary guard of tplp2016 §4.3.1, footnote 7).
    """
    atoms = rule.positive
    if delta is not None:
        atoms = (atoms[first],) + atoms[:first] + atoms[first + 1 :]
    bindings: list[dict] = [{}]
    for k, atom in enumerate(atoms):
        relation = (delta if delta is not None and k == 0 else index).get(atom.predicate, ())
        bindings = [
            extended
            for binding in bindings
            for values in relation
            if (extended := _bind(atom.args, values, binding)) is not None
        ]
        if not bindings:
            return []
    return [
        b
        for b in bindings
        if all(_COMPARE[c.op](*_ground((c.left, c.right), b)) for c in rule.comparisons)
        and not any(_ground(a.args, b) in index.get(a.predicate, ()) for a in rule.negative)
    ]


def _fixpoint(rules: Sequence[Rule], index: Index) -> None:
    """Extend `index` to the minimal fixpoint of the semi-positive program `rules` (tplp2016 §3.2.1), semi-naively."""
    delta: Index = defaultdict(set)
    for rule in rules:
        for b in _valuations(rule, index):
            values = _ground(rule.head.args, b)
            if values not in index.get(rule.head.predicate, ()):
                delta[rule.head.predicate].add(values)
    while delta:
        for predicate, new in delta.items():
            index[predicate] |= new
        derived: Index = defaultdict(set)
        for rule in rules:
            for i, atom in enumerate(rule.positive):
                if atom.predicate in delta:
                    for b in _valuations(rule, index, delta, i):
                        values = _ground(rule.head.args, b)
                        if values not in index.get(rule.head.predicate, ()):
                            derived[rule.head.predicate].add(values)
        delta = derived


def _facts(index: Index) -> frozenset[GroundFact]:
    return frozenset((predicate, values) for predicate, rows in index.items() for values in rows)


def deduc(strata: Sequence[Sequence[Rule]], facts: Iterable[GroundFact]) -> frozenset[GroundFact]:
    """deduc_P(I): the stratified semantics (tplp2016 §3.2.2) of the deductive rules on I.

    `strata` is a syntactic stratification, lowest stratum first (as
    `analysis.strata` gives it); each stratum is a semi-positive program whose
    minimal fixpoint is computed in turn. The output contains I.
    """
    index = _index(facts)
    for rules in strata:
        _fixpoint(rules, index)
    return _facts(index)


def _heads(rules: Sequence[Rule], index: Index) -> Iterator[tuple[dict, GroundFact]]:
    """Each satisfying valuation of each rule on `index`, with the head fact it derives."""
    for rule in rules:
        for b in _valuations(rule, index):
            yield b, (rule.head.predicate, _ground(rule.head.args, b))


def induc(rules: Sequence[Rule], facts: Iterable[GroundFact]) -> frozenset[GroundFact]:
    """induc_P(I): one derivation step of the inductive rules, heads without '•' (tplp2016 §5.1.2).

    All satisfying valuations on I fire once; there is no fixpoint: what they
    derive is for the next step.
    """
    return frozenset(fact for _, fact in _heads(rules, _index(facts)))


def async_(rules: Sequence[Rule], facts: Iterable[GroundFact]) -> frozenset[tuple[clingo.Symbol, GroundFact]]:
    """async_P(I) as (addressee, fact) pairs: one derivation step of the asynchronous rules (tplp2016 §5.1.2).

    The addressee is the value of the rule's addressee variable; whether it is
    in the network is for the transition to decide.
    """
    return frozenset(_messages(rules, _index(facts)))


def _messages(rules: Sequence[Rule], index: Index) -> Iterator[tuple[clingo.Symbol, GroundFact]]:
    for rule in rules:
        for b, fact in _heads((rule,), index):
            yield b[rule.addressee.name], fact


# ---------------------------------------------------------------------------
# Configurations and transitions (tplp2016 §5.1.1, §5.1.3)
#
# Inside the search, a value is its number in clingo's order on the values of
# H and the constants of P (a Datalog program makes up no other values), and a
# node is its position in N: comparisons keep their meaning and hashing is
# cheap. `_Network` translates back to symbols for the results.

_Packet = tuple[int, int, int, GroundFact]
"""A message inside the search: (sender position, send step, addressee position, fact with numbered values)."""


class _Step(NamedTuple):
    """What a node x computes in one transition from I = st(x) ∪ untag(m)."""

    deduced: frozenset[GroundFact]  # D = deduc_P(I)
    state: frozenset[GroundFact]  # H(x) ∪ induc_P(D), its next state
    sent: tuple[tuple[int, frozenset[GroundFact]], ...]  # async_P(D) per addressee position inside N


class _Local(NamedTuple):
    """One node's part of a configuration: the D of its past steps, st(x), bf(x).

    The number of its next step is `len(history)`; `history` is its part of
    the trace so far.
    """

    history: tuple[frozenset[GroundFact], ...]
    state: frozenset[GroundFact]
    buffer: frozenset[_Packet]


def _constants(rule: Rule) -> set[clingo.Symbol]:
    """The values that `rule` names."""
    terms = [t for a in (rule.head, *rule.positive, *rule.negative) for t in a.args]
    terms += [t for c in rule.comparisons for t in (c.left, c.right)]
    return {t.value for t in terms if isinstance(t, Constant)}


def _renumber(rule: Rule, code: Mapping[clingo.Symbol, int]) -> Rule:
    """`rule` with each constant replaced by its number."""

    def term(t: Term) -> Term:
        return replace(t, value=code[t.value]) if isinstance(t, Constant) else t

    def atom(a: Atom) -> Atom:
        return replace(a, args=tuple(map(term, a.args)))

    body = tuple(
        replace(b, atom=atom(b.atom)) if isinstance(b, Literal) else replace(b, left=term(b.left), right=term(b.right))
        for b in rule.body
    )
    return replace(rule, head=atom(rule.head), body=body)


class _Network:
    """P on H: the subprograms, the network, H(x) per node, and a memo of local steps."""

    def __init__(self, program: Program, instance: Instance):
        check(program, instance)
        instance = restrict(instance, program)
        self.names: tuple[clingo.Symbol, ...] = instance.network
        constants = {v for rule in program.rules for v in _constants(rule)}
        values = {v for facts in instance.facts.values() for f in facts for v in f.args}
        self.symbols = tuple(sorted(values | constants | set(self.names)))
        self.code = {v: i for i, v in enumerate(self.symbols)}
        self.position = {self.code[x]: i for i, x in enumerate(self.names)}  # numbered value -> position in N
        self.strata = tuple(tuple(_renumber(r, self.code) for r in stratum) for stratum in strata(program))
        self.inductive = tuple(_renumber(r, self.code) for r in program.rules_of(RuleKind.INDUCTIVE))
        self.asynchronous = tuple(_renumber(r, self.code) for r in program.rules_of(RuleKind.ASYNC))
        self.inputs = tuple(frozenset(self.number(f.predicate, f.args) for f in instance.facts[x]) for x in self.names)
        self._steps: dict[tuple[int, frozenset[GroundFact]], _Step] = {}
        self._slices: dict[tuple, Trace] = {}
        self._buffers: dict[frozenset[_Packet], frozenset[Message]] = {}

    def number(self, predicate: str, args: Iterable[clingo.Symbol]) -> GroundFact:
        return predicate, tuple(self.code[v] for v in args)

    def fact(self, fact: GroundFact) -> GroundFact:
        """A numbered fact back with symbols."""
        return fact[0], tuple(self.symbols[v] for v in fact[1])

    def message(self, packet: _Packet) -> Message:
        sender, step, addressee, fact = packet
        return Message(self.names[sender], step, self.names[addressee], self.fact(fact))

    def deliveries(self, packets: Iterable[_Packet]) -> frozenset[Delivery]:
        """Delivered messages as `replay` takes them: (sender, send step, fact)."""
        return frozenset((m.sender, m.step, m.fact) for m in map(self.message, packets))

    def start(self) -> tuple[_Local, ...]:
        """start(P, H): st(x) = H(x), bf(x) = ∅ (tplp2016 §5.1.1)."""
        return tuple(_Local((), facts, frozenset()) for facts in self.inputs)

    def step(self, i: int, facts: frozenset[GroundFact]) -> _Step:
        """D, H(x) ∪ induc_P(D) and async_P(D) for node number i and I = `facts`; memoized.

        Messages to an addressee outside N are dropped (tplp2016 §5.1.3).
        """
        result = self._steps.get((i, facts))
        if result is None:
            deduced = deduc(self.strata, facts)
            index = _index(deduced)
            state = self.inputs[i].union(fact for _, fact in _heads(self.inductive, index))
            sent = defaultdict(set)
            for y, fact in _messages(self.asynchronous, index):
                if y in self.position:
                    sent[self.position[y]].add(fact)
            result = _Step(deduced, state, tuple((j, frozenset(fs)) for j, fs in sorted(sent.items())))
            self._steps[i, facts] = result
        return result

    def transition(
        self, config: tuple[_Local, ...], i: int, delivered: frozenset[_Packet]
    ) -> tuple[tuple[_Local, ...], _Step]:
        """The target of the transition of node number i receiving `delivered` ⊆ bf(x), and what it computed."""
        local = config[i]
        t = len(local.history)
        step = self.step(i, local.state.union([fact for *_, fact in delivered]))
        target = list(config)
        target[i] = _Local(local.history + (step.deduced,), step.state, local.buffer - delivered)
        for j, facts in step.sent:
            history, state, buffer = target[j]
            target[j] = _Local(history, state, buffer.union([(i, t, j, fact) for fact in facts]))
        return tuple(target), step

    def trace(self, config: tuple[_Local, ...]) -> Trace:
        """trace(R) of the prefix that led to `config`: every D^{↑x,s} (tplp2016 §5.1.5)."""
        return frozenset().union(
            *(self._slice(i, s, deduced) for i, local in enumerate(config) for s, deduced in enumerate(local.history))
        )

    def pending(self, config: tuple[_Local, ...]) -> frozenset[Message]:
        """The messages in the buffers, with symbols."""
        return frozenset().union(*(self._symbolic(local.buffer) for local in config))

    def _slice(self, i: int, s: int, deduced: frozenset[GroundFact]) -> Trace:
        """D^{↑x,s} for x the node at position i, memoized (unions of frozensets reuse their elements' hashes)."""
        key = (i, s, deduced)
        if key not in self._slices:
            self._slices[key] = frozenset((self.names[i], s, *self.fact(fact)) for fact in deduced)
        return self._slices[key]

    def _symbolic(self, buffer: frozenset[_Packet]) -> frozenset[Message]:
        if buffer not in self._buffers:
            self._buffers[buffer] = frozenset(map(self.message, buffer))
        return self._buffers[buffer]


# ---------------------------------------------------------------------------
# Replaying one run prefix


@dataclass(frozen=True)
class Run:
    """A run prefix replayed: its trace, the messages still buffered, and the steps each node took."""

    trace: Trace
    pending: frozenset[Message]
    steps: Mapping[clingo.Symbol, int]


Schedule = Iterable[tuple[clingo.Symbol, Iterable[Delivery]]]
"""Transitions to replay: the active node and the (sender, send step, fact) delivered to it."""


def replay(program: Program, instance: Instance, transitions: Schedule) -> Run:
    """Run the transitions (active node, delivered (sender, send step, fact)) from start(P, H) (tplp2016 §5.1.3).

    Raises ValueError if a node is outside the network or a delivered message
    is not in its buffer (never sent to it, already delivered, or not yet sent:
    this is how causality is enforced).
    """
    network = _Network(program, instance)
    config = network.start()
    for number, (x, deliveries) in enumerate(transitions):
        if x not in network.names:
            raise ValueError(f"transition {number}: {x} is not a node of the network")
        i = network.names.index(x)
        buffer = {network.message(p): p for p in config[i].buffer}
        delivered = set()
        for sender, step, (predicate, args) in deliveries:
            message = Message(sender, step, x, (predicate, tuple(args)))
            if message not in buffer:
                raise ValueError(
                    f"transition {number}: {predicate}({', '.join(map(str, args))}) sent by {sender} at its step "
                    f"{step} is not in the buffer of {x} at its step {len(config[i].history)}"
                )
            delivered.add(buffer[message])
        config, _ = network.transition(config, i, frozenset(delivered))
    return Run(
        trace=network.trace(config),
        pending=network.pending(config),
        steps={x: len(local.history) for x, local in zip(network.names, config)},
    )


def run_trace(program: Program, instance: Instance, transitions: Schedule) -> Trace:
    """The trace of the run prefix `transitions` (see `replay`)."""
    return replay(program, instance, transitions).trace


# ---------------------------------------------------------------------------
# Exhaustive exploration of run prefixes


class StateLimitExceeded(Exception):
    """`explore` met more configurations than `max_states`."""


@dataclass(frozen=True)
class Exploration:
    """Every run prefix with steps 0..horizon on every node, summarised.

    traces: the distinct traces.
    pending: per trace, the distinct sets of messages left in buffers at the end.
    witnesses: per trace, one run prefix (transitions, as `replay` takes them) with that trace.
    runs: the number of distinct end configurations, i.e. of distinct pairs
      (trace, pending messages); different interleavings reaching the same
      end configuration count once.
    states: the number of distinct configurations visited, the start
      configuration included (configurations abandoned for the delay bound
      are not counted).
    """

    traces: frozenset[Trace]
    pending: Mapping[Trace, frozenset[frozenset[Message]]]
    witnesses: Mapping[Trace, tuple[Transition, ...]]
    runs: int
    states: int
    horizon: int
    max_delay: int | None


_Move = tuple[int, frozenset[_Packet]]
"""A transition inside the search: the position of the active node and the packets it receives."""


def _subsets(items: Sequence) -> Iterator[tuple]:
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def _successors(
    network: _Network, config: tuple[_Local, ...], horizon: int, max_delay: int | None
) -> Iterator[tuple[_Move, tuple[_Local, ...]]]:
    """Every transition from `config` of a node with steps left, with its target (see `explore`)."""
    for i, local in enumerate(config):
        t = len(local.history)
        if t > horizon:
            continue
        buffer = sorted(local.buffer)
        if max_delay is None:
            forced, optional = frozenset(), buffer
        else:  # by construction no message in bf(x) has step + max_delay < t
            forced = frozenset(p for p in buffer if p[1] + max_delay == t)
            optional = [p for p in buffer if p[1] + max_delay > t]
        for chosen in _subsets(optional):
            delivered = forced.union(chosen)
            target, step = network.transition(config, i, delivered)
            if max_delay is not None and any(len(target[j].history) > t + max_delay for j, _ in step.sent):
                continue  # a message sent to a node that has passed its deadline
            yield (i, delivered), target


def _search(
    network: _Network, horizon: int, max_delay: int | None, max_states: int, progress: Callable[[int], None] | None
) -> tuple[dict[tuple[_Local, ...], tuple[_Move, ...]], int]:
    """Depth first from start(P, H): each end configuration with a run reaching it, and the number of configurations."""
    start = network.start()
    visited = {start}
    ends: dict[tuple[_Local, ...], tuple[_Move, ...]] = {}
    stack = [_successors(network, start, horizon, max_delay)]
    path: list[_Move] = []
    while stack:
        following = next(stack[-1], None)
        if following is None:
            stack.pop()
            if path:
                path.pop()
            continue
        move, config = following
        if config in visited:
            continue
        visited.add(config)
        if len(visited) > max_states:
            raise StateLimitExceeded(
                f"more than {max_states} configurations explored at horizon {horizon}"
                + (f" with delay bound {max_delay}" if max_delay is not None else "")
                + ": lower the horizon (or set a delay bound) or raise --max-states"
            )
        if progress is not None and len(visited) % 10_000 == 0:
            progress(len(visited))
        if all(len(local.history) == horizon + 1 for local in config):
            ends[config] = (*path, move)
            continue
        path.append(move)
        stack.append(_successors(network, config, horizon, max_delay))
    return ends, len(visited)


def explore(
    program: Program,
    instance: Instance,
    horizon: int,
    max_delay: int | None = None,
    max_states: int = 1_000_000,
    progress: Callable[[int], None] | None = None,
) -> Exploration:
    """Enumerate every run prefix (tplp2016 §5.1.3) in which each node does steps 0..horizon.

    Depth first over configurations, each visited once: from a configuration,
    every node with steps left may move next, receiving any subset of its
    buffer. A configuration is identified by, per node, the D of its past
    steps (its part of the trace so far, which also fixes its next step number
    and its state) and its buffer; so different interleavings that reach the
    same configuration are merged, and distinct traces never are.

    max_delay D: a message sent at step s to y must be delivered at a step
    t ≤ s + D of y. It is delivered by force when y takes step s + D, and a
    configuration is abandoned as soon as a message is sent to a node that has
    already passed step s + D (for a message to oneself: when D = 0). So a
    message stays pending at the end only if s + D > horizon.

    Raises StateLimitExceeded past `max_states` configurations; `progress`,
    if given, is called with the number of configurations every 10000.
    """
    if horizon < 0:
        raise ValueError(f"the horizon must be 0 or more, not {horizon}")
    if max_delay is not None and max_delay < 0:
        raise ValueError(f"the delay bound must be 0 or more, not {max_delay}")
    network = _Network(program, instance)
    enabled = gc.isenabled()
    gc.disable()  # the search builds millions of acyclic tuples and frozensets: cycle collection only costs time
    try:
        ends, states = _search(network, horizon, max_delay, max_states, progress)
    finally:
        if enabled:
            gc.enable()

    traces: dict[tuple, Trace] = {}
    pending: dict[Trace, set[frozenset[Message]]] = defaultdict(set)
    witnesses: dict[Trace, tuple[Transition, ...]] = {}
    for config, run in ends.items():
        histories = tuple(local.history for local in config)
        trace = traces.get(histories)
        if trace is None:
            trace = traces[histories] = network.trace(config)
            witnesses[trace] = tuple((network.names[i], network.deliveries(delivered)) for i, delivered in run)
        pending[trace].add(network.pending(config))
    return Exploration(
        traces=frozenset(pending),
        pending={trace: frozenset(sets) for trace, sets in pending.items()},
        witnesses=witnesses,
        runs=len(ends),
        states=states,
        horizon=horizon,
        max_delay=max_delay,
    )
