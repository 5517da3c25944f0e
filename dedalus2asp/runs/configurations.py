"""The configuration graph of a program on its input and network: every infinite run, as a finite graph.

The bounded explorer (`operational`) walks run prefixes of T+1 steps; a configuration there
remembers each node's whole past (its part of the trace). To speak of infinite runs (the
eventual semantics, `eventual`) a configuration must forget what no future step can read, so
that the configurations are finitely many when the program does not invent values. A
`Configuration` keeps, per node (`Local`):

* `state`: st(x), the facts carried into its next step (H(x) ∪ induc_P(D), tplp2016 §5.1.3);
* `clock`: its next step number capped at `Graph.cap` — the loss window E, the input events
  R(ā)@k, the fixed steps k that global rules read (`p(ā)@k`, with `observe`) and nothing else
  read a step number, so past the largest of them all steps are alike;
* `buffer`: bf(x), the messages in flight to x, each as (wait, fact): it arrives at x's next
  step plus `wait` (its arrival is chosen when it is sent, as the solver chooses it);

and for the network `crashed`, the nodes that have crashed; `sent`, under Molly's crash
candidates (`--crash-times after-send`) only, the nodes that have sent to another node so far
and may still crash (a node may crash only at or after such a step); `memory`, only when the
graph `observe`s for the global rules, the facts of the nodes at each fixed step k that a global
rule reads (`Graph.remembered`), once round k has passed.

**Rounds.** The nodes step in rounds: round k is every node's local step k. Transitions
(`Graph.successors`) are those of tplp2016 §5.1.3 for every node at once, computed by the one
rule evaluator through `transitions.System` (its memo of local steps and its loss outcomes).
In round k every node x receives the messages of its buffer that arrive at k and takes its step
k; a message it sends (and the network does not lose) arrives at a round t with s + 1 ≤ t ≤ s + D,
chosen then — to any addressee, itself included. Under **sync** (Molly's rounds) D = 1: every
message arrives at the next round. Under **async with a delay bound D** (`--max-delay D`) any
arrival within the bound; D = 0 leaves a node that sends anything no transition.

A message is kept as (wait, fact), without its sender: once sent, nothing reads who sent it, and
two messages with the same fact and the same arrival are received together, indistinguishably.
So the copies of one fact sent to y in one round (by several senders) choose together any
nonempty set of at most that many arrival rounds (`Graph.arrivals`): the same runs as each copy
choosing its own, with fewer configurations and transitions. (The messages a witness shows as
received are facts, without their sender; the messages sent and lost keep theirs.)

Why rounds, and what they leave out: tplp2016's runs interleave single node steps, and the
bounded explorer follows them. With free local clocks a node may run ahead of another without
bound, so configurations that remember how far apart the nodes' clocks are become infinitely
many with two or more nodes (the graph this module built before followed exact offsets and was
almost never finite). In rounds the configuration is finite (carried facts, buffers with their
arrival rounds, crashed set, capped clock). The restriction: the bounded semantics also lets a message
reach another node at a step numbered ≤ its send step (the receiver's clock behind the
sender's), which rounds never do. (`drift` follows such runs for their first steps, from whose ends
`build(roots=...)` grows the graph in rounds: docs/semantics.md, "Decision: the rounds".) Under sync nothing is lost: a node's step reads only its
state and the messages of the previous round, so every interleaving of the bounded explorer has
the trace of the round-by-round run with the same losses. In rounds every message goes forward
in time, so happens-before is acyclic by construction, and every node steps on every cycle, so
every cycle is a fair run (tplp2016 §5.1.4; the delay bound delivers every message).
async without a delay bound is not finite-state (a message may wait forever with the buffer
growing): refused with ValueError.

**Faults** (`bounds.Network`, docs/faults.md), decided as the run goes:

* omissions: a message to another node sent at a round before E may be lost
  (`System.outcomes`); one at a time (`--omission message`), or a whole channel (x, s, y)
  together (`--omission channel`, Molly's model, the sync default);
* crashes: a node that has not crashed may crash at any round while fewer than C have; from
  that round on its messages to other nodes are lost. `--crash-times any`: at any round;
  `after-send` (Molly's crash candidates, the sync default): only at or after a round in which
  it sent to another node (its computed messages, before losses; under fail-stop the crash
  round itself is silent, so an earlier one). `--crash-model clock` (Molly's clock rules): a
  crashed node keeps its state, deduces, receives and sends to itself; `fail-stop`: from its
  crash round on it does nothing (`System.act`), holds nothing, and what is sent to it is
  dropped (it would never read it).

Faults happen in a run's prefix only: the crashed set only grows, and omissions need a clock
below E, which only grows until the cap; so no edge of a cycle has a fault. Each edge carries
the fewest faults of the moves it stands for (`Graph.faults`), counted as `verify` counts a
counterexample's: omitted messages (one per channel and round under `--omission channel`; a
message lost because its sender crashed is no fault of its own) plus crashed nodes.
A program that reads crash(y, s) would read the crash step, which no bound caps: refused.

Public names: `Graph` (`build`, `successors`, `step`, `start`, `cap`, `configurations`,
`edges`, `faults`, `labels`, `names`, `system`, `remembered`), `Configuration`, `Local`,
`Move`, `Label`, `Buffered`, `ConfigurationLimit`.
"""

