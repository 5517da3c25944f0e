"""The run a causal model stands for (tplp2016 §5.3.2), and a run as constraints on a model (§5.2.2).

Theorem 4 of tplp2016 relates the two sides: (ii) every causal model M is
the trace of a run R_M of the operational semantics, built here by `run_of`
and replayed by `Run.replay` (`agrees` compares the two); (i) every run
prefix is a model, the only one left once its arrivals are pinned by
`run_constraints`.

A model (`model.Model`, with its `Message`s and `GroundFact`s) is read here through its attributes:
this module does not import `model`, which stands above it (`Model.run` is `run_of`). The annotations
name those types for a reader.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping

import clingo

from ..asp.names import CRASHED, LOST, PENDING
from ..asp.transform import Compiled
from ..bounds import Network
from ..lang.ast import Instance, Program, RuleKind
from ..runs import operational
from ..runs.local import Node


@dataclass(frozen=True)
class Configuration:
    """ρ_i (tplp2016 §5.1.1): the state st(x) and the buffer bf(x) of every node."""

    states: Mapping[clingo.Symbol, frozenset[GroundFact]]
    buffers: Mapping[clingo.Symbol, tuple[Message, ...]]


@dataclass(frozen=True)
class Transition:
    """Transition i of a run: node x_i active at its step s_i, receiving m_i and sending what it derives."""

    index: int
    node: clingo.Symbol
    step: int
    delivered: tuple[Message, ...]
    sent: tuple[Message, ...]
    lost: tuple[Message, ...] = ()  # sent, and lost by the network (docs/faults.md)


@dataclass(frozen=True)
class Run:
    """The run prefix a causal model stands for (tplp2016 §5.3.2): transitions τ_i and configurations ρ_0..ρ_n.

    Under faults (docs/faults.md) `network` is the model's, `crashes` its (y, s) pairs and each
    transition's `lost` the messages it sent that the network lost: they enter no buffer."""

    model: int
    transitions: tuple[Transition, ...]
    configurations: tuple[Configuration, ...]
    network: Network = Network()
    crashes: tuple[tuple[clingo.Symbol, int], ...] = ()

    def schedule(self) -> list[tuple[clingo.Symbol, list[operational.Delivery]]]:
        """The transitions as `operational.replay` takes them."""
        return [(t.node, [m.delivery() for m in t.delivered]) for t in self.transitions]

    def replay(self, program: Program, instance: Instance) -> operational.Run:
        """Run the schedule with the operational semantics of tplp2016 §5.1 from start(P, H), under the
        model's faults: its crash plan, and its lost messages dropped as they are sent."""
        lost = [m.buffered() for t in self.transitions for m in t.lost]
        return operational.replay(program, instance, self.schedule(), self.network, dict(self.crashes), lost)


