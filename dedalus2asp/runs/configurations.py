"""The configuration graph of a program on its input and network: every infinite run, as a finite graph.

The bounded explorer (`operational`) walks run prefixes of T+1 steps; a configuration there
remembers each node's whole past (its part of the trace). To speak of infinite runs (the
eventual semantics, `eventual`) a configuration must forget what no future step can read, so
that the configurations are finitely many when the program does not invent values. A
`Configuration` keeps, per node (`Local`):

* `state`: st(x), the facts carried into its next step (H(x) ∪ induc_P(D), tplp2016 §5.1.3);
* `clock`: its next step number capped at `Graph.cap` — the loss window E, the input events
  R(ā)@k and nothing else read a step number, so past the largest of them all steps are alike;
* `buffer`: bf(x), each message as (sender position, slack, fact), where the slack is its
  deadline (the send step plus the delay bound D) minus the addressee's next step: 0 means it
  must arrive at this next step;

and for the network, `offsets`: how far each node's next step is ahead of the slowest node's
(all 0 under sync), and `crashed`: the nodes that have crashed.

Transitions (`Graph.successors`) are those of tplp2016 §5.1.3, computed by the one rule
evaluator through `transitions.System` (its memo of local steps and its loss outcomes):

* **sync** (Molly's rounds): every node takes one step together, receiving every message sent
  to it in the round before. Under sync a node's step reads only its state and the messages of
  the previous round, so every interleaving of the bounded explorer has the trace of the
  round-by-round run with the same losses: rounds lose no trace.
* **async with a delay bound D**: one node x takes its next step, receiving every message whose
  slack is 0 and any subset of the others; a message it sends to y gets the slack
  t_x + D - (y's next step); a transition that sends a message to a node already past its
  deadline is no transition (as in the bounded explorer). The offsets are kept exactly: when a
  node may run ahead of another without bound, the graph is infinite and the search stops at
  its limit (`ConfigurationLimit`). Because offsets are exact, a cycle returns every node to the
  same offset: every node steps in every cycle, and every cycle is a fair run (tplp2016 §5.1.4;
  the delay bound delivers every message).
* async without a delay bound is not finite-state (a message may wait forever with the buffer
  growing): refused with ValueError.

Faults (`bounds.Network`, docs/faults.md), decided as the run goes: a message to another node
sent before step E may be lost (`System.outcomes`); a node that has not crashed may crash at any
of its steps while fewer than C have (from that step on its messages to other nodes are lost).
A program that reads crash(y, s) would read the crash step, which no bound caps: refused.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Iterator, NamedTuple

from ..bounds import CRASH, Network
from ..lang.ast import Instance, Program
from .transitions import GroundFact, Sent, System

Buffered = tuple[int, int, GroundFact]
"""A message in bf(x): (sender position, slack, fact with numbered values)."""

Label = tuple[frozenset[GroundFact] | None, ...]
"""What an edge's transition deduced, per node position: D = deduc_P(I) of the node's step, None for a node that did not step."""


class Local(NamedTuple):
    """One node's part of a configuration: its capped clock, st(x) and bf(x)."""

    clock: int
    state: frozenset[GroundFact]
    buffer: frozenset[Buffered]


class Configuration(NamedTuple):
    """A normalised configuration: each node's part, its step ahead of the slowest node, the crashed nodes."""

    parts: tuple[Local, ...]
    offsets: tuple[int, ...]
    crashed: frozenset[int]


class Move(NamedTuple):
    """What one transition did, for showing a witness: per stepping node, its position, its step (capped
    clock), the messages it received and the messages that travelled; and the nodes that crashed in it."""

    steps: tuple[tuple[int, frozenset[Buffered], Sent], ...]
    crashes: frozenset[int]


class ConfigurationLimit(Exception):
    """The graph has more configurations than the limit allows: the system may not be finite-state."""

    def __init__(self, message: str, configurations: int) -> None:
        super().__init__(message, configurations)

    @property
    def configurations(self) -> int:
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


