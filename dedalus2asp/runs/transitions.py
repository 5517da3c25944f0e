"""Configurations and transitions of the operational semantics (tplp2016 §5.1.1, §5.1.3), for the search.

A configuration gives each node x of the network N a state st(x) and a buffer
bf(x) of the messages sent to x and not yet delivered (`Part`: x's part of it,
with the D of its past steps). In a transition, node x receives a subset m of
bf(x) and computes, with the rule evaluator at one node (`local.Node`),

    I = st(x) ∪ untag(m)        D = deduc_P(I)
    st(x) := H(x) ∪ induc_P(D)  bf(y) := bf(y) ∪ {messages R(ā) | R(y, ā) ∈ async_P(D), y ∈ N}

A message sent to a node outside N is dropped. The paper tags a message with
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
from typing import Iterable, NamedTuple

import clingo

from ..lang.analysis import check, restrict
from ..lang.ast import Constant, Instance, Program, Rule, Trace
from .evaluator import Plan
from .local import Node
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
    """The values that `rule` names."""
    terms = [t for a in (rule.head, *rule.positive, *rule.negative) for t in a.args]
    terms += [t for c in rule.comparisons for t in (c.left, c.right)]
    return {t.value for t in terms if isinstance(t, Constant)}


class System:
    """P on H: the subprograms, the network, H(x) per node, and a memo of local steps."""

    def __init__(self, program: Program, instance: Instance):
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

    def transition(
        self, config: tuple[Part, ...], i: int, delivered: frozenset[Packet]
    ) -> tuple[tuple[Part, ...], Step]:
        """The target of the transition of node number i receiving `delivered` ⊆ bf(x), and what it computed."""
        local = config[i]
        t = len(local.history)
        step = self.step(i, local.state.union([fact for *_, fact in delivered]), t)
        target = list(config)
        target[i] = Part(local.history + (step.deduced,), step.state, local.buffer - delivered)
        for j, facts in step.sent:
            history, state, buffer = target[j]
            target[j] = Part(history, state, buffer.union([(i, t, j, fact) for fact in facts]))
        return tuple(target), step

    def trace(self, config: tuple[Part, ...]) -> Trace:
        """trace(R) of the prefix that led to `config`: every D^{↑x,s} (tplp2016 §5.1.5)."""
        return frozenset().union(
            *(self._slice(i, s, deduced) for i, local in enumerate(config) for s, deduced in enumerate(local.history))
        )

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