from __future__ import annotations

import time
from itertools import combinations, product
from typing import Callable, Iterator, NamedTuple

from ..bounds import CRASH, Network
from ..lang.ast import Instance, Literal, Program, RuleKind
from .transitions import GroundFact, Sent, Step, System

Buffered = tuple[int, GroundFact]
"""A message in bf(x): (wait, fact with numbered values): it arrives at x's next step plus `wait`."""

Label = tuple[frozenset[GroundFact] | None, ...]
"""What an edge's transition deduced, per node position: D = deduc_P(I) of the node's step (every node steps in a
round; None is kept in the type for a node that did not step)."""

Remembered = tuple[tuple[int, frozenset[tuple[int, GroundFact]]], ...]
"""The memory of a configuration: per fixed step k that a global rule reads and that has passed, the facts
(node position, fact) of the relations the global rules read at the nodes, at round k."""


class Local(NamedTuple):
    """One node's part of a configuration: its capped clock, st(x) and bf(x)."""

    clock: int
    state: frozenset[GroundFact]
    buffer: frozenset[Buffered]


class Configuration(NamedTuple):
    """A normalised configuration: each node's part, the crashed nodes, the nodes that have sent to another node
    and may still crash (after-send crash candidates only), and the memory for the global rules (`observe` only)."""

    parts: tuple[Local, ...]
    crashed: frozenset[int]
    sent: frozenset[int] = frozenset()
    memory: Remembered = ()


class Move(NamedTuple):
    """What one transition did, for showing a witness: per node, its position, the messages it received and the
    messages that travelled; the nodes that crashed in it; its faults (omissions and crashes, see the module's
    docstring)."""

    steps: tuple[tuple[int, frozenset[Buffered], Sent], ...]
    crashes: frozenset[int]
    faults: int = 0


def numbered(numbers: dict, items: list, item) -> int:
    """`item`'s number: its position in `items`, appended (and recorded in `numbers`) the first time."""
    number = numbers.get(item)
    if number is None:
        number = numbers[item] = len(items)
        items.append(item)
    return number


class ConfigurationLimit(Exception):
    """The graph has more configurations than the limit allows: the system may not be finite-state."""

    def __init__(self, message: str, configurations: int) -> None:
        super().__init__(message, configurations)

    @property
    def configurations(self) -> int:
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


def global_steps(program: Program) -> tuple[int, ...]:
    """The fixed steps k that a global rule reads (`p(ā)@k`), sorted."""
    return tuple(sorted({item.step for rule in program.rules if rule.kind is RuleKind.GLOBAL for item in rule.body
                         if isinstance(item, Literal) and item.step is not None}))