def run_of(model: Model) -> Run:
    """The run prefix R built from M (tplp2016 §5.3.2): transitions in the order <_M, configurations between.

    Transition i makes x_i active at its step s_i and delivers m_i, the
    messages with arrival (x_i, s_i). Configuration ρ_i gives each node x,
    with s = loc_M(i, x) its next step, the state
    st_i(x) = (H(x) ∪ M^ind at (x,s)), where M^ind is what the inductive
    rules derive from D^{x,s-1}; and the buffer bf_i(x) of the messages to
    x sent before transition i and arriving at or after it (pending ones
    stay until the end). A message M lost (docs/faults.md) is in no buffer: it
    is listed with the transition that sent it (`Transition.lost`), and the run
    carries M's network and crashes, so that `Run.replay` drops it as it is sent.
    Needs P (the inductive rules give M^ind); raises ValueError when M sends
    messages into the past (`Model.linear_extension`).
    """
    if model.program is None:
        raise ValueError("the model does not carry its program: decode it from a Compiled made by transform()")
    order = model.linear_extension()
    glob = {point: i for i, point in enumerate(order)}
    inductive = model.program.rules_of(RuleKind.INDUCTIVE)
    edb = set(model.program.edb())
    end = len(order)

    node = Node()

    def state(x: clingo.Symbol, s: int) -> frozenset[GroundFact]:
        inputs = {f for f in model.slice(x, min(s, model.horizon)) if f[0] in edb}
        if s == 0:
            return frozenset(inputs)
        at = node.recall(inductive, model.slice, x, s - 1)  # for body atoms at a step
        return frozenset(inputs) | node.induc(inductive, model.slice(x, s - 1), at)

    def configuration(i: int) -> Configuration:
        loc = {x: sum(1 for (y, _) in order[:i] if y == x) for x in model.network}
        buffers = {
            x: tuple(
                m
                for m in model.messages
                if m.addressee == x and glob[m.send] < i <= (end if m.arrival is None else glob[m.arrival])
            )
            for x in model.network
        }
        return Configuration({x: state(x, loc[x]) for x in model.network}, buffers)

    transitions = tuple(
        Transition(
            i,
            x,
            s,
            tuple(m for m in model.messages if m.arrival == (x, s)),
            tuple(m for m in model.messages if m.send == (x, s)),
            tuple(m for m in model.lost if m.send == (x, s)),
        )
        for i, (x, s) in enumerate(order)
    )
    configurations = tuple(configuration(i) for i in range(end + 1))
    return Run(model.number, transitions, configurations, model.bounds.network, model.crashes)


def agrees(model: Model, replayed: operational.Run) -> bool:
    """Theorem 4 (ii), bounded: the replayed run has the model's trace and leaves its pending messages in the buffers."""
    return replayed.trace == model.trace and replayed.pending == frozenset(m.buffered() for m in model.pending)


def run_constraints(
    compiled: Compiled,
    program: Program,
    instance: Instance,
    transitions: operational.Schedule,
    crash: Mapping[clingo.Symbol, int] | None = None,
    lost: Iterable[operational.Message] = (),
) -> str:
    """A run prefix of the operational semantics as integrity constraints on chosen_R (Theorem 4 (i), bounded).

    Replays the transitions; every message delivered at step t of its
    addressee must be chosen with arrival t, and every message left in a
    buffer must be chosen as pending: `:- not chosen_R(x,s,y,t,ā).` This fixes
    the arrival function α_R of §5.2.2, so the program with these constraints
    has exactly the model of the run.

    Under the faults of the compiled network (docs/faults.md) the run also names its crash plan
    `crash` and the messages the network lost, `lost` (as `operational.replay` takes them): each
    lost message must be chosen with arrival `lost` (`:- not chosen_R(x,s,y,lost,ā).`), each
    crash of the plan must be chosen (`:- not _crashed(y,s).`) and no other
    (`:- _crashed(Y,S), #count{...}`: as many crashes as the plan has).
    """
    transitions = [(x, tuple(d)) for x, d in transitions]
    lost = frozenset(lost)
    crash = dict(crash or {})
    replayed = operational.replay(program, instance, transitions, compiled.bounds.network, crash, lost)
    chosen = {relation: name for name, relation in compiled.messages.items()}
    steps: dict[clingo.Symbol, int] = defaultdict(int)
    lines = []

    def constraint(sender, sent, addressee, arrival, fact: GroundFact) -> str:
        relation, args = fact
        terms = ",".join(map(str, (sender, sent, addressee, arrival, *args)))
        return f":- not {chosen[relation]}({terms})."

    for x, deliveries in transitions:
        for sender, sent, fact in deliveries:
            lines.append(constraint(sender, sent, x, steps[x], fact))
        steps[x] += 1
    for m in sorted(replayed.pending):
        lines.append(constraint(m.sender, m.step, m.addressee, PENDING, m.fact))
    for m in sorted(lost):
        lines.append(constraint(m.sender, m.step, m.addressee, LOST, m.fact))
    if compiled.bounds.network.crashes:
        lines += [f":- not {CRASHED}({y},{s})." for y, s in sorted(crash.items())]
        lines.append(f":- #count {{ Y,S : {CRASHED}(Y,S) }} != {len(crash)}.")
    return "\n".join(lines) + "\n"
