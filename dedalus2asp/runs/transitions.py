"""Configurations and transitions of the operational semantics (tplp2016 §5.1.1, §5.1.3), for the search.

A configuration gives each node x of the network N a state st(x) and a buffer
bf(x) of the messages sent to x and not yet delivered (`Part`: x's part of it,
with the D of its past steps). In a transition, node x receives a subset m of
bf(x) and computes, with the rule evaluator at one node (`local.Node`),

    I = st(x) ∪ untag(m)        D = deduc_P(I)
    st(x) := H(x) ∪ induc_P(D)  bf(y) := bf(y) ∪ {messages R(ā) | R(y, ā) ∈ async_P(D), y ∈ N}

A message sent to a node outside N is dropped. Under the faults of the network
(`bounds.Network`, docs/faults.md) a message to another node may be lost as well: it never
enters bf(y). A `System` is built for one crash plan (which node crashes at which step); from
its crash step on a node's messages to other nodes are lost, and when P reads crash/2 every
node holds crash(y, s) for the plan's crashes at every step, as an input fact. With a loss
window E, each message to another node sent at a step s < E may be kept or lost
(`System.outcomes`), or, when an omission cuts a channel (Molly's model, `Network.omission`),
all the messages of a channel (x, s, y) together. Under Molly's crash candidates
(`Network.crash_times` after-send) a run is kept only when each node of the plan sent to another
node at or before its crash step (`System.admissible`); under fail-stop crashes a crashed node
computes nothing (`System.act`). The paper tags a message with
the ordinal of the transition that sent it; we identify it by its sender, the
sender's step, the addressee and the fact (`Message`), which is the same thing:
a transition is a (node, step).

Inside the search a value is an int (`values.Numbered`: an integer is itself,
any other constant of P or H is numbered in clingo's order) and a node is its
position in N: comparisons keep their meaning and hashing is cheap. `System`
computes the steps, memoized, and translates back to symbols for the results.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from itertools import combinations, product
from typing import Iterable, Iterator, Mapping, NamedTuple

import clingo

from ..bounds import CRASH, Network
from ..lang.analysis import check, restrict
from ..lang.ast import Aggregate, Arithmetic, Constant, Fact, Instance, Program, Rule, Trace
from .evaluator import Plan, one_node_at_a_time
from .local import Node, observed
from .values import Numbered

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


Packet = tuple[int, int, int, GroundFact]
"""A message inside the search: (sender position, send step, addressee position, fact with numbered values)."""


class Step(NamedTuple):
    """What a node x computes in one transition from I = st(x) ∪ untag(m)."""

    deduced: frozenset[GroundFact]  # D = deduc_P(I)
    state: frozenset[GroundFact]  # H(x) ∪ induc_P(D), its next state
    sent: tuple[tuple[int, frozenset[GroundFact]], ...]  # async_P(D) per addressee position inside N


class Part(NamedTuple):
    """One node's part of a configuration: the D of its past steps, st(x), bf(x).

    The number of its next step is `len(history)`; `history` is its part of
    the trace so far.
    """

    history: tuple[frozenset[GroundFact], ...]
    state: frozenset[GroundFact]
    buffer: frozenset[Packet]


def _constants(rule: Rule) -> set[clingo.Symbol]:
    """The values that `rule` names, also inside expressions and aggregates."""
    terms = [t for a in (rule.head, *rule.positive, *rule.negative) for t in a.args]
    terms += [t for c in rule.comparisons for t in (c.left, c.right)]
    found = set()
    while terms:
        t = terms.pop()
        if isinstance(t, Constant):
            found.add(t.value)
        elif isinstance(t, Arithmetic):
            terms += [u for u in (t.left, t.right) if u is not None]
        elif isinstance(t, Aggregate):
            terms.append(t.term)
    return found


Sent = tuple[tuple[int, frozenset[GroundFact]], ...]
"""The messages of one step, per addressee position inside N (as `Step.sent`)."""

CrashPlan = Mapping[clingo.Symbol, int]
"""Which nodes crash, and at which step each."""


def crash_plans(names: tuple[clingo.Symbol, ...], crashes: int, horizon: int) -> Iterator[CrashPlan]:
    """Every way for at most `crashes` of the nodes `names` to crash, each at a step 0..horizon; the first is no crash.
    (Molly's crash candidates, `Network.crash_times` after-send, crash at steps 0..T-1: pass T-1.)"""
    for k in range(min(crashes, len(names)) + 1):
        for nodes in combinations(names, k):
            for steps in product(range(horizon + 1), repeat=k):
                yield dict(zip(nodes, steps))


def with_crashes(instance: Instance, program: Program, plan: CrashPlan) -> Instance:
    """H with crash(y, s) at every node for every crash of `plan`, when P reads crash/2 (docs/faults.md)."""
    if not plan or program.schema().get(CRASH) != 2:
        return instance
    known = [Fact(CRASH, (y, clingo.Number(s))) for y, s in sorted(plan.items())]
    return replace(instance, facts={x: (*facts, *known) for x, facts in instance.facts.items()})


class System:
    """P on H: the subprograms, the network, H(x) per node, and a memo of local steps.

    `network` and `crash` give the faults of the runs: the loss window, and the crash plan of
    this system (node -> its crash step)."""

    def __init__(self, program: Program, instance: Instance, network: Network = Network(), crash: CrashPlan | None = None):
        one_node_at_a_time(program, "the operational explorer")
        crash = crash or {}
        instance = with_crashes(network.populate(instance), program, crash)
        check(program, instance)
        instance = restrict(instance, program)
        self.names: tuple[clingo.Symbol, ...] = instance.network
        constants = {v for rule in program.rules for v in _constants(rule)}
        values = {v for facts in instance.facts.values() for f in facts for v in f.args}
        self.values = Numbered(values | constants | set(self.names))
        self.position = {self.values.constant(x): i for i, x in enumerate(self.names)}  # numbered value -> position in N
        self.plan = Plan.of(program)
        self.node = Node(self.values)
        self.inputs = tuple(
            frozenset(self.number(f.predicate, f.args) for f in instance.facts[x] if f.step is None) for x in self.names
        )
        events: list[dict[int, set[GroundFact]]] = [defaultdict(set) for _ in self.names]
        for i, x in enumerate(self.names):
            for f in instance.facts[x]:
                if f.step is not None:
                    events[i][f.step].add(self.number(f.predicate, f.args))
        self.events = tuple({s: frozenset(fs) for s, fs in e.items()} for e in events)
        self._steps: dict[tuple[int, frozenset[GroundFact]], Step] = {}
        self._slices: dict[tuple, Trace] = {}
        self._buffers: dict[frozenset[Packet], frozenset[Message]] = {}
        self.crash = tuple(crash.get(x) for x in self.names)  # per position: the crash step, or None
        self.loss_until = network.loss_until or 0
        self.by_channel = network.by_channel
        self.fail_stop = network.fail_stop
        self.after_send = network.after_send
        self._silent = tuple(
            Step(frozenset(f for f in facts if f[0] == CRASH), frozenset(), ()) for facts in self.inputs
        )
        self._sending: set[tuple[int, tuple[frozenset[GroundFact], ...]]] = set()  # (i, history up to a step at which i sent to another node)

    def number(self, predicate: str, args: Iterable[clingo.Symbol]) -> GroundFact:
        constant = self.values.constant
        return predicate, tuple(constant(v) for v in args)

    def fact(self, fact: GroundFact) -> GroundFact:
        """A numbered fact back with symbols."""
        symbol = self.values.symbol
        return fact[0], tuple(symbol(v) for v in fact[1])

    def message(self, packet: Packet) -> Message:
        sender, step, addressee, fact = packet
        return Message(self.names[sender], step, self.names[addressee], self.fact(fact))

    def deliveries(self, packets: Iterable[Packet]) -> frozenset[Delivery]:
        """Delivered messages as `replay` takes them: (sender, send step, fact)."""
        return frozenset((m.sender, m.step, m.fact) for m in map(self.message, packets))

    def start(self) -> tuple[Part, ...]:
        """start(P, H): st(x) = H(x), bf(x) = ∅ (tplp2016 §5.1.1)."""
        return tuple(Part((), facts, frozenset()) for facts in self.inputs)

    def step(self, i: int, facts: frozenset[GroundFact], t: int) -> Step:
        """D, H(x) ∪ induc_P(D) and async_P(D) for node number i at its step t and I = `facts`; memoized.

        The input events R(ā)@t of the node (tr2009 Example 3) join I at step t:
        they are part of the node's input at that step only. Messages to an
        addressee outside N are dropped (tplp2016 §5.1.3).
        """
        facts = facts.union(self.events[i].get(t, ()))
        result = self._steps.get((i, facts))
        if result is None:
            deduced, carried, sent = self.node.step(self.plan, facts)
            to: dict[int, set[GroundFact]] = defaultdict(set)
            for y, fact in sent:
                if y in self.position:
                    to[self.position[y]].add(fact)
            result = Step(deduced, self.inputs[i].union(carried), tuple((j, frozenset(fs)) for j, fs in sorted(to.items())))
            self._steps[i, facts] = result
        return result

    def crashed(self, i: int, t: int) -> bool:
        """Whether node number i has crashed by its step t under this system's crash plan."""
        return self.crash[i] is not None and self.crash[i] <= t

    def act(self, i: int, facts: frozenset[GroundFact], t: int) -> Step:
        """`step`, except that under fail-stop crashes (docs/faults.md) a node that has crashed by step t does
        nothing: no deduction, nothing carried, no messages; it holds only the run's crash(y, s) facts, which
        hold at every node (Molly's convention)."""
        if self.fail_stop and self.crashed(i, t):
            return self.silent(i)
        return self.step(i, facts, t)

    def silent(self, i: int) -> Step:
        """The step of node number i once it has crashed under fail-stop: no deduction but the run's crash(y, s)
        facts, nothing carried, no messages (`act`)."""
        return self._silent[i]

    def record(self, i: int, history: tuple[frozenset[GroundFact], ...], step: Step) -> None:
        """Note that node number i, whose history up to the step just taken is `history`, sent to another node at
        that step (for Molly's crash candidates, `admissible`; only for a node of the crash plan)."""
        if self.after_send and self.crash[i] is not None and any(j != i for j, _ in step.sent):
            self._sending.add((i, history))

    def admissible(self, histories: tuple[tuple[frozenset[GroundFact], ...], ...]) -> bool:
        """Whether a run whose nodes have these histories has Molly's crash candidates (`Network.crash_times`
        after-send): every node of the crash plan crashes at or after a step at which it sent to another node."""
        if not self.after_send:
            return True
        return all(
            c is None or any((i, histories[i][: s + 1]) in self._sending for s in range(c + 1))
            for i, c in enumerate(self.crash)
        )

    def outcomes(self, i: int, t: int, sent: Sent, crashed: bool | None = None) -> Iterator[Sent]:
        """The messages of node number i's step t that travel, for every choice of lost ones.

        From its crash step on, a node's messages to other nodes are all lost; before step E of
        the loss window each message to another node may be kept or lost (each subset of them is
        lost in one outcome); a node's messages to itself always travel. Without faults: `sent`.
        `crashed` says whether node i has crashed, for a caller that decides crashes as a run goes
        (the eventual graph, `configurations`); None reads this system's crash plan."""
        if crashed is None:
            crashed = self.crashed(i, t)
        if not crashed and t >= self.loss_until:
            yield sent
            return
        own = tuple((j, facts) for j, facts in sent if j == i)
        if crashed:
            yield own
            return
        if self.by_channel:  # an omission cuts a channel: each subset of the addressees loses all it was sent
            channels = [(j, facts) for j, facts in sent if j != i]
            for kept in product((False, True), repeat=len(channels)):
                yield tuple(sorted(own + tuple(c for keep, c in zip(kept, channels) if keep)))
            return
        others = [(j, fact) for j, facts in sent if j != i for fact in sorted(facts)]
        for kept in product((False, True), repeat=len(others)):
            to: dict[int, set[GroundFact]] = defaultdict(set)
            for keep, (j, fact) in zip(kept, others):
                if keep:
                    to[j].add(fact)
            yield tuple(sorted(own + tuple((j, frozenset(fs)) for j, fs in to.items())))

    def transition(
        self, config: tuple[Part, ...], i: int, delivered: frozenset[Packet]
    ) -> tuple[tuple[Part, ...], Step]:
        """The target of the transition of node number i receiving `delivered` ⊆ bf(x), every message sent
        kept (no loss: `replay`), and what it computed."""
        local = config[i]
        t = len(local.history)
        step = self.act(i, local.state.union([fact for *_, fact in delivered]), t)
        return self._target(config, i, delivered, step, step.sent), step

    def transitions(
        self, config: tuple[Part, ...], i: int, delivered: frozenset[Packet]
    ) -> Iterator[tuple[tuple[Part, ...], Sent]]:
        """The targets of the transitions of node number i receiving `delivered` ⊆ bf(x), one per choice of
        lost messages (`outcomes`), each with the messages that travel."""
        local = config[i]
        t = len(local.history)
        step = self.act(i, local.state.union([fact for *_, fact in delivered]), t)
        for sent in self.outcomes(i, t, step.sent):
            yield self._target(config, i, delivered, step, sent), sent

    def _target(self, config: tuple[Part, ...], i: int, delivered: frozenset[Packet], step: Step, sent: Sent) -> tuple[Part, ...]:
        local = config[i]
        t = len(local.history)
        target = list(config)
        target[i] = Part(local.history + (step.deduced,), step.state, local.buffer - delivered)
        self.record(i, target[i].history, step)
        for j, facts in sent:
            history, state, buffer = target[j]
            target[j] = Part(history, state, buffer.union([(i, t, j, fact) for fact in facts]))
        return tuple(target)

    def trace(self, config: tuple[Part, ...]) -> Trace:
        """trace(R) of the prefix that led to `config`: every D^{↑x,s} (tplp2016 §5.1.5), and the facts of the
        global node that the global rules derive from them at each step (`local.observed`, issue #18)."""
        trace = frozenset().union(
            *(self._slice(i, s, deduced) for i, local in enumerate(config) for s, deduced in enumerate(local.history))
        )
        return observed(self.plan, trace, max((len(local.history) for local in config), default=0))

    def pending(self, config: tuple[Part, ...]) -> frozenset[Message]:
        """The messages in the buffers, with symbols."""
        return frozenset().union(*(self._symbolic(local.buffer) for local in config))

    def _slice(self, i: int, s: int, deduced: frozenset[GroundFact]) -> Trace:
        """D^{↑x,s} for x the node at position i, memoized (unions of frozensets reuse their elements' hashes)."""
        key = (i, s, deduced)
        if key not in self._slices:
            self._slices[key] = frozenset((self.names[i], s, *self.fact(fact)) for fact in deduced)
        return self._slices[key]

    def _symbolic(self, buffer: frozenset[Packet]) -> frozenset[Message]:
        if buffer not in self._buffers:
            self._buffers[buffer] = frozenset(map(self.message, buffer))
        return self._buffers[buffer]