class Graph:
    """The configurations reachable from start(P, H) and the transitions between them.

    `configurations[k]` is configuration number k (0 is the start), `edges[k]` its transitions as
    (target number, label number), `labels` the distinct labels (`Label`). `system` translates
    numbered values back to symbols.
    """

    def __init__(self, program: Program, instance: Instance, network: Network):
        if not network.sync and network.max_delay is None:
            raise ValueError(
                "asynchronous delivery without a delay bound is not finite-state (a message may stay in flight "
                "forever while its buffer grows): give --max-delay D, or --delivery sync"
            )
        if network.crashes and program.schema().get(CRASH) == 2:
            raise ValueError(
                "the program reads crash(Y, S), whose crash step S no bound caps in an infinite run: the eventual "
                "explorer does not model it (drop --crashes, or do not read crash/2)"
            )
        if network.crashes and network.fail_stop:
            raise ValueError(
                "the eventual explorer models Molly's clock rules only (a crashed node keeps its state and its "
                "clock): drop --crash-model fail-stop"
            )
        if network.crashes and network.after_send:
            raise ValueError(
                "the eventual explorer lets a node crash at any step, not only once it has sent to another node "
                "(Molly's crash candidates, the default under sync delivery): give --crash-times any"
            )
        self.network = network
        self.program = program
        self.system = System(program, instance, network)
        events = [s for e in self.system.events for s in e]
        self.cap = max([network.loss_until or 0, *(s + 1 for s in events)])
        self.configurations: list[Configuration] = []
        self.edges: list[list[tuple[int, int]]] = []
        self.labels: list[Label] = []
        self._numbers: dict[Configuration, int] = {}
        self._label_numbers: dict[Label, int] = {}

    @property
    def names(self):
        return self.system.names

    def start(self) -> Configuration:
        """start(P, H): st(x) = H(x), empty buffers, every node at step 0."""
        n = len(self.names)
        return Configuration(tuple(Local(0, facts, frozenset()) for facts in self.system.inputs), (0,) * n, frozenset())

    def build(self, limit: int) -> None:
        """Every configuration reachable from the start, breadth first; ConfigurationLimit past `limit` of them."""
        self._number(self.start(), limit)
        k = 0
        while k < len(self.configurations):
            edges = set()
            for target, label, _ in self.successors(self.configurations[k]):
                edges.add((self._number(target, limit), self._label(label)))
            self.edges[k] = sorted(edges)
            k += 1

    def _number(self, config: Configuration, limit: int) -> int:
        number = self._numbers.get(config)
        if number is None:
            if len(self.configurations) >= limit:
                raise ConfigurationLimit(
                    f"more than {limit} configurations: the program may compute new values without bound, or a node "
                    "may run ahead of another without bound (async delivery); raise --max-states to look further",
                    len(self.configurations),
                )
            number = self._numbers[config] = len(self.configurations)
            self.configurations.append(config)
            self.edges.append([])
        return number

    def _label(self, label: Label) -> int:
        number = self._label_numbers.get(label)
        if number is None:
            number = self._label_numbers[label] = len(self.labels)
            self.labels.append(label)
        return number

    def successors(self, config: Configuration) -> Iterator[tuple[Configuration, Label, Move]]:
        """Every transition from `config`: its target, its label and what it did."""
        if self.network.sync:
            yield from self._rounds(config)
        else:
            for i in range(len(self.names)):
                yield from self._async_steps(config, i)

    def _crash_choices(self, config: Configuration, movers: tuple[int, ...]) -> Iterator[frozenset[int]]:
        """The sets of nodes among `movers` that crash at this step: none, or up to the crashes left."""
        left = self.network.crashes - len(config.crashed)
        alive = [i for i in movers if i not in config.crashed]
        for k in range(min(left, len(alive)) + 1):
            for chosen in combinations(alive, k):
                yield frozenset(chosen)

    def step(self, i: int, local: Local, received: frozenset[Buffered]):
        """D, the next state and the messages of node i's step from `local` receiving `received` (`System.step`)."""
        return self.system.step(i, local.state.union(fact for *_, fact in received), local.clock)

    def _outcomes(self, i: int, local: Local, received: frozenset[Buffered], crashed: bool):
        """D, the next state and every choice of the messages of node i's step that travel."""
        step = self.step(i, local, received)
        return step, list(self.system.outcomes(i, local.clock, step.sent, crashed))

    def _rounds(self, config: Configuration) -> Iterator[tuple[Configuration, Label, Move]]:
        """Sync: every node steps, receiving its whole buffer; the messages that travel arrive at the next round."""
        n = len(self.names)
        clock = lambda local: min(local.clock + 1, self.cap)  # noqa: E731
        for crashes in self._crash_choices(config, tuple(range(n))):
            crashed = config.crashed | crashes
            computed = [self._outcomes(i, config.parts[i], config.parts[i].buffer, i in crashed) for i in range(n)]
            label = tuple(step.deduced for step, _ in computed)
            for chosen in product(*(outcomes for _, outcomes in computed)):
                buffers: list[set[Buffered]] = [set() for _ in range(n)]
                for i, sent in enumerate(chosen):
                    for j, facts in sent:
                        buffers[j].update((i, 0, fact) for fact in facts)
                parts = tuple(
                    Local(clock(local), step.state, frozenset(buffer))
                    for local, (step, _), buffer in zip(config.parts, computed, buffers)
                )
                move = Move(tuple((i, config.parts[i].buffer, sent) for i, sent in enumerate(chosen)), crashes)
                yield Configuration(parts, config.offsets, crashed), label, move

    def _async_steps(self, config: Configuration, i: int) -> Iterator[tuple[Configuration, Label, Move]]:
        """Async with delay bound D: node i steps, receiving the due messages and any subset of the others."""
        local, bound = config.parts[i], self.network.max_delay
        forced = frozenset(m for m in local.buffer if m[1] == 0)
        optional = sorted(local.buffer - forced)
        ahead = [o - config.offsets[i] for o in config.offsets]  # y's next step minus x's step
        ahead[i] = 1
        for size in range(len(optional) + 1):
            for chosen in combinations(optional, size):
                received = forced.union(chosen)
                kept = frozenset((s, slack - 1, fact) for s, slack, fact in local.buffer - received)
                for crashes in self._crash_choices(config, (i,)):
                    step, outcomes = self._outcomes(i, local, received, i in config.crashed or i in crashes)
                    label = tuple(step.deduced if j == i else None for j in range(len(self.names)))
                    for sent in outcomes:
                        target = self._async_target(config, i, step.state, kept, sent, ahead, bound)
                        if target is not None:
                            yield target._replace(crashed=config.crashed | crashes), label, Move(((i, received, sent),), crashes)

    def _async_target(self, config, i, state, kept, sent: Sent, ahead, bound) -> Configuration | None:
        """The configuration after node i's step (None if a message it sent can no longer meet its deadline)."""
        parts = list(config.parts)
        parts[i] = Local(min(config.parts[i].clock + 1, self.cap), state, kept)
        for j, facts in sent:
            slack = bound - ahead[j]
            if slack < 0:
                return None
            parts[j] = parts[j]._replace(buffer=parts[j].buffer.union((i, slack, fact) for fact in facts))
        offsets = list(config.offsets)
        offsets[i] += 1
        least = min(offsets)
        return Configuration(tuple(parts), tuple(o - least for o in offsets), config.crashed)
