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

`explore(..., mode="traces")` computes the same set of traces by a reduced
search that forgets who sent a buffered message and keeps only as many copies
of a fact as can still make a difference; see `_search_traces` for the
reduction and its proof.
"""

from __future__ import annotations

import gc
import operator
import typing
from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import combinations, product
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import clingo

from ..bounds import Bounds
from ..lang.analysis import check, restrict, strata
from ..lang.ast import Atom, Constant, Instance, Literal, Program, Rule, RuleKind, Term, Trace
from ..lang.located import check_events

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
        self.inputs = tuple(
            frozenset(self.number(f.predicate, f.args) for f in instance.facts[x] if f.step is None) for x in self.names
        )
        events: list[dict[int, set[GroundFact]]] = [defaultdict(set) for _ in self.names]
        for i, x in enumerate(self.names):
            for f in instance.facts[x]:
                if f.step is not None:
                    events[i][f.step].add(self.number(f.predicate, f.args))
        self.events = tuple({s: frozenset(fs) for s, fs in e.items()} for e in events)
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

    def step(self, i: int, facts: frozenset[GroundFact], t: int) -> _Step:
        """D, H(x) ∪ induc_P(D) and async_P(D) for node number i at its step t and I = `facts`; memoized.

        The input events R(ā)@t of the node (tr2009 Example 3) join I at step t:
        they are part of the node's input at that step only. Messages to an
        addressee outside N are dropped (tplp2016 §5.1.3).
        """
        facts = facts.union(self.events[i].get(t, ()))
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
        step = self.step(i, local.state.union([fact for *_, fact in delivered]), t)
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
    """`explore` met more configurations than `max_states`; `states`: how many it had met."""

    def __init__(self, message: str, states: int) -> None:
        super().__init__(message, states)  # both in args: the exception pickles (batch, Spark)

    @property
    def states(self) -> int:
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class Exploration:
    """Every run prefix with steps 0..horizon on every node, summarised.

    traces: the distinct traces (the same set in both modes).
    pending: per trace, the distinct sets of messages left in buffers at the
      end. Empty in mode "traces", which does not know who sent a message.
    witnesses: per trace, one run prefix (transitions, as `replay` takes
      them) with that trace. Empty in mode "traces".
    runs: mode "exact": the number of distinct end configurations, i.e. of
      distinct pairs (trace, pending messages); different interleavings
      reaching the same end configuration count once. Mode "traces": the
      number of distinct traces, because the reduced search keeps nothing of
      an end configuration but its trace.
    states: the number of distinct configurations visited, the start
      configuration included (configurations abandoned for the delay bound
      are not counted); in mode "traces", of the reduced configurations
      (classes of configurations, see `_search_traces`).
    mode: "exact" or "traces" (see `explore`).
    """

    traces: frozenset[Trace]
    pending: Mapping[Trace, frozenset[frozenset[Message]]]
    witnesses: Mapping[Trace, tuple[Transition, ...]]
    runs: int
    states: int
    bounds: Bounds
    mode: str = "exact"


_Move = tuple[int, frozenset[_Packet]]
"""A transition inside the search: the position of the active node and the packets it receives."""


def _subsets(items: Sequence) -> Iterator[tuple]:
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def _successors(
    network: _Network, config: tuple[_Local, ...], bounds: Bounds
) -> Iterator[tuple[_Move, tuple[_Local, ...]]]:
    """Every transition from `config` of a node with steps left, with its target (see `explore`)."""
    horizon, max_delay = bounds.horizon, bounds.network.max_delay
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


def _first_visit(visited: set, key, bounds: Bounds, max_states: int, progress) -> bool:
    """Record `key` as visited; False if it was already. Enforces the state limit and reports progress."""
    if key in visited:
        return False
    visited.add(key)
    if len(visited) > max_states:
        max_delay = bounds.network.max_delay
        raise StateLimitExceeded(
            f"more than {max_states} configurations explored at horizon {bounds.horizon}"
            + (f" with delay bound {max_delay}" if max_delay is not None else "")
            + ": lower the horizon (or set a delay bound) or raise --max-states",
            len(visited),
        )
    if progress is not None and len(visited) % 10_000 == 0:
        progress(len(visited))
    return True


def _search(
    network: _Network, bounds: Bounds, max_states: int, progress: Callable[[int], None] | None
) -> tuple[dict[tuple[_Local, ...], tuple[_Move, ...]], int]:
    """Depth first from start(P, H): each end configuration with a run reaching it, and the number of configurations."""
    start = network.start()
    visited = {start}
    ends: dict[tuple[_Local, ...], tuple[_Move, ...]] = {}
    stack = [_successors(network, start, bounds)]
    path: list[_Move] = []
    while stack:
        following = next(stack[-1], None)
        if following is None:
            stack.pop()
            if path:
                path.pop()
            continue
        move, config = following
        if not _first_visit(visited, config, bounds, max_states, progress):
            continue
        if all(len(local.history) == bounds.horizon + 1 for local in config):
            ends[config] = (*path, move)
            continue
        path.append(move)
        stack.append(_successors(network, config, bounds))
    return ends, len(visited)


# ---------------------------------------------------------------------------
# The traces-only search

Mode = typing.Literal["exact", "traces"]  # (`Literal` is the AST class here)

_Deadlines = tuple[int, ...]
"""The deadlines of the buffered copies of one fact at one node, sorted; horizon + 1 stands for "none"."""


class _Held(NamedTuple):
    """One node's part of a reduced configuration: like `_Local`, with the buffer as copies per fact.

    `copies` holds (fact, deadlines) for every fact with a buffered copy.
    """

    history: tuple[frozenset[GroundFact], ...]
    state: frozenset[GroundFact]
    copies: frozenset[tuple[GroundFact, _Deadlines]]


class _Reduced:
    """The reduced transition system of `_search_traces`, for one network and its bounds (horizon, delay bound)."""

    def __init__(self, network: _Network, bounds: Bounds):
        self.network = network
        self.horizon = bounds.horizon
        self.max_delay = bounds.network.max_delay  # D, read in the inner loops
        self.never = self.horizon + 1  # the deadline of a copy that is never forced and may stay pending
        self._kept: dict[tuple[_Deadlines, int], _Deadlines] = {}
        self._keys: dict[tuple[_Deadlines, int], tuple[int, tuple[int, ...]]] = {}
        self._options: dict[tuple[_Deadlines, int], tuple[tuple[bool, _Deadlines], ...]] = {}

    def start(self) -> tuple[_Held, ...]:
        return tuple(_Held((), facts, frozenset()) for facts in self.network.inputs)

    def deadline(self, s: int) -> int:
        """The deadline of a message sent at step s: s + D, or `never` without a bound or past the horizon."""
        if self.max_delay is None or s + self.max_delay > self.horizon:
            return self.never
        return s + self.max_delay

    def normalise(self, deadlines: _Deadlines, t: int) -> _Deadlines:
        """At most min(d, T) - t + 1 copies of each deadline d, for a node whose next step is t (step (N))."""
        memo = (deadlines, t)
        kept = self._kept.get(memo)
        if kept is None:
            out: list[int] = []
            for d in sorted(set(deadlines)):
                out += [d] * min(deadlines.count(d), min(d, self.horizon) - t + 1)
            kept = self._kept[memo] = tuple(out)
        return kept

    def class_key(self, deadlines: _Deadlines, t: int) -> tuple[int, tuple[int, ...]]:
        """key(M) = (d_min, h) of the copies M = `deadlines` at a node whose next step is t (see `_search_traces`)."""
        memo = (deadlines, t)
        key = self._keys.get(memo)
        if key is None:
            h: list[int] = []
            below = 0  # h(u + 1), h(T + 1) = 0
            for u in range(self.horizon, t - 1, -1):
                g = sum(1 for d in deadlines if d >= u)
                below = min(g, 1 + below)
                h.append(below)
            key = self._keys[memo] = (deadlines[0], tuple(reversed(h)))
        return key

    def key(self, config: tuple[_Held, ...]) -> tuple:
        """What the visited set remembers of a reduced configuration: histories and key(M) of every M."""
        if self.max_delay is None:  # every copy has deadline `never`: the normalised buffer is its own key
            return tuple((local.history, local.copies) for local in config)
        return tuple(
            (local.history, frozenset((f, self.class_key(d, len(local.history))) for f, d in local.copies))
            for local in config
        )

    def options(self, deadlines: _Deadlines, t: int) -> tuple[tuple[bool, _Deadlines], ...]:
        """The reduced choices for one fact at step t (step (R)): (delivered?, deadlines of the copies left)."""
        memo = (deadlines, t)
        options = self._options.get(memo)
        if options is None:
            forced = deadlines.count(t)  # every deadline is ≥ t
            finite = sum(1 for d in deadlines if d < self.never)
            options = [] if forced else [(False, deadlines)]
            options += [(True, deadlines[j:]) for j in range(max(1, forced), max(1, finite) + 1)]
            options = self._options[memo] = tuple(options)
        return options

    def successors(self, config: tuple[_Held, ...]) -> Iterator[tuple[_Held, ...]]:
        """The targets of the reduced moves from `config`, normalised."""
        horizon, max_delay = self.horizon, self.max_delay
        for i, local in enumerate(config):
            t = len(local.history)
            if t > horizon:
                continue
            held = sorted(local.copies)
            facts = [f for f, _ in held]
            sent_deadline = self.deadline(t)
            for choice in product(*(self.options(deadlines, t) for _, deadlines in held)):
                step = self.network.step(i, local.state.union([f for f, (on, _) in zip(facts, choice) if on]), t)
                buffers = {i: {f: rest for f, (_, rest) in zip(facts, choice) if rest}}
                for j, sent in step.sent:
                    if max_delay is not None and (t + 1 if j == i else len(config[j].history)) > t + max_delay:
                        break  # a message sent to a node that has passed its deadline
                    buffer = buffers.get(j)
                    if buffer is None:
                        buffer = buffers[j] = dict(config[j].copies)
                    for f in sent:
                        buffer[f] = tuple(sorted(buffer.get(f, ()) + (sent_deadline,)))
                else:
                    target = list(config)
                    for j, buffer in buffers.items():
                        history, state = (local.history + (step.deduced,), step.state) if j == i else config[j][:2]
                        t_j = len(history)
                        copies = ((f, self.normalise(deadlines, t_j)) for f, deadlines in buffer.items())
                        target[j] = _Held(history, state, frozenset((f, kept) for f, kept in copies if kept))
                    yield tuple(target)


def _search_traces(
    network: _Network, bounds: Bounds, max_states: int, progress: Callable[[int], None] | None
) -> tuple[dict[tuple, tuple[_Held, ...]], int]:
    """Depth first over the reduced configurations: one end configuration per trace, and the number visited.

    The reduction, and why it reaches exactly the traces of `_search`. Fix P,
    H, T and D (D = ∞ without a delay bound). For a configuration C let
    Fut(C) be the set of the tuples of node histories at the end of the
    complete continuations of C: those in which every node reaches T + 1
    steps and no message misses its deadline. `_search` collects Fut(start).

    (0) Senders do not matter. The legal moves from C and their effect on
    the histories depend on a buffered message (x, s, y, f) only through y,
    f and its deadline dl = s + D, read as ∞ if D = ∞ or s + D > T: what
    y computes depends on untag(m), the set of facts delivered; a message
    is forced exactly at step dl of y, and one with s + D > T is never
    forced and may stay pending, as with no bound; the abandon check
    concerns messages being sent, whose deadline is fixed by their send
    step. So Fut(C) is a function of the histories and, for each node y
    and fact f, the multiset M of deadlines of the copies of f in bf(y). If
    y's next step is t, each d ∈ M is ≥ t (a copy is forced at step dl).

    For such M let g(u) = |{d ∈ M : d ≥ u}| for t ≤ u ≤ T (∞ ≥ u),
    g(T+1) = 0, h(u) = min{v - u + g(v) : u ≤ v ≤ T+1}, i.e. h(T+1) = 0 and
    h(u) = min(g(u), 1 + h(u+1)), and d_min = min M (∞ if M has no finite
    deadline). key(M) = (d_min, h). Without a delay bound M is k copies of
    ∞ and h(u) = min(k, T + 1 - u): only min(k, steps left) matters.

    (1) Which copies arrive where. In a complete continuation ρ of C, let
    S ⊆ [t, T] be the steps of y at which ρ delivers some copy from M.
    (a) Every finite deadline is met, so if d_min < ∞ then S ≠ ∅ and
    min S ≤ d_min. (b) The copies delivered at distinct steps are distinct:
    S has a system of distinct representatives (SDR) c_u ∈ M, d(c_u) ≥ u.
    The sets {d ∈ M : d ≥ u} form a chain, so (Hall on a chain: the k
    latest steps of S need k copies available at the earliest of them) an
    SDR exists iff |S ∩ [u, T]| ≤ g(u) for every u, iff |S ∩ [u, T]| ≤ h(u)
    for every u: h ≤ g, and |S ∩ [u, T]| ≤ (v - u) + |S ∩ [v, T]| ≤ v - u + g(v)
    for every v ≥ u.

    (2) Equal keys, equal futures. Let C' be C with M replaced by M',
    key(M') = key(M). From a complete continuation ρ of C build ρ' from
    C': the same transitions, delivering the same messages, except for the
    copies from M: by (1) and h(M) = h(M'), S has an SDR c'_u in M'; deliver
    c'_u at step u for u ∈ S, and every other copy of M' with a finite
    deadline at step min S (this exists and min S ≤ d_min(M) = d_min(M') ≤
    its deadline: M has a finite deadline too); the other copies of
    deadline ∞ stay pending. At every transition ρ' delivers the same set
    of facts as ρ, hence (by induction along the run) computes the same D,
    state and messages, and meets the same abandon checks: ρ' is a complete
    continuation of C' with the same histories. By symmetry
    Fut(C) = Fut(C'); applied to each (y, f) in turn, configurations with the
    same histories and the same key(M) everywhere have the same Fut.

    (3) Domination. Say M₂ dominates M₁ if some injection ι: M₁ → M₂ has
    ι(d) ≥ d and every element of M₂ outside ι(M₁) is ∞. If C₂ is C₁ with
    M₂ for M₁ (for one or more (y, f)) then Fut(C₁) ⊆ Fut(C₂): replay a
    continuation of C₁ from C₂, delivering the copy ι(c) whenever it
    delivers c (in time: ι(c) ≥ c) and never the others (∞, so never
    forced): the same facts arrive at every transition.

    (R) Reduced moves. Node y at step t, and for each fact f its copies
    d₁ ≤ … ≤ d_k, k_t of them with deadline t (forced) and k_fin finite:
    deliver none (only if k_t = 0) or the j earliest, for
    max(1, k_t) ≤ j ≤ max(1, k_fin). Any move delivers some X ⊆ M for each
    f, with X ⊇ the forced copies; say |X| = j. Delivering the j earliest
    instead delivers the same facts, so computes the same D, state and
    messages, and leaves the k - j latest copies, which dominate M \\ X
    (pair the i-th smallest of each). If j > max(1, k_fin), the
    max(1, k_fin) earliest deliver the same facts and leave a superset
    whose extra copies are all ∞, which dominates too. By (3), the target of
    any move has a Fut included in that of a reduced move's target, and a
    reduced move is a move: Fut(C) = ∪ Fut(target) over the reduced moves.
    Delivering one copy per fact is not enough with a delay bound: with
    copies of deadlines t and t + 1, only delivering both at step t gives
    f at step t and (if no other copy comes) not at step t + 1. Without a
    bound every copy is ∞ and the reduced moves deliver 0 or 1 copy of f.

    (N) Normalisation. After each move, a node keeps, per fact and deadline
    d, at most w = min(d, T) - t + 1 copies (t its next step): one per step
    at which they may arrive. This keeps key(M): say n > w copies of d are
    cut to w (∞ counts as d = T here). g(v) drops by n - w only for v ≤ d,
    where g(v) ≥ n + g(d+1), so the term v - u + g(v) of h(u) becomes
    ≥ v - u + w + g(d+1) ≥ (d + 1) - u + g(d+1) (as v ≥ t), the term for
    v = d + 1, which is unchanged; so h is unchanged, and d_min too (w ≥ 1
    as d ≥ t). A node that has taken all its steps keeps nothing, and
    without a bound a buffer is a multiset of facts whose counts are capped
    at the steps left: it is its own key.

    The search visits each (histories, key(M) for every node and fact) once,
    expanding the first representative it meets. Every configuration it
    builds is reached from start by moves, each followed by a normalisation,
    which keeps Fut (N, 2); so it collects only elements of Fut(start).
    Conversely, by induction on the steps left (fixed by the histories): an
    expanded C has Fut(C) = ∪ Fut(N(target)) over its reduced moves (R, N,
    2); each N(target) was expanded itself or has the key of an expanded
    configuration, with the same Fut (2) and fewer steps left than C; so
    all of Fut(C) is collected. Hence the traces collected are exactly
    those of `_search`. (A test checks (1), (2) and (N) exhaustively on one
    fact for T = 3, and the two searches against each other.)
    """
    reduced = _Reduced(network, bounds)
    start = reduced.start()
    visited = {reduced.key(start)}
    ends: dict[tuple, tuple[_Held, ...]] = {}
    stack = [reduced.successors(start)]
    while stack:
        config = next(stack[-1], None)
        if config is None:
            stack.pop()
            continue
        if not _first_visit(visited, reduced.key(config), bounds, max_states, progress):
            continue
        if all(len(local.history) == bounds.horizon + 1 for local in config):
            ends[tuple(local.history for local in config)] = config
            continue
        stack.append(reduced.successors(config))
    return ends, len(visited)


def explore(
    program: Program,
    instance: Instance,
    bounds: Bounds,
    max_states: int = 1_000_000,
    progress: Callable[[int], None] | None = None,
    mode: Mode = "exact",
) -> Exploration:
    """Enumerate every run prefix (tplp2016 §5.1.3) in which each node does steps 0..T (`bounds.horizon`).

    Depth first over configurations, each visited once: from a configuration,
    every node with steps left may move next, receiving any subset of its
    buffer. A configuration is identified by, per node, the D of its past
    steps (its part of the trace so far, which also fixes its next step number
    and its state) and its buffer; so different interleavings that reach the
    same configuration are merged, and distinct traces never are.

    The delay bound D of `bounds.network`: a message sent at step s to y must be delivered at a step
    t ≤ s + D of y. It is delivered by force when y takes step s + D, and a
    configuration is abandoned as soon as a message is sent to a node that has
    already passed step s + D (for a message to oneself: when D = 0). So a
    message stays pending at the end only if s + D > horizon.

    mode "exact" (the default) explores the configurations as they are, and
    returns every pending set and a witness run per trace. mode "traces"
    returns the same set of traces, and only that (empty `pending` and
    `witnesses`, `runs` = the number of traces): it forgets who sent a
    buffered message, keeps of the copies of a fact to a node only what can
    still make a difference to the trace (their deadlines, and how many can
    still arrive at distinct steps), and delivers, per fact, either no copy
    or its j earliest-deadline copies, the one copy without a delay bound;
    see `_search_traces` for the reduction and its proof. Use it when only
    the set of traces is wanted: when a fact is sent again at every step the
    exact search meets far more configurations.

    Raises StateLimitExceeded past `max_states` configurations; `progress`,
    if given, is called with the number of configurations every 10000.
    """
    if mode not in ("exact", "traces"):
        raise ValueError(f"the mode must be 'exact' or 'traces', not {mode!r}")
    check_events(instance, bounds.horizon)
    network = _Network(program, instance)
    enabled = gc.isenabled()
    gc.disable()  # the search builds millions of acyclic tuples and frozensets: cycle collection only costs time
    try:
        if mode == "traces":
            finals, states = _search_traces(network, bounds, max_states, progress)
        else:
            ends, states = _search(network, bounds, max_states, progress)
    finally:
        if enabled:
            gc.enable()

    if mode == "traces":
        return Exploration(
            traces=frozenset(network.trace(config) for config in finals.values()),
            pending={},
            witnesses={},
            runs=len(finals),
            states=states,
            bounds=bounds,
            mode=mode,
        )

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
        bounds=bounds,
    )