class Graph:
    """The configurations reachable from start(P, H) and the transitions between them.

    `configurations[k]` is configuration number k (0 is the start), `edges[k]` its transitions as
    (target number, label number), `faults[k][n]` the fewest faults of the moves of edge `edges[k][n]`,
    `labels` the distinct labels (`Label`). `system` translates numbered values back to symbols.
    `observe`: remember, in each configuration, what the global rules read at fixed steps (`remembered`),
    so that the global facts of every round can be computed from an edge and its source (`eventual_verify`).
    """

    def __init__(self, program: Program, instance: Instance, network: Network, observe: bool = False):
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
        self.network = network
        self.program = program
        self.system = System(program, instance, network)
        self.bound: int = network.delay_bound
        self.remembered = global_steps(program) if observe else ()
        events = [s for e in self.system.events for s in e]
        self.cap = max([network.loss_until or 0, *(s + 1 for s in events), *(k + 1 for k in self.remembered)])
        self.configurations: list[Configuration] = []
        self.edges: list[list[tuple[int, int]]] = []
        self.faults: list[list[int]] = []
        self.labels: list[Label] = []
        self._numbers: dict[Configuration, int] = {}
        self._label_numbers: dict[Label, int] = {}
        self._built = 0  # the configurations expanded so far (`build` grows the graph from more roots)
        self.between = False
        """Whether some step sends a message to another node (then the nodes' clocks may drift apart: `drift`)."""

    @property
    def names(self):
        return self.system.names

    def start(self) -> Configuration:
        """start(P, H): st(x) = H(x), empty buffers, every node at step 0."""
        return Configuration(tuple(Local(0, facts, frozenset()) for facts in self.system.inputs), frozenset())

    def build(self, limit: int, seconds: float | None = None, progress: Callable[[int, int], None] | None = None,
              roots: tuple[Configuration, ...] = ()) -> list[int]:
        """Every configuration reachable from the start, breadth first; ConfigurationLimit past `limit` of them, or
        when building takes more than `seconds`. `progress(k, n)`, if given, is told before each configuration's
        successors: k expanded, n found. Called again with `roots` (the ends of free-clock prefixes, `drift`), it
        grows the graph by what those reach, and returns their numbers."""
        end = None if seconds is None else time.perf_counter() + seconds
        if not self.configurations:
            self._number(self.start(), limit)
        numbers = [self._number(root, limit) for root in roots]
        k = self._built
        while k < len(self.configurations):
            if progress is not None:
                progress(k, len(self.configurations))
            if end is not None and k % 64 == 0 and time.perf_counter() > end:
                raise ConfigurationLimit(f"the graph was not built within {seconds:g} s", len(self.configurations))
            fewest: dict[tuple[int, int], int] = {}
            for target, label, move in self.successors(self.configurations[k]):
                edge = (self._number(target, limit), self._label(label))
                fewest[edge] = min(fewest.get(edge, move.faults), move.faults)
            self.edges[k] = sorted(fewest)
            self.faults[k] = [fewest[e] for e in self.edges[k]]
            k += 1
            self._built = k
        return numbers

    def _number(self, config: Configuration, limit: int) -> int:
        number = self._numbers.get(config)
        if number is None:
            if len(self.configurations) >= limit:
                raise ConfigurationLimit(
                    f"more than {limit} configurations: the program may compute new values without bound; raise "
                    "--max-states to look further",
                    len(self.configurations),
                )
            number = self._numbers[config] = len(self.configurations)
            self.configurations.append(config)
            self.edges.append([])
            self.faults.append([])
        return number

    def _label(self, label: Label) -> int:
        return numbered(self._label_numbers, self.labels, label)

    def step(self, i: int, local: Local, received: frozenset[Buffered], crashed: bool = False) -> Step:
        """D, the next state and the messages of node i's step from `local` receiving `received`: `System.step`, or
        nothing at all for a node that has crashed under fail-stop (`System.act`)."""
        if crashed and self.network.fail_stop:
            return self.system.silent(i)
        return self.system.step(i, local.state.union(fact for _, fact in received), local.clock)

    def arrivals(self, copies: int) -> list[tuple[int, ...]]:
        """The waits of `copies` messages with one fact to one addressee sent in one round: any nonempty set of at most
        `copies` of 0..D-1 (a message sent at round s arrives at s+1+wait); none under D = 0."""
        return [waits for k in range(1, min(copies, self.bound) + 1) for waits in combinations(range(self.bound), k)]

    def successors(self, config: Configuration) -> Iterator[tuple[Configuration, Label, Move]]:
        """Every transition from `config` (one round, see the module's docstring): its target, its label and what it did."""
        n, network = len(self.names), self.network
        left = network.crashes - len(config.crashed)
        received = [frozenset(m for m in config.parts[i].buffer if m[0] == 0) for i in range(n)]
        computed = [self.step(i, config.parts[i], received[i], i in config.crashed) for i in range(n)]
        self.between = self.between or any(j != i for i, step in enumerate(computed) for j, _ in step.sent)
        eligible = [i for i in range(n) if i not in config.crashed and self._may_crash(config, i, computed[i])]
        for k in range(min(left, len(eligible)) + 1):
            for chosen in combinations(eligible, k):
                yield from self._round(config, received, computed, frozenset(chosen))

    def _may_crash(self, config: Configuration, i: int, step: Step) -> bool:
        """Whether node i may crash in this round: always under `--crash-times any`; under Molly's crash candidates
        once it has sent to another node, this round included under the clock model (a fail-stop node is silent
        in its crash round)."""
        if not self.network.after_send:
            return True
        return i in config.sent or (not self.network.fail_stop and any(j != i for j, _ in step.sent))

    def _round(self, config: Configuration, received, computed: list[Step], crashes: frozenset[int]):
        """The transitions of one round in which the nodes `crashes` crash: every choice of lost messages and of
        arrivals."""
        n, network = len(self.names), self.network
        crashed = config.crashed | crashes
        steps = [self.step(i, config.parts[i], received[i], True) if i in crashes else computed[i] for i in range(n)]
        label = tuple(step.deduced for step in steps)
        outcomes = [list(self.system.outcomes(i, config.parts[i].clock, steps[i].sent, i in crashed)) for i in range(n)]
        sent = config.sent
        if network.after_send:
            sent = sent | {i for i, step in enumerate(steps) if any(j != i for j, _ in step.sent)}
            sent = frozenset() if len(crashed) >= network.crashes else sent - crashed
        memory = config.memory
        now = config.parts[0].clock if n else 0  # the round (uncapped up to past the last fixed step read)
        if now in self.remembered:
            observed = self.system.plan.observed
            memory = (*memory, (now, frozenset((i, f) for i, d in enumerate(label) for f in d if f[0] in observed)))
        waiting = [frozenset((wait - 1, fact) for wait, fact in config.parts[j].buffer if wait > 0) for j in range(n)]
        for chosen in product(*outcomes):
            copies: list[dict[GroundFact, int]] = [{} for _ in range(n)]  # per addressee: each fact's copies
            for i, travelled in enumerate(chosen):
                for j, facts in travelled:
                    if not (network.fail_stop and j in crashed):  # a fail-stop node never reads it
                        for fact in facts:
                            copies[j][fact] = copies[j].get(fact, 0) + 1
            move = Move(tuple((i, received[i], chosen[i]) for i in range(n)), crashes,
                        self._faults(steps, chosen, crashed, len(crashes)))
            parts = []  # per node, its part in every target: the buffers differ by the arrivals chosen
            for j, (local, step) in enumerate(zip(config.parts, steps)):
                clock = min(local.clock + 1, self.cap)
                if network.fail_stop and j in crashed:
                    parts.append([Local(clock, step.state, frozenset())])
                    continue
                facts = sorted(copies[j])
                parts.append(list(dict.fromkeys(  # a message may join one already waiting for the same round
                    Local(clock, step.state, waiting[j].union((wait, fact) for fact, ws in zip(facts, waits) for wait in ws))
                    for waits in product(*(self.arrivals(copies[j][fact]) for fact in facts))
                )))
            for target in product(*parts):
                yield Configuration(target, crashed, sent, memory), label, move

    def _faults(self, steps: list[Step], chosen: tuple[Sent, ...], crashed: frozenset[int], crashes: int) -> int:
        """Omissions and crashes of one round, as `verify` counts them (see the module's docstring)."""
        omissions = 0
        for i, (step, travelled) in enumerate(zip(steps, chosen)):
            if i in crashed:
                continue  # lost to its sender's crash: no fault of its own
            kept = dict(travelled)
            for j, facts in step.sent:
                lost = len(facts - kept.get(j, frozenset()))
                omissions += (1 if lost else 0) if self.network.by_channel else lost
        return omissions + crashes
